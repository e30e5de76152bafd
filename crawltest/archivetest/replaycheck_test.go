package archivetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/crawltest/replaycheck"
)

// TestReplayCheck measures a crawl of crawltest.RequisiteSites as issue 29's goals
// are measured on real sites (crawltest/cmd/replaycheck, BENCHMARKS.md): each page
// loaded live from the farm and replayed from the WACZ in ReplayWeb.page, both in
// headless Chromium. Every subresource the browser loads live must be answered
// from the archive in replay, but the image robots.txt disallows and the video
// (requisites.kinds leaves video out by default), and the icon it shows in the tab
// must be in the archive: /manual.html names none, so the browser loads the host's
// /favicon.ico, which the crawler fetches for every host; the XHTML page
// must replay as HTML; and the screenshots must differ in at most 5% of their
// pixels. With requisites off the same measure must fall short (a negative
// control).
func TestReplayCheck(t *testing.T) {
	chromium := need(t, "chromium", chromiumPath())
	rwp := need(t, "replaywebpage", filepath.Join(nodeModules(), "replaywebpage"))
	font, err := os.ReadFile(need(t, "a TrueType font (fonts-dejavu-core)", fontPath))
	if err != nil {
		t.Fatal(err)
	}
	// Not archived by design: disallowed by robots.txt, and a video.
	left := map[string]bool{"http://assets.test/private/secret.png": true, "http://assets.test/media/clip.mp4": true}
	pages := []string{"http://assets.test/", "http://assets.test/manual.html"}
	// The pages that name no icon, and the one the browser loads for their tab.
	hostIcon := map[string]string{"http://assets.test/manual.html": "http://assets.test/favicon.ico"}
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("requisites %v", on), func(t *testing.T) {
			farm, err := crawltest.Start(crawltest.RequisiteSites(font)...)
			if err != nil {
				t.Fatal(err)
			}
			defer farm.Close()
			dir := t.TempDir()
			if err := runFarmCrawl(dir, farm, func(cfg *config.Config) { cfg.Requisites.Enabled = on }); err != nil {
				t.Fatal(err)
			}
			var rules []string
			for host, addr := range farm.Resolve() {
				rules = append(rules, "MAP "+strings.TrimSuffix(host, ":80")+" "+addr)
			}
			sort.Strings(rules)
			var log strings.Builder
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			res, err := replaycheck.Check(ctx, replaycheck.Options{
				Chromium: chromium, ReplayWebPage: rwp, WACZ: filepath.Join(dir, crawl.WACZName),
				HostRules: strings.Join(rules, ", "), Tolerance: 16, Log: &log,
				Shots: filepath.Join(artefacts(t), fmt.Sprintf("replaycheck-requisites-%v", on)),
			}, pages)
			t.Logf("replaycheck:\n%s", log.String())
			if err != nil {
				t.Fatal(err)
			}
			var failures []string
			live, answered := 0, 0
			for _, p := range res {
				if p.Err != "" {
					failures = append(failures, fmt.Sprintf("%s not measured: %s", p.URL, p.Err))
					continue
				}
				for _, r := range p.Live {
					if !left[r.URL] {
						live++
					}
				}
				answered += p.Answered
				for _, m := range p.Missing {
					if u, _, _ := strings.Cut(m, " "); !left[u] {
						failures = append(failures, fmt.Sprintf("%s: not answered in replay: %s", p.URL, m))
					}
				}
				iconLoaded := false
				for _, r := range p.Icons {
					if r.Archived == 0 || r.Archived >= 400 {
						failures = append(failures, fmt.Sprintf("%s: its icon %s is not in the archive", p.URL, r.URL))
					}
					iconLoaded = iconLoaded || r.URL == hostIcon[p.URL]
				}
				if u := hostIcon[p.URL]; u != "" && !iconLoaded {
					failures = append(failures, fmt.Sprintf("%s names no icon: the browser did not load %s live (icons: %+v)", p.URL, u, p.Icons))
				}
				if p.Diff > 0.05 {
					failures = append(failures, fmt.Sprintf("%s: %.1f%% of the screenshot's pixels differ", p.URL, 100*p.Diff))
				}
				if p.ReplayType != "text/html" {
					failures = append(failures, fmt.Sprintf("%s replayed as %s", p.URL, p.ReplayType))
				}
			}
			if len(res) != len(pages) || live < 15 {
				failures = append(failures, fmt.Sprintf("%d pages measured, %d subresources loaded live; want %d pages and at least 15", len(res), live, len(pages)))
			}
			t.Logf("%d of %d subresources loaded live answered in replay (the disallowed image and the video left out)", answered, live)
			switch {
			case on && len(failures) > 0:
				t.Errorf("replay falls short of the live pages:\n\t%s", strings.Join(failures, "\n\t"))
			case !on && len(failures) < 10:
				t.Errorf("a links-only crawl passed checks it must fail; failures: %q", failures)
			}
		})
	}
}
