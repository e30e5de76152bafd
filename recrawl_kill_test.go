package crawl_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// TestRecrawlValidatorsAfterKill kills a crawl process with SIGKILL partway through a
// site whose pages all carry an ETag or a Last-Modified and never change, resumes the
// crawl, and recrawls the site a day later: every refetch goes out with its validators
// and is answered 304, those of the pages archived before the kill included. Their
// captures reach the digest index in batches (storage's persistBatch), so the kill
// loses them from the index; OpenWARC reads them back from the WARC files. Without
// that catch-up, each page archived before the kill was refetched unconditionally
// (200) on its first recrawl.
func TestRecrawlValidatorsAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a crawl process and kills it")
	}
	const host, pageCount, killAt = "valid.test", 24, 12
	mod := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	pages := map[string]*crawltest.Page{"/": {ETag: `"root"`}}
	for i := range pageCount {
		path := fmt.Sprintf("/p%d", i)
		pages["/"].Links = append(pages["/"].Links, path)
		p := &crawltest.Page{Size: 4 << 10}
		if i%2 == 0 {
			p.ETag = fmt.Sprintf(`"e%d"`, i)
		} else {
			p.LastModified = mod
		}
		pages[path] = p
	}
	farm := startFarm(t, []crawltest.Site{{Host: host, Pages: pages}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Recrawl = config.Recrawl{Interval: config.Duration(scheduleDay)}

	// Round 0: killed after killAt page requests, then resumed to its end.
	killAfter(t, farm, recrawlJob{Seeds: cfg.Seeds, Resolve: cfg.Network.Resolve, DataDir: dir, Recrawl: cfg.Recrawl}, killAt)
	before := 0
	for _, r := range farm.Requests() {
		if r.Path != "/robots.txt" && r.Status == 200 {
			before++
		}
	}
	want := map[string]int{}
	for path := range pages {
		want["http://"+host+path] = 1
	}
	got := runRound(t, cfg, 0, want)

	// Round 1, a day later: one refetch of every page, each with its validators.
	mark := len(farm.Requests())
	for u, n := range got {
		want[u] = n + 1
	}
	runRound(t, cfg, scheduleDay, want)
	// The host's /favicon.ico, a requisite of every page the site does not serve,
	// is refetched once: 404 again.
	statuses := map[int]int{}
	var unconditional []string
	icons := 0
	for _, r := range farm.Requests()[mark:] {
		switch {
		case r.Path == "/robots.txt":
			continue
		case r.Path == "/favicon.ico" && r.Status == 404:
			icons++
			continue
		}
		statuses[r.Status]++
		if r.Status != 304 {
			unconditional = append(unconditional, r.Path)
		}
	}
	if statuses[304] != len(pages) || len(unconditional) > 0 || icons != 1 {
		t.Errorf("recrawl after the kill: statuses %v, want %d × 304; answered in full: %v; /favicon.ico 404 %d times, want 1", statuses, len(pages), unconditional, icons)
	}
	t.Logf("killed after %d pages answered 200; the recrawl: %v", before, statuses)
	checkPagesWhole(t, dir)
	auditOK(t, farm, refetches(farm))
}
