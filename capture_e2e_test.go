package crawl_test

import (
	"testing"

	"github.com/politecrawl/crawl/capture"
	"github.com/politecrawl/crawl/crawltest"
)

// TestCaptureReport crawls crawltest.RequisiteFarm and derives the capture report
// from the data directory alone: with requisites on, every page's requisites are
// archived (its stylesheets, the second stylesheet and the font and image they name,
// its script and images, the shared host's logo) but the image robots.txt disallows,
// which is reported blocked; with requisites off the page's own requisites are
// missing (the logo, a seed of the farm, is archived as a page).
func TestCaptureReport(t *testing.T) {
	const hosts, pages = 2, 3
	for _, on := range []bool{true, false} {
		farm := startFarm(t, crawltest.RequisiteFarm(hosts, pages))
		dir := t.TempDir()
		cfg := testConfig(farm, dir)
		cfg.Requisites.Enabled = on
		runCrawl(t, cfg)
		auditCrawl(t, farm, 0, on)
		kinds, err := capture.ParseKinds(cfg.Requisites.Kinds)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := capture.ReadDir(dir, capture.Options{MaxHops: cfg.Requisites.MaxHops, Kinds: kinds})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Pages != hosts*pages {
			t.Fatalf("requisites %v: %d pages reported, want %d", on, rep.Pages, hosts*pages)
		}
		// The crawl's warcinfo names its requisite settings when it fetches requisites,
		// so a report from the WARC files alone holds it to them.
		alone, err := capture.ReadDir(dir, capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		wantFrom := "default"
		if on {
			wantFrom = "warcinfo"
		}
		if alone.MaxHopsFrom != wantFrom || alone.KindsFrom != wantFrom || alone.Totals != rep.Totals {
			t.Errorf("requisites %v, from the WARC files alone: hops from %q, kinds from %q, totals %+v; want %q and the totals %+v",
				on, alone.MaxHopsFrom, alone.KindsFrom, alone.Totals, wantFrom, rep.Totals)
		}
		for _, p := range rep.PageReports {
			// site.css, app.js, the page's image and its 2x, cdn.test's logo, the
			// disallowed banner, the host's /favicon.ico (named by no page, asked for
			// by the browser); then base.css, font.woff2, bg.png from site.css.
			want := capture.Counts{Found: 10, Archived: 9, Blocked: 1}
			if !on {
				want = capture.Counts{Found: 7, Archived: 1, Missing: 6}
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

// TestCaptureReportSites derives the capture report of a crawl of
// crawltest.RequisiteSites: the front page's requisites are archived but the image
// robots.txt disallows (blocked) and the video (a kind not fetched: excluded); the
// image three hops away is past the hop limit, so not reported; the frame's document
// is reported with its page, not as one.
func TestCaptureReportSites(t *testing.T) {
	farm := startFarm(t, crawltest.RequisiteSites([]byte("a font")))
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	runCrawl(t, cfg)
	kinds, err := capture.ParseKinds(cfg.Requisites.Kinds)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := capture.ReadDir(dir, capture.Options{MaxHops: cfg.Requisites.MaxHops, Kinds: kinds})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]capture.Counts{
		// preload.css, site.css, base.css and theme.css (imported: no hop),
		// favicon, photo, photo-2x, wide, narrow, the cdn's logo, secret,
		// frame.html, clip.mp4, poster, app.js, /favicon.ico (every page's: what
		// replay asks for the tab); then the font, bg.png (site.css), theme.png
		// (theme.css), frame.png and frame.css (the frame).
		"http://assets.test/":            {Found: 21, Archived: 19, Blocked: 1, Excluded: 1},
		"http://assets.test/page2.html":  {Found: 8, Archived: 8},
		"http://assets.test/manual.html": {Found: 2, Archived: 2},
		"http://cdn.test/":               {Found: 1, Archived: 1},
	}
	if rep.Pages != len(want) {
		t.Errorf("%d pages reported, want %d", rep.Pages, len(want))
	}
	for _, p := range rep.PageReports {
		w, ok := want[p.URL]
		if !ok || p.Counts != w {
			t.Errorf("%s:\n\tgot  %+v\n\twant %+v\n\tnot archived: %+v", p.URL, p.Counts, w, p.NotArchived)
		}
		for _, q := range p.NotArchived {
			if q.URL == "http://assets.test/private/secret.png" && (q.Status != capture.Blocked || q.Reason != "robots") ||
				q.URL == "http://assets.test/media/clip.mp4" && q.Status != capture.Excluded {
				t.Errorf("%s: %+v", p.URL, q)
			}
		}
	}
	if !rep.OK() || rep.Unread != 0 || rep.Damaged != 0 {
		t.Errorf("report: OK %v, unread %d, damaged %d", rep.OK(), rep.Unread, rep.Damaged)
	}
}
