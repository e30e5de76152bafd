package crawl_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/politecrawl/crawl/crawltest"
)

// scope.max_pages counts pages fetched, not URLs queued: robots-blocked URLs do not use
// it up, the URLs past it stay queued, and a rerun with a larger value goes on
// (issue 12, defect 7).
func TestCrawlMaxPagesCountsFetched(t *testing.T) {
	pages := map[string]*crawltest.Page{}
	var links []string
	for i := range 6 {
		p := fmt.Sprintf("/private/%d.html", i)
		links = append(links, p) // queued first: they are leased first
		pages[p] = &crawltest.Page{Disallowed: true}
	}
	for i := range 20 {
		p := fmt.Sprintf("/p%d.html", i)
		links = append(links, p)
		pages[p] = &crawltest.Page{}
	}
	pages["/"] = &crawltest.Page{Links: links}
	farm := startFarm(t, []crawltest.Site{{
		Host:   "budget.test",
		Robots: &crawltest.Robots{Body: "User-agent: *\nDisallow: /private/\n"},
		Pages:  pages,
	}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Workers = 3

	for _, run := range []struct {
		maxPages, wantLines int
		complete            bool
	}{
		{8, 8, false},
		{8, 8, false}, // the same limit again: nothing more
		{12, 12, false},
		{0, 21, true},
	} {
		cfg.Scope.MaxPages = run.maxPages
		sum := runCrawl(t, cfg)
		lines := readJSONL(t, filepath.Join(dir, "pages.jsonl"))
		if len(lines) != run.wantLines {
			t.Fatalf("max_pages %d: pages.jsonl has %d lines, want %d", run.maxPages, len(lines), run.wantLines)
		}
		if sum.Complete != run.complete || sum.LimitReached == run.complete {
			t.Errorf("max_pages %d: Complete %v LimitReached %v, want %v and %v\n%s",
				run.maxPages, sum.Complete, sum.LimitReached, run.complete, !run.complete, sum)
		}
	}
	auditOK(t, farm, 0)
}
