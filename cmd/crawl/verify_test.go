package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl/storage"
)

// writeCrawl writes n exchanges into DIR/warc, a few per file, and their
// pages.jsonl lines, and returns where the responses went.
func writeCrawl(t *testing.T, data string, n int) []storage.Location {
	t.Helper()
	w, err := storage.OpenWARC(storage.WARCOptions{Dir: filepath.Join(data, "warc"), NoSync: true, MaxFileSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	p, err := storage.OpenPages(filepath.Join(data, "pages.jsonl"), storage.PagesOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	var locs []storage.Location
	for i := range n {
		body := fmt.Sprintf("<!doctype html><title>page %d</title>%s", i, strings.Repeat("x", 1500+i))
		url := fmt.Sprintf("http://a.example/p%d", i)
		loc, err := w.WriteExchange(context.Background(), &storage.Exchange{
			TargetURI:      url,
			Date:           time.Date(2026, 11, 24, 10, 0, i, 0, time.UTC),
			Request:        []byte("GET /p HTTP/1.1\r\nHost: a.example\r\n\r\n"),
			ResponseHeader: []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", len(body))),
			Body:           []byte(body),
		})
		if err != nil {
			t.Fatal(err)
		}
		err = p.Write(context.Background(), &storage.Page{URL: url, Status: 200, FetchedAt: time.Unix(0, 0),
			WARCFile: loc.File, WARCOffset: loc.Offset, WARCLength: loc.Length})
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return locs
}

// copyDir copies the files of data (and of data/warc) into a new directory.
func copyDir(t *testing.T, data string) string {
	t.Helper()
	to := t.TempDir()
	for _, sub := range []string{"", "warc"} {
		os.MkdirAll(filepath.Join(to, sub), 0o755)
		entries, _ := os.ReadDir(filepath.Join(data, sub))
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			b, err := os.ReadFile(filepath.Join(data, sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(to, sub, e.Name()), b, 0o644)
		}
	}
	return to
}

// TestVerifyCommand is part of issue 13 defect 7: crawl verify finds torn records in
// any WARC file, and pages.jsonl lines that point at them, and exits non-zero.
func TestVerifyCommand(t *testing.T) {
	data := t.TempDir()
	locs := writeCrawl(t, data, 12)
	files := map[string]bool{}
	for _, l := range locs {
		files[l.File] = true
	}
	if len(files) < 3 {
		t.Fatalf("%d WARC files, want at least 3", len(files))
	}
	code, out, errOut := run(t, "verify", "-data", data)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("no damage: %d WARC files, 12 pages.jsonl lines", len(files))) {
		t.Fatalf("verify of a whole crawl: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	// An older file (the first) whose second response is damaged in three ways.
	first, second := locs[0], locs[1]
	if first.File != second.File {
		t.Fatalf("responses 0 and 1 in different files")
	}
	firstPath := func(d string) string { return filepath.Join(d, "warc", first.File) }
	whole, err := os.ReadFile(firstPath(data))
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), whole...)
	flipped[second.Offset+second.Length/2] ^= 0x55
	cases := []struct {
		name    string
		content []byte
		want    []string
	}{
		{"record torn", whole[:second.Offset+second.Length/2], []string{
			first.File + "  DAMAGED at byte " + fmt.Sprint(second.Offset),
			"line 2 http://a.example/p1: " + first.File + ": record at",
		}},
		{"byte changed", flipped, []string{
			first.File + "  DAMAGED at byte " + fmt.Sprint(second.Offset),
			"line 2 http://a.example/p1: " + first.File + ": record at " + fmt.Sprint(second.Offset),
			"is in the damaged part of the file",
		}},
		{"cut on a record boundary", whole[:second.Offset], []string{
			first.File + "  DAMAGED at byte " + fmt.Sprint(second.Offset),
			"were written: cut short",
			"line 2 http://a.example/p1: " + first.File + ": record at",
			"ends past the end of the file",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := copyDir(t, data)
			if err := os.WriteFile(firstPath(d), c.content, 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := run(t, "verify", "-data", d)
			if code != 1 || !strings.Contains(errOut, "damage found: 1 of") {
				t.Errorf("exit %d, stderr %q; want 1 and the damage counted", code, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if after, _ := os.ReadFile(firstPath(d)); string(after) != string(c.content) {
				t.Errorf("verify changed the file")
			}
		})
	}

	// While a crawl holds the directory, verify refuses.
	w, err := storage.OpenWARC(storage.WARCOptions{Dir: filepath.Join(data, "warc"), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if code, _, errOut := run(t, "verify", "-data", data); code != 1 || !strings.Contains(errOut, "in use by a running crawl") {
		t.Errorf("verify during a crawl: exit %d, stderr %q; want a refusal", code, errOut)
	}
}
