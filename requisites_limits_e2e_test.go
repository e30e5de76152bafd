package crawl_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl/capture"
	"github.com/politecrawl/crawl/crawltest"
)

// TestCrawlRequisitesBeyondPageLimits crawls crawltest.RequisiteFarm under
// scope.max_pages and scope.max_pages_per_host: the limits count pages, and every
// page fetched comes with its requisites (the capture report, from the WARC files
// alone, finds none missing), fetched beyond them; requisites.max_per_page bounds
// them instead, the rest recorded in skipped.jsonl.
func TestCrawlRequisitesBeyondPageLimits(t *testing.T) {
	for _, tt := range []struct {
		maxPages, perHost, perPage int
		wantPages                  int // pages.jsonl lines of pages; 0: not checked
	}{
		{maxPages: 3, wantPages: 3},
		{maxPages: 1, wantPages: 1},
		{perHost: 1},
		{maxPages: 2, perPage: 2, wantPages: 2},
	} {
		t.Run(fmt.Sprintf("max_pages=%d,per_host=%d,per_page=%d", tt.maxPages, tt.perHost, tt.perPage), func(t *testing.T) {
			farm := startFarm(t, crawltest.RequisiteFarm(2, 4))
			dir := t.TempDir()
			cfg := testConfig(farm, dir)
			// cdn.test's logo is a seed of the farm: queued as a page, it would be
			// fetched as one (under max_pages), not as the requisite the pages name.
			cfg.Seeds = slices.DeleteFunc(cfg.Seeds, func(s string) bool { return strings.Contains(s, "cdn.test") })
			cfg.Scope.MaxPages = tt.maxPages
			cfg.Scope.MaxPagesPerHost = tt.perHost
			cfg.Requisites.MaxPerPage = tt.perPage
			sum := runCrawl(t, cfg)
			// The limits leave pages unfetched: the audit checks politeness alone.
			audit := crawltest.Audit(farm, crawltest.AuditOptions{Agent: "politecrawl", MinDelay: testDelay, Tolerance: time.Millisecond})
			if err := audit.Err(); err != nil {
				t.Errorf("audit: %v", err)
			}

			var pages, reqs int
			for _, l := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
				if l["requisite"] != nil {
					reqs++
				} else {
					pages++
				}
			}
			if tt.wantPages > 0 && (pages != tt.wantPages || !sum.LimitReached || sum.Pages != int64(pages)) {
				t.Errorf("%d page lines, summary %d pages, limit reached %v; want %d and true", pages, sum.Pages, sum.LimitReached, tt.wantPages)
			}
			if reqs == 0 || sum.Requisites != int64(reqs) {
				t.Errorf("%d requisite lines, summary %d requisites; want some, the same", reqs, sum.Requisites)
			}

			rep, err := capture.ReadDir(dir, capture.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Pages == 0 {
				t.Fatalf("no page reported")
			}
			limited := 0
			for _, p := range rep.PageReports {
				limited += p.Limit
				if p.Missing != 0 || p.Archived+p.Blocked+p.Limit != p.Found || tt.perPage == 0 && p.Blocked != 1 {
					t.Errorf("%s: %+v, not archived %+v; want each archived, the banner blocked, or past the per-page limit", p.URL, p.Counts, p.NotArchived)
				}
			}
			skips := 0
			for _, l := range readJSONL(t, filepath.Join(dir, "skipped.jsonl")) {
				if l["reason"] == "requisite-limit" {
					skips++
					if l["requisite"] == nil || l["found_on"] == nil {
						t.Errorf("skipped.jsonl: %v, want the requisite's kind and its page", l)
					}
				}
			}
			if (tt.perPage > 0) != (limited > 0 && skips > 0) {
				t.Errorf("per_page %d: %d requisites reported past the limit, %d requisite-limit lines", tt.perPage, limited, skips)
			}
		})
	}
}
