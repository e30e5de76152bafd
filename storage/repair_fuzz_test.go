package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// FuzzCheckWARC checks CheckWARC and the cheap check of older files on any bytes:
// no panic, results that hold together, a cut at End that leaves a whole file, and a
// tail check that never calls a whole file damaged.
func FuzzCheckWARC(f *testing.F) {
	defer func(w []int64) { tailWindows = w }(tailWindows)
	tailWindows = []int64{256, 2048} // small windows, so that small inputs use them
	dir := f.TempDir()
	w := openTest(f, WARCOptions{Dir: dir, NoSync: true})
	for i := range 3 {
		if _, err := w.WriteExchange(context.Background(), exchange(fmt.Sprintf("http://a.example/%d", i), noise(i, 300), "")); err != nil {
			f.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	addWARCSeeds(f, dir, 100, 200)
	f.Fuzz(func(t *testing.T, b []byte) {
		path := tempWARC(t, b)
		c, err := CheckWARC(path)
		if err != nil {
			t.Fatal(err)
		}
		if c.Size != int64(len(b)) || c.End < 0 || c.End > c.Size || c.Records != len(c.Starts) {
			t.Fatalf("CheckWARC = %+v for %d bytes", c, len(b))
		}
		for i, s := range c.Starts {
			if s >= c.End || i > 0 && s <= c.Starts[i-1] || i == 0 && s != 0 {
				t.Fatalf("Starts %v, End %d", c.Starts, c.End)
			}
		}
		if c.Whole() != (c.Problem == "" && c.End == c.Size) || c.Problem == "" && c.End != c.Size {
			t.Fatalf("CheckWARC = %+v: whole %v", c, c.Whole())
		}
		// Cutting at End leaves the same whole records and nothing else.
		if err := os.WriteFile(path, b[:c.End], 0o644); err != nil {
			t.Fatal(err)
		}
		cut, err := CheckWARC(path)
		if err != nil {
			t.Fatal(err)
		}
		if cut.End != c.End || cut.Records != c.Records || c.Records > 0 && !cut.Whole() {
			t.Fatalf("after a cut at %d: %+v; want %d whole records", c.End, cut, c.Records)
		}
		// The tail check never calls a whole file damaged.
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		tail, err := checkTail(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		if c.Whole() && !tail.Whole() {
			t.Fatalf("checkTail = %+v for a whole file", tail)
		}
	})
}

// FuzzOpenPages checks the repair of a pages file's end on any bytes: what is kept is
// a prefix ending with a newline (one added only after a whole JSON object), what is
// cut is reported, and a second open repairs nothing.
func FuzzOpenPages(f *testing.F) {
	f.Add([]byte(`{"url":"http://a.example/"}` + "\n" + `{"url":"http://b.example/"}`))
	f.Add([]byte(`{"url":"http://a.example/"}` + "\n" + `{"url":"ht`))
	f.Add([]byte("garbage\n{}\n[1]\n"))
	f.Add([]byte("{}"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "pages.jsonl")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := OpenPages(path, PagesOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		r := p.Repair()
		p.Close()
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r.Newline:
			last := b[bytes.LastIndexByte(b, '\n')+1:]
			if r.Cut != 0 || string(got) != string(b)+"\n" || len(last) == 0 || last[0] != '{' || !json.Valid(last) {
				t.Fatalf("Repair %+v: %q became %q", r, b, got)
			}
		default:
			if r.Cut < 0 || string(got) != string(b[:len(b)-int(r.Cut)]) || len(got) > 0 && got[len(got)-1] != '\n' ||
				(r.Cut > 0) != (r.Lines > 0) || len(r.Dropped) > maxDropped || !bytes.HasPrefix(b[len(got):], []byte(r.Dropped)) {
				t.Fatalf("Repair %+v: %q became %q", r, b, got)
			}
		}
		p, err = OpenPages(path, PagesOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if r2 := p.Repair(); r2 != (TailRepair{}) {
			t.Fatalf("second open of %q repaired %+v", got, r2)
		}
	})
}

// addWARCSeeds adds each WARC file in dir to f's seed corpus whole and, when cut and
// flip are not 0, without its last cut bytes and with the byte flip bytes before
// its end flipped.
func addWARCSeeds(f *testing.F, dir string, cut, flip int) {
	f.Helper()
	for _, p := range warcFiles(f, dir) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		if cut > 0 {
			f.Add(b[:len(b)-cut])
		}
		if flip > 0 {
			f.Add(flipAt(b, int64(len(b)-flip)))
		}
	}
}

// tempWARC writes b to a WARC file of its own and returns its path.
func tempWARC(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.warc.gz")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
