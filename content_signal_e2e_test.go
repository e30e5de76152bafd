package crawl_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/politecrawl/crawl/crawltest"
)

// signalSites has one site whose robots.txt gives a Content-Signal (seed document 001's
// example) and one that gives none.
func signalSites() []crawltest.Site {
	return []crawltest.Site{
		{
			Host:   "signal.test",
			Robots: &crawltest.Robots{Body: "User-agent: *\nContent-Signal: ai-train=no, search=yes, ai-input=no\nAllow: /\n"},
			Icon:   true,
			Pages:  map[string]*crawltest.Page{"/": {Links: []string{"/a.html"}}, "/a.html": {}},
		},
		{Host: "plain.test", Pages: map[string]*crawltest.Page{"/": {}}},
	}
}

// The Content-Signal that applies to a page is written in its pages.jsonl line and its
// WARC metadata record (issue 12, Content-Signal).
func TestCrawlContentSignalRecorded(t *testing.T) {
	farm := startFarm(t, signalSites())
	dir := t.TempDir()
	runCrawl(t, testConfig(farm, dir))
	auditOK(t, farm, 0)
	want := map[string]any{"ai-train": "no", "search": "yes", "ai-input": "no"}
	for _, l := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
		got, ok := l["content_signal"].(map[string]any)
		switch {
		case strings.HasPrefix(l["url"].(string), "http://signal.test/"):
			if !ok || len(got) != len(want) || got["ai-train"] != "no" || got["search"] != "yes" || got["ai-input"] != "no" {
				t.Errorf("%s: content_signal %v, want %v", l["url"], l["content_signal"], want)
			}
		case ok:
			t.Errorf("%s: content_signal %v, want none", l["url"], got)
		}
	}
	warc := readWARCs(t, filepath.Join(dir, "warc"))
	if n := strings.Count(warc, "robots-content-signal: ai-input=no, ai-train=no, search=yes\r\n"); n != 3 {
		t.Errorf("%d metadata records carry the signal, want 3 (the pages of signal.test and its /favicon.ico)", n)
	}
}

// robots.content_signal_use skips the pages of a site that says no to that use, each
// recorded in skipped.jsonl, and fetches those of a site that says yes or nothing.
func TestCrawlContentSignalUse(t *testing.T) {
	for _, tt := range []struct {
		use     string
		skipped bool
	}{{"ai-train", true}, {"ai-input", true}, {"search", false}} {
		t.Run(tt.use, func(t *testing.T) {
			farm := startFarm(t, signalSites())
			dir := t.TempDir()
			cfg := testConfig(farm, dir)
			cfg.Robots.ContentSignalUse = tt.use
			sum := runCrawl(t, cfg)
			fetched := map[string]bool{}
			for _, r := range farm.Requests() {
				fetched[r.URL()] = true
			}
			if fetched["http://signal.test/"] == tt.skipped || !fetched["http://plain.test/"] {
				t.Errorf("fetched %v", fetched)
			}
			lines := readJSONL(t, filepath.Join(dir, "skipped.jsonl"))
			if !tt.skipped {
				if len(lines) != 0 {
					t.Errorf("skipped.jsonl: %v", lines)
				}
				return
			}
			if len(lines) != 1 || lines[0]["url"] != "http://signal.test/" || lines[0]["reason"] != "content-signal" ||
				!strings.Contains(lines[0]["detail"].(string), tt.use) || lines[0]["robots_url"] != "http://signal.test/robots.txt" {
				t.Errorf("skipped.jsonl: %v", lines)
			}
			if sum.Skipped["content-signal"] != 1 || !sum.Complete {
				t.Errorf("summary: %+v", sum)
			}
		})
	}
}

// readWARCs returns the records of every WARC file in dir, decompressed.
func readWARCs(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no WARC files in %s: %v", dir, err)
	}
	var all bytes.Buffer
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(&all, zr); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return all.String()
}
