package crawl_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/politecrawl/crawl"
)

// With storage.wet and storage.parquet a crawl writes beside each WARC file its WET
// file, one conversion record per HTML page of pages.jsonl, and a Parquet index
// with a row per CDXJ line (response and revisit records), under the crawl name.
func TestCrawlWETAndParquet(t *testing.T) {
	farm := startFarm(t, farmSites())
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Storage.WET = true
	cfg.Storage.Parquet = true
	cfg.Storage.CrawlName = "TEST-CRAWL"
	runCrawl(t, cfg)

	html := map[string]bool{}
	for _, l := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
		status, _ := l["status"].(float64)
		ct, _ := l["content_type"].(string)
		if status >= 200 && status < 300 && strings.Contains(ct, "html") {
			html[l["url"].(string)] = true
		}
	}
	wets, _ := filepath.Glob(filepath.Join(dir, "warc", "*.warc.wet.gz"))
	warcs, _ := filepath.Glob(filepath.Join(dir, "warc", "*.warc.gz"))
	if len(wets) == 0 || len(wets) != len(warcs) {
		t.Fatalf("%d WET files for %d WARC files", len(wets), len(warcs))
	}
	target := regexp.MustCompile(`WARC-Type: conversion\r\nWARC-Target-URI: (\S+)\r\n`)
	got := map[string]int{}
	for _, f := range wets {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		text, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, m := range target.FindAllStringSubmatch(string(text), -1) {
			got[m[1]]++
		}
	}
	if len(html) < 5 {
		t.Fatalf("%d HTML pages, want at least 5", len(html))
	}
	for u := range html {
		if got[u] != 1 {
			t.Errorf("%s: %d conversion records, want 1", u, got[u])
		}
	}
	for u := range got {
		if !html[u] {
			t.Errorf("conversion record for %s, not an HTML page of pages.jsonl", u)
		}
	}

	lines := 0
	for _, f := range warcs {
		b, err := os.ReadFile(f + ".cdxj")
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "cc-index", "crawl=TEST-CRAWL", "subset=*", "*.parquet"))
	rows := 0
	for _, f := range files {
		r, err := parquet.ReadFile[struct {
			URL string `parquet:"url"`
		}](f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rows += len(r)
	}
	if rows == 0 || rows != lines {
		t.Errorf("%d Parquet rows in %d files, want one per CDXJ line (%d)", rows, len(files), lines)
	}
}

// crawl.RebuildWET writes from the WARC files alone the WET files a crawl wrote.
func TestRebuildWET(t *testing.T) {
	farm := startFarm(t, farmSites())
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Storage.WET = true
	runCrawl(t, cfg)
	warcDir := filepath.Join(dir, "warc")
	read := func() string {
		wets, _ := filepath.Glob(filepath.Join(warcDir, "*.warc.wet.gz"))
		var all strings.Builder
		for _, f := range wets {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			text, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			// The warcinfo record is written anew: keep the conversion records.
			_, conv, _ := strings.Cut(string(text), "WARC-Type: conversion")
			all.WriteString(regexp.MustCompile(`WARC-Record-ID: \S+\r\n`).ReplaceAllString(conv, ""))
		}
		return all.String()
	}
	want := read()
	if strings.Count(want, "WARC-Target-URI") < 5 {
		t.Fatalf("the crawl wrote few conversion records:\n%s", want)
	}
	wets, _ := filepath.Glob(filepath.Join(warcDir, "*.warc.wet.gz"))
	for _, f := range wets {
		os.Remove(f)
	}
	if err := crawl.RebuildWET(cfg, warcDir, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != want {
		t.Errorf("rebuilt WET records differ:\n got: %.2000s\nwant: %.2000s", got, want)
	}
}
