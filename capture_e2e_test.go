package crawl_test

import (
	"testing"

	"github.com/politecrawl/crawl/capture"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/extract"
)

// TestCaptureReport crawls crawltest.RequisiteFarm and derives the capture report
// from the data directory alone: with requisites on, every page's requisites are
// archived (its stylesheets, the second stylesheet and the font and image they name,
// its script and images, the shared host's logo) but the image robots.txt disallows,
// which is reported blocked; with requisites off the page's own requisites are
// missing (the logo, a seed of the farm, is archived as a page).
func TestCaptureReport(t *testing.T) {
	const hosts, pages = 2, 3
	kinds := func(names []string) []extract.Kind {
		var ks []extract.Kind
		for _, n := range names {
			k, err := extract.ParseKind(n)
			if err != nil {
				t.Fatal(err)
			}
			ks = append(ks, k)
		}
		return ks
	}
	for _, on := range []bool{true, false} {
		farm := startFarm(t, crawltest.RequisiteFarm(hosts, pages))
		dir := t.TempDir()
		cfg := testConfig(farm, dir)
		cfg.Requisites.Enabled = on
		runCrawl(t, cfg)
		auditOK(t, farm, 0)
		rep, err := capture.ReadDir(dir, capture.Options{MaxHops: cfg.Requisites.MaxHops, Kinds: kinds(cfg.Requisites.Kinds)})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Pages != hosts*pages {
			t.Fatalf("requisites %v: %d pages reported, want %d", on, rep.Pages, hosts*pages)
		}
		for _, p := range rep.PageReports {
			// site.css, app.js, the page's image and its 2x, cdn.test's logo, the
			// disallowed banner; then base.css, font.woff2, bg.png from site.css.
			want := capture.Counts{Found: 9, Archived: 8, Blocked: 1}
			if !on {
				want = capture.Counts{Found: 6, Archived: 1, Missing: 5}
			}
			if p.Counts != want {
				t.Errorf("requisites %v: %s:\n\tgot  %+v\n\twant %+v\n\tnot archived: %+v", on, p.URL, p.Counts, want, p.NotArchived)
			}
			if on && (len(p.NotArchived) != 1 || p.NotArchived[0].Status != capture.Blocked || p.NotArchived[0].Reason != "robots") {
				t.Errorf("requisites on: %s: not archived %+v, want the banner blocked by robots.txt", p.URL, p.NotArchived)
			}
		}
		if rep.OK() != on {
			t.Errorf("requisites %v: report OK %v, missing %d", on, rep.OK(), rep.Totals.Missing)
		}
	}
}
