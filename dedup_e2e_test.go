package crawl_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	warc "github.com/internetarchive/gowarc"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// dedupSite is the site of the dedup tests: pages with an ETag, with a
// Last-Modified, with neither, and one whose links (so its body) are changed to
// changed (when not nil) in a later crawl.
func dedupSite(changed []string) crawltest.Site {
	links := []string{"/"}
	if changed != nil {
		links = changed
	}
	return crawltest.Site{Host: "dedup.test", Pages: map[string]*crawltest.Page{
		"/":        {Links: []string{"/etag", "/lm", "/plain", "/changes"}},
		"/etag":    {ETag: `"e1"`, Links: []string{"/", "/deep"}},
		"/deep":    {}, // linked from /etag only
		"/lm":      {LastModified: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)},
		"/plain":   {Links: []string{"/lm"}},
		"/changes": {Links: links},
	}}
}

// TestDedupFromEarlierCrawl crawls a site, then crawls it again into a new data
// directory with dedup_from naming the first: unchanged pages are
// identical-payload revisits pointing at the first crawl's records, the changed
// page is a full response, and pages.jsonl says which changed. Pages with
// validators are fetched whole, not with a conditional GET built from the first
// crawl's capture: a 304 would hide their links, and /deep is linked from /etag
// only. A second run of the second crawl does not import again.
func TestDedupFromEarlierCrawl(t *testing.T) {
	first := t.TempDir()
	farm := startFarm(t, []crawltest.Site{dedupSite(nil)})
	runCrawl(t, testConfig(farm, first))
	farm.Close()

	responses := map[string]*warc.Header{} // the first crawl's response records by URI
	eachRecord(t, filepath.Join(first, "warc", "*.warc.gz"), func(r *warc.Record) {
		if r.Header.Get("WARC-Type") == "response" {
			h := r.Header
			responses[h.Get("WARC-Target-URI")] = &h
		}
	})

	second := t.TempDir()
	farm = startFarm(t, []crawltest.Site{dedupSite([]string{"/", "/plain"})})
	cfg := testConfig(farm, second)
	cfg.DedupFrom = []string{first}
	sum := runCrawl(t, cfg)
	// Five of the six pages below are revisits; the summary counts them (issue 28, item 8).
	if sum.Revisits < 5 || sum.Revisits >= sum.Pages || !strings.Contains(sum.String(), fmt.Sprintf("revisits: %d of the pages", sum.Revisits)) {
		t.Errorf("summary: %d revisits of %d pages, want at least 5 and fewer than the pages:\n%s", sum.Revisits, sum.Pages, sum)
	}

	const identical = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
	want := map[string]string{ // URI → WARC-Type or revisit profile
		"http://dedup.test/":        identical,
		"http://dedup.test/plain":   identical,
		"http://dedup.test/etag":    identical,
		"http://dedup.test/lm":      identical,
		"http://dedup.test/deep":    identical,
		"http://dedup.test/changes": "response",
	}
	for _, r := range farm.Requests() {
		if r.Status == 304 {
			t.Errorf("%s answered 304 in the second crawl: its first fetch was conditional", r.Path)
		}
	}
	got := map[string]string{}
	eachRecord(t, filepath.Join(second, "warc", "*.warc.gz"), func(r *warc.Record) {
		h := r.Header
		uri := h.Get("WARC-Target-URI")
		if _, ok := want[uri]; !ok {
			return
		}
		switch h.Get("WARC-Type") {
		case "response":
			got[uri] = "response"
		case "revisit":
			got[uri] = h.Get("WARC-Profile")
			orig := responses[uri]
			if orig == nil {
				t.Errorf("%s: a revisit, but the first crawl has no response for it", uri)
				return
			}
			for _, k := range [][2]string{
				{"WARC-Refers-To", "WARC-Record-ID"},
				{"WARC-Refers-To-Target-URI", "WARC-Target-URI"},
				{"WARC-Refers-To-Date", "WARC-Date"},
			} {
				if g, w := h.Get(k[0]), orig.Get(k[1]); g != w || g == "" {
					t.Errorf("revisit of %s: %s %q, want the first crawl's %s %q", uri, k[0], g, k[1], w)
				}
			}
		}
	})
	for uri, w := range want {
		if got[uri] != w {
			t.Errorf("second crawl's record of %s: %q, want %q", uri, got[uri], w)
		}
	}

	for _, p := range readJSONL(t, filepath.Join(second, "pages.jsonl")) {
		uri, _ := p["url"].(string)
		changed, ok := p["changed"].(bool)
		if _, known := want[uri]; !known {
			continue
		}
		if wantChanged := uri == "http://dedup.test/changes"; !ok || changed != wantChanged {
			t.Errorf("pages.jsonl %s: changed %v (present %v), want %v", uri, changed, ok, wantChanged)
		}
	}

	runCrawl(t, cfg) // the crawl is complete: this run only opens and closes it
	if n := len(logLines(t, second, "dedup_from: imported")); n != 1 {
		t.Errorf("%d \"dedup_from: imported\" log lines after two runs, want 1 (the source did not change)", n)
	}
}

