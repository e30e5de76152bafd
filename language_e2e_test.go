package crawl_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	warc "github.com/internetarchive/gowarc"

	"github.com/politecrawl/crawl/extract/lang"
	"github.com/politecrawl/crawl/storage"
)

// TestCrawlLanguages crawls the farm with text, text records and WET files on: each
// HTML page's pages.jsonl line has the language lang.Detect gives for its text, its
// conversion records (in the WARC and WET files) the ISO 639-3 codes of lang.DetectAll
// in WARC-Identified-Content-Language and its metadata record a language field each.
// With storage.language off there are none.
func TestCrawlLanguages(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("language=%v", on), func(t *testing.T) {
			farm := startFarm(t, farmSites())
			dir := t.TempDir()
			cfg := testConfig(farm, dir)
			cfg.Storage.Text = true
			cfg.Storage.TextRecords = true
			cfg.Storage.WET = true
			cfg.Storage.Language = on
			runCrawl(t, cfg)

			f, err := os.Open(filepath.Join(dir, "pages.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			withText := 0
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 4<<20)
			for sc.Scan() {
				var p storage.Page
				if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
					t.Fatal(err)
				}
				want := lang.Detect(p.Text)
				switch {
				case !on || want.Code == "":
					if p.Language != nil {
						t.Errorf("%s: language %+v, want none", p.URL, p.Language)
					}
				case p.Language == nil || *p.Language != (storage.Language{Code: want.Code, Script: want.Script, Confidence: want.Confidence}):
					t.Errorf("%s: language %+v, want %+v", p.URL, p.Language, want)
				default:
					withText++
				}
			}
			if on && withText < 10 {
				t.Errorf("%d pages with a language, want one per HTML page", withText)
			}

			conversions := 0
			metadata := map[string]string{} // target URI → language fields
			eachRecord(t, filepath.Join(dir, "warc", "*.warc.gz"), func(rec *warc.Record) {
				h := rec.Header
				body, _ := io.ReadAll(rec.Content)
				switch h.Get("WARC-Type") {
				case "metadata":
					var fields []string
					for _, line := range strings.Split(string(body), "\r\n") {
						if strings.HasPrefix(line, "language: ") {
							fields = append(fields, line)
						}
					}
					metadata[h.Get("WARC-Target-URI")] = strings.Join(fields, "\n")
				case "conversion":
					conversions++
					var codes, fields []string
					if on {
						for _, r := range lang.DetectAll(string(body)) {
							codes = append(codes, r.ISO6393())
							fields = append(fields, fmt.Sprintf("language: %s %s %.3f", r.Code, r.Script, r.Confidence))
						}
					}
					uri := h.Get("WARC-Target-URI")
					if got, want := h.Get("WARC-Identified-Content-Language"), strings.Join(codes, ","); got != want {
						t.Errorf("conversion record of %s: WARC-Identified-Content-Language %q, want %q", uri, got, want)
					}
					if got, want := metadata[uri], strings.Join(fields, "\n"); got != want {
						t.Errorf("metadata record of %s: %q, want %q", uri, got, want)
					}
				}
			})
			if conversions < 10 {
				t.Errorf("%d conversion records, want one per HTML page", conversions)
			}
			wet := 0
			eachRecord(t, filepath.Join(dir, "warc", "*.warc.wet.gz"), func(rec *warc.Record) {
				if rec.Header.Get("WARC-Type") != "conversion" {
					return
				}
				wet++
				body, _ := io.ReadAll(rec.Content)
				var codes []string
				if on {
					for _, r := range lang.DetectAll(string(body)) {
						codes = append(codes, r.ISO6393())
					}
				}
				if got, want := rec.Header.Get("WARC-Identified-Content-Language"), strings.Join(codes, ","); got != want {
					t.Errorf("WET record of %s: WARC-Identified-Content-Language %q, want %q", rec.Header.Get("WARC-Target-URI"), got, want)
				}
			})
			if wet < conversions { // a WET file has a record for every HTML page, text or none
				t.Errorf("%d WET records, %d conversion records in the WARC files", wet, conversions)
			}
		})
	}
}
