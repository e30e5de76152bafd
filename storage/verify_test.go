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

// writeFiles writes n exchanges into dir, a few per WARC file, and returns where
// their responses went.
func writeFiles(t *testing.T, dir string, n int) []Location {
	t.Helper()
	w := openTest(t, WARCOptions{Dir: dir, MaxFileSize: 20000})
	var locs []Location
	for i := range n {
		loc, err := w.WriteExchange(context.Background(), exchange(fmt.Sprintf("http://a.example/%d", i), noise(i, 3000), ""))
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return locs
}

func TestCheckWARC(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, 12)
	files := warcFiles(t, dir)
	if len(files) < 3 {
		t.Fatalf("%d files, want at least 3", len(files))
	}
	for _, p := range files {
		c, err := CheckWARC(p)
		if err != nil {
			t.Fatal(err)
		}
		recs := readWARC(t, p)
		if !c.Whole() || c.Records != len(recs) || len(c.Starts) != len(recs) {
			t.Errorf("CheckWARC(%s) = %+v; want whole, %d records", filepath.Base(p), c, len(recs))
		}
		for i, r := range recs {
			if i < len(c.Starts) && c.Starts[i] != r.Offset {
				t.Errorf("%s: record %d starts at %d, want %d (gowarc)", filepath.Base(p), i, c.Starts[i], r.Offset)
			}
		}
	}

	whole, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	recs := readWARC(t, files[0])
	last := recs[len(recs)-1]
	mid := recs[2]
	flip := func(b []byte, at int64) []byte {
		b = append([]byte(nil), b...)
		b[at] ^= 0x55
		return b
	}
	cases := []struct {
		name    string
		content []byte
		end     int64 // where CheckWARC finds the whole records end
		problem string
		atStart bool // OpenWARC's check of older files finds it
	}{
		{"cut mid last record", whole[:last.Offset+last.Size/2], last.Offset, "unexpected EOF", true},
		{"cut on a record boundary", whole[:last.Offset], last.Offset, "", true},
		{"byte changed in last record", flip(whole, last.Offset+last.Size/2), last.Offset, "", true},
		// Files smaller than the first tail window are read whole at the start.
		{"byte changed in a middle record", flip(whole, mid.Offset+mid.Size/2), mid.Offset, "", true},
		{"garbage after the end", append(append([]byte(nil), whole...), "garbage"...), int64(len(whole)), "gzip member", true},
		{"empty", nil, 0, "no record", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := snapshot(t, dir)
			p := filepath.Join(d, filepath.Base(files[0]))
			if err := os.WriteFile(p, c.content, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := CheckWARC(p)
			if err != nil {
				t.Fatal(err)
			}
			wantWhole := c.end == int64(len(c.content)) && c.problem == "" && len(c.content) > 0
			if got.Whole() != wantWhole || got.End != c.end || !strings.Contains(got.Problem, c.problem) {
				t.Errorf("CheckWARC = end %d, problem %q, whole %v; want end %d, problem with %q, whole %v",
					got.End, got.Problem, got.Whole(), c.end, c.problem, wantWhole)
			}
			// The file is not the newest: OpenWARC reports it and leaves it alone.
			w := openTest(t, WARCOptions{Dir: d, MaxFileSize: 20000})
			damaged := w.Damaged()
			w.Close()
			if found := len(damaged) == 1 && damaged[0].File == filepath.Base(p); found != c.atStart || len(damaged) > 1 {
				t.Errorf("OpenWARC: Damaged() = %+v; want %s found: %v", damaged, filepath.Base(p), c.atStart)
			}
			if len(w.Repairs()) != 0 {
				t.Errorf("OpenWARC repaired %+v, want nothing", w.Repairs())
			}
			if after, _ := os.ReadFile(p); string(after) != string(c.content) {
				t.Errorf("OpenWARC changed the damaged older file")
			}
		})
	}
}

