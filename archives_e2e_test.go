package crawl_test

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	warc "github.com/internetarchive/gowarc"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/storage"
)

// TestCrawlArchives crawls the farm with text records on and checks what the
// archive tools read: each WARC file's CDXJ index (one line per response and
// revisit record, as IndexWARC reads the file) and a conversion record of each
// HTML page's text pointing at its response.
func TestCrawlArchives(t *testing.T) {
	farm := startFarm(t, farmSites())
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Storage.TextRecords = true
	cfg.Storage.WACZ = true
	runCrawl(t, cfg)

	files, err := storage.WARCFiles(filepath.Join(dir, "warc"))
	if err != nil || len(files) == 0 {
		t.Fatalf("WARC files: %v, %v", files, err)
	}
	responses := map[string]string{} // record ID → URL
	conversions := 0
	indexed := 0
	for _, p := range files {
		b, err := os.ReadFile(p + storage.IndexSuffix)
		if err != nil {
			t.Fatalf("index of %s: %v", filepath.Base(p), err)
		}
		indexed += strings.Count(string(b), "\n")
		records := 0
		eachRecord(t, p, func(rec *warc.Record) {
			h := rec.Header
			switch h.Get("WARC-Type") {
			case "response", "revisit":
				records++
				responses[h.Get("WARC-Record-ID")] = h.Get("WARC-Target-URI")
			case "conversion":
				conversions++
				body, _ := io.ReadAll(rec.Content)
				if u, ok := responses[h.Get("WARC-Refers-To")]; !ok || u != h.Get("WARC-Target-URI") {
					t.Errorf("conversion record of %s refers to %q", h.Get("WARC-Target-URI"), h.Get("WARC-Refers-To"))
				}
				if h.Get("Content-Type") != "text/plain; charset=utf-8" || len(body) == 0 {
					t.Errorf("conversion record of %s: %s, %d bytes", h.Get("WARC-Target-URI"), h.Get("Content-Type"), len(body))
				}
			}
		})
		if lines := strings.Count(string(b), "\n"); lines != records {
			t.Errorf("%s: %d index lines, %d response and revisit records", filepath.Base(p), lines, records)
		}
	}
	// The WACZ written at the end holds every index line and the HTML pages.
	zr, err := zip.OpenReader(filepath.Join(dir, crawl.WACZName))
	if err != nil {
		t.Fatalf("storage.wacz: %v", err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		switch f.Name {
		case "indexes/index.cdxj":
			if n := strings.Count(string(b), "\n"); n != indexed {
				t.Errorf("WACZ index has %d lines, the WARC files' indexes %d", n, indexed)
			}
		case "pages/pages.jsonl":
			if !strings.Contains(string(b), `"url":"http://news.test/a.html"`) {
				t.Errorf("WACZ pages lack news.test/a.html:\n%s", b)
			}
		}
	}
	if conversions < 10 {
		t.Errorf("%d conversion records, want one per HTML page", conversions)
	}
	t.Logf("%d WARC files, %d index lines, %d conversion records", len(files), indexed, conversions)
}
