package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl/storage"
)

// writeWARCs writes n exchanges into DIR/warc with the storage writer and
// returns the writer, still open.
func writeWARCs(t *testing.T, data string, n int) *storage.WARCWriter {
	t.Helper()
	w, err := storage.OpenWARC(storage.WARCOptions{Dir: filepath.Join(data, "warc"), NoSync: true, MaxFileSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		body := fmt.Sprintf("<!doctype html><title>page %d</title>%s", i, strings.Repeat("x", 1500+i))
		_, err := w.WriteExchange(context.Background(), &storage.Exchange{
			TargetURI:      fmt.Sprintf("http://a.example/p%d", i),
			Date:           time.Date(2026, 11, 24, 10, 0, i, 0, time.UTC),
			Request:        []byte("GET /p HTTP/1.1\r\nHost: a.example\r\n\r\n"),
			ResponseHeader: []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", len(body))),
			Body:           []byte(body),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func TestIndexCommand(t *testing.T) {
	data := t.TempDir()
	w := writeWARCs(t, data, 6)
	if code, _, errOut := run(t, "index", "-data", data); code != 1 || !strings.Contains(errOut, "in use by a running crawl") {
		t.Errorf("index during a crawl: exit %d, stderr %q; want a refusal", code, errOut)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	indexes, _ := filepath.Glob(filepath.Join(data, "warc", "*"+storage.IndexSuffix))
	if len(indexes) < 2 {
		t.Fatalf("%d indexes written by the crawl, want one per file", len(indexes))
	}
	want := map[string]string{}
	for _, p := range indexes {
		b, _ := os.ReadFile(p)
		want[p] = string(b)
		os.Remove(p)
	}
	// What a crash leaves: an unfinished, unsorted open index.
	os.WriteFile(indexes[0]+storage.OpenIndexSuffix, []byte("garbage\n"), 0o644)

	code, out, errOut := run(t, "index", "-data", data)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, fmt.Sprintf("indexed %d WARC files, 6 lines", len(indexes))) {
		t.Errorf("output %q", out)
	}
	for p, w := range want {
		if b, err := os.ReadFile(p); err != nil || string(b) != w {
			t.Errorf("%s rebuilt:\n%s\nwant as the crawl wrote it:\n%s", filepath.Base(p), b, w)
		}
	}
	if _, err := os.Stat(indexes[0] + storage.OpenIndexSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("open index left: %v", err)
	}
}

// TestIndexCommandParquet: crawl index rewrites the WET files and the Parquet index a
// crawl keeps, file for file, the index under the crawl name it holds.
func TestIndexCommandParquet(t *testing.T) {
	data := t.TempDir()
	index := filepath.Join(data, "cc-index")
	w, err := storage.OpenWARC(storage.WARCOptions{Dir: filepath.Join(data, "warc"), NoSync: true, Parquet: index, CrawlName: "TEST-1", WET: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		body := fmt.Sprintf("<p>%d</p>", i)
		_, err := w.WriteExchange(context.Background(), &storage.Exchange{
			Conversion:     &storage.Conversion{Text: fmt.Sprint(i)},
			TargetURI:      fmt.Sprintf("http://a.example/p%d", i),
			Request:        []byte("GET /p HTTP/1.1\r\nHost: a.example\r\n\r\n"),
			ResponseHeader: []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", len(body))),
			Body:           []byte(body),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(index, "crawl=TEST-1", "subset=warc", "*.parquet"))
	if len(files) != 1 {
		t.Fatalf("Parquet files %v, want one", files)
	}
	os.Remove(files[0])
	code, out, errOut := run(t, "index", "-data", data)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "Parquet index of crawl TEST-1: 3 rows") || !strings.Contains(out, "wrote the WET files: 3 conversion records") {
		t.Errorf("output %q", out)
	}
	if _, err := os.Stat(files[0]); err != nil {
		t.Errorf("Parquet file not rewritten: %v", err)
	}
}