func TestCheckPages(t *testing.T) {
	dir := t.TempDir()
	locs := writeFiles(t, dir, 8)
	warcs := map[string]*FileCheck{}
	for _, p := range warcFiles(t, dir) {
		c, err := CheckWARC(p)
		if err != nil {
			t.Fatal(err)
		}
		warcs[c.File] = &c
	}
	// The last file loses its last record.
	lastFile := warcs[locs[7].File]
	lastFile.End = locs[7].Offset - 1
	var b strings.Builder
	line := func(url, file string, off, n int64) {
		pg := Page{URL: url, FetchedAt: time.Unix(0, 0), WARCFile: file, WARCOffset: off, WARCLength: n}
		j, _ := pg.MarshalJSON()
		b.Write(j)
		b.WriteByte('\n')
	}
	for i, l := range locs[:7] {
		line(fmt.Sprintf("http://a.example/%d", i), l.File, l.Offset, l.Length)
	}
	l := locs[1]
	line("http://bad.example/offset", l.File, l.Offset+1, l.Length-1)
	line("http://bad.example/length", l.File, l.Offset, l.Length+7)
	line("http://bad.example/past", l.File, warcs[l.File].Size-10, 20)
	line("http://bad.example/missing", "crawl-20260101000000-00099.warc.gz", 0, 10)
	line("http://bad.example/damaged", locs[7].File, locs[7].Offset, locs[7].Length)
	b.WriteString("not json\n")
	line("http://bad.example/traversal", "../x.warc.gz", 0, 10)
	line("http://a.example/torn", l.File, l.Offset, l.Length)
	content := strings.TrimSuffix(b.String(), "\n")
	path := filepath.Join(t.TempDir(), "pages.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := CheckPages(path, dir, warcs)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line    int
		problem string
	}{
		{8, "not a whole record"},
		{9, "not a whole record"},
		{10, "past the end of the file"},
		{11, "no such WARC file"},
		{12, "damaged part"},
		{13, "not a page"},
		{14, "bad warc_file"},
		{15, "no newline"},
	}
	if got.Lines != 15 || got.Problems != len(want) || len(got.First) != len(want) {
		t.Fatalf("CheckPages = %d lines, %d problems %+v; want 15 lines, %d problems", got.Lines, got.Problems, got.First, len(want))
	}
	for i, w := range want {
		if p := got.First[i]; p.Line != w.line || !strings.Contains(p.Problem, w.problem) {
			t.Errorf("problem %d: line %d %q; want line %d with %q", i, p.Line, p.Problem, w.line, w.problem)
		}
	}
}

// TestCheckTail checks the cheap check of older files on files larger than its
// first window: it reads the end only, in a larger window when the last record is
// larger than the first, and finds damage there.
func TestCheckTail(t *testing.T) {
	defer func(w []int64) { tailWindows = w }(tailWindows)
	tailWindows = []int64{16 << 10, 128 << 10}
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, NoSync: true})
	for i := range 120 {
		if _, err := w.WriteExchange(ctx, exchange(fmt.Sprintf("http://a.example/%d", i), noise(i, 3000), "")); err != nil {
			t.Fatal(err)
		}
	}
	big, err := w.WriteExchange(ctx, exchange("http://a.example/big", noise(999, 50<<10), ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, big.File)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	total := len(readWARC(t, path))
	c, err := checkTail(path, int64(len(whole)))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Whole() || c.Records == 0 || c.Records >= total {
		t.Errorf("checkTail(whole file) = %+v; want whole, fewer than %d records read", c, total)
	}
	for _, tc := range []struct {
		name    string
		content []byte
		written int64
		whole   bool
	}{
		{"cut in the big record", whole[:big.Offset+1000], 0, false},
		{"cut on a boundary", whole[:big.Offset], int64(len(whole)), false},
		{"byte changed in the big record", flipAt(whole, big.Offset+big.Length/2), 0, false},
		{"byte changed at the start (not read)", flipAt(whole, 3000), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), big.File)
			if err := os.WriteFile(p, tc.content, 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := checkTail(p, tc.written)
			if err != nil {
				t.Fatal(err)
			}
			if c.Whole() != tc.whole || !tc.whole && c.Problem == "" {
				t.Errorf("checkTail = %+v; want whole %v", c, tc.whole)
			}
		})
	}
}

func flipAt(b []byte, at int64) []byte {
	b = append([]byte(nil), b...)
	b[at] ^= 0x55
	return b
}