// TestDedupFromValidation checks that dedup_from may not name the crawl's own
// data directory, nor an empty path.
func TestDedupFromValidation(t *testing.T) {
	for _, from := range []string{"", "crawl-data", "./crawl-data/digests.db"} {
		cfg := config.Default()
		cfg.Seeds = []string{"http://example.com/"}
		cfg.DedupFrom = []string{from}
		var ce *config.Error
		if err := cfg.Validate(); !errors.As(err, &ce) || ce.Field != "dedup_from[0]" {
			t.Errorf("Validate with dedup_from %q = %v, want a *config.Error on dedup_from[0]", from, err)
		}
	}
}

// TestDedupFromCDXJ deduplicates against an earlier crawl that has only its CDXJ
// files (its digests.db removed), one of them with a damaged line: the damage is
// logged and skipped, and unchanged pages are revisits naming the earlier records
// by URI and date, without WARC-Refers-To (a CDXJ line has no record ID).
func TestDedupFromCDXJ(t *testing.T) {
	first := t.TempDir()
	farm := startFarm(t, []crawltest.Site{dedupSite(nil)})
	runCrawl(t, testConfig(farm, first))
	farm.Close()
	if err := os.Remove(filepath.Join(first, "digests.db")); err != nil {
		t.Fatal(err)
	}
	indexes, _ := filepath.Glob(filepath.Join(first, "warc", "*.cdxj"))
	if len(indexes) == 0 {
		t.Fatal("the first crawl has no CDXJ file")
	}
	f, err := os.OpenFile(indexes[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("test,dedup)/ 2026 {\"url\":\"http://dedup.test/\"}\n")
	f.Close()
	dates := map[string]string{}
	eachRecord(t, filepath.Join(first, "warc", "*.warc.gz"), func(r *warc.Record) {
		if r.Header.Get("WARC-Type") == "response" {
			// A CDXJ line knows the date to the second: the revisit says no more.
			d, _ := time.Parse(time.RFC3339Nano, r.Header.Get("WARC-Date"))
			dates[r.Header.Get("WARC-Target-URI")] = d.UTC().Format("2006-01-02T15:04:05Z")
		}
	})

	second := t.TempDir()
	farm = startFarm(t, []crawltest.Site{dedupSite(nil)})
	cfg := testConfig(farm, second)
	cfg.DedupFrom = []string{first}
	runCrawl(t, cfg)

	revisits := 0
	eachRecord(t, filepath.Join(second, "warc", "*.warc.gz"), func(r *warc.Record) {
		h := r.Header
		if h.Get("WARC-Type") != "revisit" {
			return
		}
		revisits++
		uri := h.Get("WARC-Target-URI")
		if h.Get("WARC-Refers-To") != "" || h.Get("WARC-Refers-To-Target-URI") != uri || h.Get("WARC-Refers-To-Date") != dates[uri] {
			t.Errorf("revisit of %s refers to %q %q %q, want no record ID, %q, %q", uri, h.Get("WARC-Refers-To"),
				h.Get("WARC-Refers-To-Target-URI"), h.Get("WARC-Refers-To-Date"), uri, dates[uri])
		}
	})
	if revisits < 5 {
		t.Errorf("%d revisits in the second crawl, want one per page (5) at least", revisits)
	}
	damaged := logLines(t, second, "dedup_from: damaged entries skipped")
	if len(damaged) != 1 || damaged[0]["damaged"] != 1.0 {
		t.Errorf("damage logged %v, want one line with damaged 1", damaged)
	}
}
