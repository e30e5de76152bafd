package crawl_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/frontier"
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
		lines, requisites := pageLines(t, filepath.Join(dir, "pages.jsonl"))
		if len(lines) != run.wantLines {
			t.Fatalf("max_pages %d: pages.jsonl has %d lines of pages, want %d", run.maxPages, len(lines), run.wantLines)
		}
		// The host's icon, a requisite of the first page, due right after it and not
		// counted by max_pages.
		if got := urlsOf(requisites); len(got) != 1 || got[0] != "http://budget.test/favicon.ico" {
			t.Fatalf("max_pages %d: pages.jsonl lines of requisites %q, want the host's /favicon.ico", run.maxPages, got)
		}
		if sum.Complete != run.complete || sum.LimitReached == run.complete {
			t.Errorf("max_pages %d: Complete %v LimitReached %v, want %v and %v\n%s",
				run.maxPages, sum.Complete, sum.LimitReached, run.complete, !run.complete, sum)
		}
	}
	auditOK(t, farm, 0)
}

// A crawl stopped by max_pages sorts the links its last pages found into the queues
// before it ends, so that its figures and `crawl status` count them as queued (with
// frontier.link_batch they would otherwise still be staged), and a rerun with a
// larger max_pages fetches them (issue 14).
func TestCrawlMaxPagesSortsInStagedLinks(t *testing.T) {
	for _, linkBatch := range []int{0, config.DefaultLinkBatch} {
		t.Run(fmt.Sprint("link_batch=", linkBatch), func(t *testing.T) {
			pages := map[string]*crawltest.Page{}
			var links []string
			for i := range 5 {
				p := fmt.Sprintf("/p%d.html", i)
				links = append(links, p)
				pages[p] = &crawltest.Page{}
			}
			pages["/"] = &crawltest.Page{Links: links}
			farm := startFarm(t, []crawltest.Site{{Host: "staged.test", Pages: pages}})
			dir := t.TempDir()
			cfg := testConfig(farm, dir)
			cfg.Frontier.LinkBatch = linkBatch
			cfg.Scope.MaxPages = 1 // the seed: its links are found by the last page done
			sum := runCrawl(t, cfg)
			if sum.Queued != 5 || sum.Staged != 0 || !sum.LimitReached || sum.Complete {
				t.Fatalf("after max_pages 1: queued %d staged %d, LimitReached %v Complete %v; want 5 queued, none staged, the limit reached\n%s",
					sum.Queued, sum.Staged, sum.LimitReached, sum.Complete, sum)
			}
			f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			st := f.Stats()
			f.Close()
			// Added: the seed, its 5 links and the host's /favicon.ico, its requisite,
			// fetched (max_pages counts pages).
			if st.Queued != 5 || st.Staged != 0 || st.Added != 7 || st.DoneUncounted != 1 {
				t.Fatalf("frontier after the run: queued %d staged %d added %d, done uncounted %d; want 5, 0, 7 and 1", st.Queued, st.Staged, st.Added, st.DoneUncounted)
			}
			cfg.Scope.MaxPages = 0
			if sum := runCrawl(t, cfg); !sum.Complete || sum.Pages != 5 {
				t.Fatalf("rerun without max_pages: %d pages, Complete %v; want the 5 links fetched\n%s", sum.Pages, sum.Complete, sum)
			}
			auditOK(t, farm, 0)
		})
	}
}
