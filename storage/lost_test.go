package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFindLostAndDrop is part of issue 13 defect 7: pages.jsonl lines whose WARC
// record is gone are found, returned with what the frontier needs to fetch them
// again, and dropped.
func TestFindLostAndDrop(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	warcDir := filepath.Join(dir, "warc")
	if err := os.MkdirAll(warcDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// cut.warc.gz is 1000 bytes long; whole.warc.gz 5000; removed.warc.gz was
	// removed by a repair; moved.warc.gz was moved away by the user.
	for name, size := range map[string]int{"cut.warc.gz": 1000, "whole.warc.gz": 5000} {
		if err := os.WriteFile(filepath.Join(warcDir, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines := []struct {
		file       string
		off, n     int64
		lost, tail bool // lost; and in the last part of the file that a start reads
	}{
		{"cut.warc.gz", 100, 400, false, false},
		{"cut.warc.gz", 600, 500, true, false}, // ends at 1100
		{"moved.warc.gz", 0, 100, false, false},
		{"whole.warc.gz", 0, 5000, false, false},
		{"removed.warc.gz", 0, 10, true, true},
		{"cut.warc.gz", 900, 100, false, true},
		{"cut.warc.gz", 1000, 300, true, true},
		{"whole.warc.gz", 4000, 1001, true, true},
	}
	path := filepath.Join(dir, "pages.jsonl")
	p, err := OpenPages(path, PagesOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", tailWindow/2)
	for i, l := range lines {
		pg := &Page{URL: fmt.Sprintf("http://a.example/%d", i), FetchedAt: time.Unix(0, 0), Depth: i,
			FoundOn: "http://a.example/", WARCFile: l.file, WARCOffset: l.off, WARCLength: l.n}
		if !l.tail {
			pg.Text = pad // pushes the earlier lines out of the last tailWindow bytes
		}
		if err := p.Write(ctx, pg); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()

	for _, all := range []bool{false, true} {
		t.Run(fmt.Sprintf("all=%v", all), func(t *testing.T) {
			d := t.TempDir()
			b, _ := os.ReadFile(path)
			cp := filepath.Join(d, "pages.jsonl")
			os.WriteFile(cp, b, 0o644)
			p, err := OpenPages(cp, PagesOptions{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			lost, err := p.FindLost(warcDir, []string{"removed.warc.gz"}, all)
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, l := range lost {
				got = append(got, fmt.Sprintf("%s depth %d found on %s", l.URL, l.Depth, l.FoundOn))
			}
			for i, l := range lines {
				if l.lost && (all || l.tail) {
					want = append(want, fmt.Sprintf("http://a.example/%d depth %d found on http://a.example/", i, i))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("FindLost(all=%v) =\n\t%q\nwant\n\t%q", all, got, want)
			}
			if err := p.Drop(lost); err != nil {
				t.Fatal(err)
			}
			if err := p.Write(ctx, &Page{URL: "http://a.example/new", FetchedAt: time.Unix(0, 0)}); err != nil {
				t.Fatal(err)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			f, _ := os.Open(cp)
			defer f.Close()
			var kept []string
			if err := ReadPages(f, func(pg *Page) error { kept = append(kept, pg.URL); return nil }); err != nil {
				t.Fatal(err)
			}
			var wantKept []string
			for i, l := range lines {
				if !l.lost || !(all || l.tail) {
					wantKept = append(wantKept, fmt.Sprintf("http://a.example/%d", i))
				}
			}
			wantKept = append(wantKept, "http://a.example/new")
			if fmt.Sprint(kept) != fmt.Sprint(wantKept) {
				t.Errorf("lines after Drop and a write:\n\t%q\nwant\n\t%q", kept, wantKept)
			}
			if _, err := os.Stat(cp + tempSuffix); err == nil {
				t.Errorf("temporary file left behind")
			}
		})
	}
}
