package storage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// snapshot copies the files of dir into a new directory, as a crash at this
// moment would leave them.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

func TestTornTail(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir})
	var locs []Location
	for i := range 6 {
		loc, err := w.WriteExchange(ctx, exchange(fmt.Sprintf("http://a.example/%d", i), noise(i, 3000), ""))
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	crashed := snapshot(t, dir) // the writer is still open: no Close ran
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(crashed, locs[0].File)
	whole, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	last := locs[5]
	lastReq := locs[4].Offset + locs[4].Length // where the last pair starts
	cases := []struct {
		name     string
		content  []byte
		keep     int64 // bytes kept
		complete int   // whole request/response pairs left
	}{
		{"cut in last response header", whole[:last.Offset+5], last.Offset, 5},
		{"cut mid last response", whole[:last.Offset+last.Length/2], last.Offset, 5},
		{"cut in gzip trailer", whole[:last.Offset+last.Length-3], last.Offset, 5},
		{"cut mid last request", whole[:lastReq+20], lastReq, 5},
		{"cut on a record boundary", whole[:lastReq], lastReq, 5},
		{"garbage after the end", append(bytes.Clone(whole), "garbage\x1f\x8b\x08"...), int64(len(whole)), 6},
		{"zeros after the end", append(bytes.Clone(whole), make([]byte, 4096)...), int64(len(whole)), 6},
		{"whole", whole, int64(len(whole)), 6},
		{"torn warcinfo only", whole[:10], 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := snapshot(t, crashed)
			p := filepath.Join(d, locs[0].File)
			if err := os.WriteFile(p, c.content, 0o644); err != nil {
				t.Fatal(err)
			}
			w := openTest(t, WARCOptions{Dir: d})
			rec, ok := w.Recovery()
			if cut := int64(len(c.content)) - c.keep; ok != (cut > 0) || ok && (rec.Kept != c.keep || rec.Cut != cut || rec.File != locs[0].File || rec.Removed != (c.keep == 0)) {
				t.Errorf("Recovery() = %+v, %v; want kept %d, cut %d", rec, ok, c.keep, cut)
			}
			more, err := w.WriteExchange(ctx, exchange("http://a.example/after", []byte("after the crash"), ""))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if more.File == locs[0].File {
				t.Errorf("wrote into the repaired file")
			}
			pairs := map[string]bool{}
			for _, r := range readDir(t, d) {
				if r.get("WARC-Type") == "response" {
					pairs[r.get("WARC-Target-URI")] = true
				}
			}
			for i := range 6 {
				if got, want := pairs[fmt.Sprintf("http://a.example/%d", i)], i < c.complete; got != want {
					t.Errorf("response %d present: %v, want %v", i, got, want)
				}
			}
			if !pairs["http://a.example/after"] {
				t.Errorf("record written after the repair is missing")
			}
			if _, err := os.Stat(p); (err == nil) == (c.keep == 0) {
				t.Errorf("torn file exists: %v, want %v", err == nil, c.keep != 0)
			}
		})
	}
}

// TestTornTailAfterDurableMark checks the scan that starts at the size the
// index recorded as durable.
func TestTornTailAfterDurableMark(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir})
	loc, err := w.WriteExchange(ctx, exchange("http://a.example/", []byte("body"), ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, loc.File)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A member that starts well but stops: what a crash mid-write leaves.
	torn := whole(t, exchange("http://a.example/x", []byte("x"), ""))
	if _, err := f.Write(torn[:len(torn)/2]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	w = openTest(t, WARCOptions{Dir: dir})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, ok := w.Recovery()
	if !ok || rec.Cut != int64(len(torn)/2) {
		t.Errorf("Recovery() = %+v, %v; want %d bytes cut", rec, ok, len(torn)/2)
	}
	if n := len(readWARC(t, p)); n != 3 {
		t.Errorf("%d records after repair, want 3", n)
	}
}

// TestRepairBelowWritten checks that a newest file cut below the size the index
// recorded as written is repaired to its last whole record, reported, and then verifies
// whole: the index's written size follows the repair, so the loss is not reported
// again on every later check.
func TestRepairBelowWritten(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir})
	var locs []Location
	for _, u := range []string{"http://a.example/", "http://a.example/1", "http://a.example/2"} {
		loc, err := w.WriteExchange(ctx, exchange(u, []byte("body of "+u), ""))
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, locs[0].File)
	// Cut in the middle of the second exchange's record: below what was written.
	cut := locs[1].Offset + locs[1].Length/2
	if err := os.Truncate(p, cut); err != nil {
		t.Fatal(err)
	}
	checks, _, err := Verify(dir, "", nil)
	if err != nil || len(checks) != 1 || checks[0].Whole() {
		t.Fatalf("before the repair: Verify = %+v, %v; want the file damaged", checks, err)
	}
	w = openTest(t, WARCOptions{Dir: dir})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, ok := w.Recovery()
	if !ok || rec.Kept > locs[1].Offset+locs[1].Length || rec.Cut == 0 {
		t.Errorf("Recovery() = %+v, %v; want the torn record cut", rec, ok)
	}
	checks, _, err = Verify(dir, "", nil)
	if err != nil || len(checks) != 1 || !checks[0].Whole() || checks[0].Problem != "" {
		t.Errorf("after the repair: Verify = %+v, %v; want the file whole", checks[0], err)
	}
}

// whole returns the gzip members WriteExchange writes for ex.
func whole(t *testing.T, ex *Exchange) []byte {
	t.Helper()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, NoSync: true})
	loc, err := w.WriteExchange(context.Background(), ex)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, loc.File)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	recs := readWARC(t, p) // warcinfo, request, response
	return b[recs[1].Offset:]
}
