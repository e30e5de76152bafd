package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/politecrawl/crawl/crawltest"
)

// TestQACommand crawls crawltest.RequisiteFarm with the command, then checks crawl
// qa: with requisites on it exits 0, reporting the image robots.txt disallows as
// blocked, writes the JSON report, and crawl wacz packs it as qa/capture.json; with
// requisites off it exits 1 and names the pages missing requisites.
func TestQACommand(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprint("requisites ", on), func(t *testing.T) {
			farm, err := crawltest.Start(crawltest.RequisiteFarm(1, 2)...)
			if err != nil {
				t.Fatal(err)
			}
			defer farm.Close()
			var resolve strings.Builder
			for k, v := range farm.Resolve() {
				fmt.Fprintf(&resolve, "    %q: %q\n", k, v)
			}
			data := filepath.Join(t.TempDir(), "data")
			config := writeFile(t, "crawl.yaml", fmt.Sprintf("data_dir: %q\nseeds: %s\npoliteness:\n  min_delay: 10ms\n"+
				"network:\n  allow_private: true\n  resolve:\n%srequisites:\n  enabled: %v\n", data, mustJSON(farm.Seeds()), resolve.String(), on))
			if code, out, errOut := runFor(t, "-config", config, "-progress", "none"); code != 0 {
				t.Fatalf("crawl: exit %d\n%s\n%s", code, out, errOut)
			}
			report := filepath.Join(t.TempDir(), "capture.json")
			code, stdout, errOut := run(t, "qa", "-config", config, "-json", report)
			t.Logf("crawl qa:\n%s", stdout)
			b, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Pages  int `json:"pages"`
				Totals struct {
					Found, Archived, Blocked, Missing int
				} `json:"totals"`
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			if on {
				// 2 pages of 10 requisites each (their host's /favicon.ico among
				// them), the disallowed banner blocked.
				if code != 0 || rep.Pages != 2 || rep.Totals.Found != 20 || rep.Totals.Archived != 18 || rep.Totals.Blocked != 2 || rep.Totals.Missing != 0 {
					t.Errorf("qa: exit %d, report %+v\n%s%s", code, rep, stdout, errOut)
				}
				// The logged counts leave out the logo, fetched as a page (a seed).
				if !strings.Contains(stdout, "20 found, 18 archived, 2 blocked by robots.txt") || !strings.Contains(stdout, "no page misses a requisite") ||
					!strings.Contains(stdout, "as the crawl logged them (pages.jsonl, skipped.jsonl): 11 distinct, 10 archived, 1 blocked by robots.txt, 0 failed") {
					t.Errorf("qa's stdout:\n%s", stdout)
				}
				// crawl status sums what the crawl logged: each page's six requisites
				// and its host's /favicon.ico, and site.css's three, named by 5
				// documents (cdn.test's seed, the
				// logo, is a page naming none; base.css, imported, is read at its
				// importer's hop and names none); the logo, fetched as that seed, is
				// settled as a page, not among the requisites, which crawl qa counts
				// (12 distinct, 11 archived); the rest archived but the banner.
				// The second page's site.css, app.js and favicon.ico, at least, were archived
				// already when it was read: its host fetches the first page's
				// requisites before its next page. The logo, the seed of another
				// host, may have been archived when either page was read.
				code, stdout, errOut = run(t, "status", "-config", config)
				named := regexp.MustCompile(`named    17 by 5 pages, stylesheets and frames: 17 queued \(([345]) archived already\), 0 of kinds not fetched, 0 out of scope, 0 past a limit`)
				if code != 0 || !named.MatchString(stdout) ||
					!strings.Contains(stdout, "settled  11 distinct: 10 archived, 0 failed, 1 blocked by robots.txt, 0 skipped for a limit or policy") {
					t.Errorf("status: exit %d\n%s%s", code, stdout, errOut)
				}
				out := filepath.Join(t.TempDir(), "x.wacz")
				code, stdout, errOut := run(t, "wacz", "-data", data, "-o", out)
				if code != 0 || !strings.Contains(stdout, "capture report: 2 pages, 18 of their 20 requisites archived, 0 missing") {
					t.Fatalf("wacz: exit %d\n%s%s", code, stdout, errOut)
				}
				zr, err := zip.OpenReader(out)
				if err != nil {
					t.Fatal(err)
				}
				defer zr.Close()
				f, err := zr.Open("qa/capture.json")
				if err != nil {
					t.Fatalf("the WACZ has no qa/capture.json: %v", err)
				}
				defer f.Close()
				var packed struct {
					Pages int `json:"pages"`
				}
				if err := json.NewDecoder(f).Decode(&packed); err != nil || packed.Pages != 2 {
					t.Errorf("qa/capture.json: %v, %d pages", err, packed.Pages)
				}
				return
			}
			// Each page's own six requisites and its host's icon but the logo (a
			// seed, archived).
			if code != 1 || !strings.Contains(errOut, "requisites are missing without a recorded reason") || rep.Totals.Missing != 12 {
				t.Errorf("qa with requisites off: exit %d, report %+v\n%s%s", code, rep, stdout, errOut)
			}
			if !strings.Contains(stdout, "2 pages miss requisites") || !strings.Contains(stdout, "stylesheet http://docs0.test/static/site.css (hop 1)") {
				t.Errorf("qa's stdout:\n%s", stdout)
			}
		})
	}
}
