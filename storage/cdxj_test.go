package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// cdxjLine is one parsed CDXJ line.
type cdxjLine struct {
	Key, Timestamp string
	Fields         map[string]string
}

func parseCDXJ(t testing.TB, line string) cdxjLine {
	t.Helper()
	key, rest, ok1 := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	ts, js, ok2 := strings.Cut(rest, " ")
	var f map[string]string
	if !ok1 || !ok2 || json.Unmarshal([]byte(js), &f) != nil {
		t.Fatalf("bad CDXJ line %q", line)
	}
	return cdxjLine{key, ts, f}
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	return lines[:len(lines)-1] // after the last newline: ""
}

// indexOf returns the lines IndexWARC makes of the WARC file at path, sorted.
func indexOf(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	if _, err := IndexWARC(f, filepath.Base(path), func(l []byte) error {
		lines = append(lines, string(l))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	return lines
}

func TestCDXJLine(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, NoSync: true})
	body := []byte("<!doctype html><title>T</title>")
	ex := exchange("http://www.Example.com/A/?b=2&a=1", body, "")
	ex.ResponseHeader = []byte("HTTP/1.1 404 Not Found\r\nContent-Type: Application/Octet-Stream ; x=1\r\n\r\n")
	loc, err := w.WriteExchange(context.Background(), ex)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readLines(t, filepath.Join(dir, loc.File+IndexSuffix))
	want := fmt.Sprintf(`com,example)/a?a=1&b=2 20261122010203 {"url":"http://www.Example.com/A/?b=2&a=1","mime":"Application/Octet-Stream","mime-detected":"text/html","status":"404","digest":%q,"length":"%d","offset":"%d","filename":%q}`+"\n",
		strings.TrimPrefix(sha1B32(body), "sha1:"), loc.Length, loc.Offset, loc.File)
	if len(got) != 1 || got[0] != want {
		t.Errorf("index:\n\tgot  %q\n\twant %q", got, want)
	}
}

// TestIndexWrittenWithWARC writes exchanges over several files (revisits and
// metadata records among them) and checks each file's index: sorted, one line
// per response and revisit record, each pointing at its record, and equal to
// what IndexWARC reads from the file.
func TestIndexWrittenWithWARC(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, NoSync: true, MaxFileSize: 20 << 10})
	want := map[string]Location{}
	for i := range 30 {
		body := noise(i%7, 3000) // every seventh body repeats: revisits
		ex := exchange(fmt.Sprintf("http://a.example/p/%d", i), body, "")
		if i%3 == 0 {
			ex.Metadata = &Metadata{TargetURI: ex.TargetURI, Outlinks: []string{"http://a.example/"}}
		}
		loc, err := w.WriteExchange(ctx, ex)
		if err != nil {
			t.Fatal(err)
		}
		want[ex.TargetURI] = loc
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := warcFiles(t, dir)
	if len(files) < 3 {
		t.Fatalf("%d files, want rotation", len(files))
	}
	seen := 0
	for _, p := range files {
		if _, err := os.Stat(p + IndexSuffix + OpenIndexSuffix); err == nil {
			t.Errorf("%s: open index left after Close", filepath.Base(p))
		}
		lines := readLines(t, p+IndexSuffix)
		if !slices.IsSorted(lines) {
			t.Errorf("%s: index not sorted", filepath.Base(p))
		}
		if read := indexOf(t, p); !slices.Equal(lines, read) {
			t.Errorf("%s: index written:\n%s\nindex read from the file:\n%s", filepath.Base(p), strings.Join(lines, ""), strings.Join(read, ""))
		}
		for _, l := range lines {
			c := parseCDXJ(t, l)
			loc := want[c.Fields["url"]]
			off, _ := strconv.ParseInt(c.Fields["offset"], 10, 64)
			n, _ := strconv.ParseInt(c.Fields["length"], 10, 64)
			if c.Fields["filename"] != loc.File || off != loc.Offset || n != loc.Length {
				t.Errorf("line %q: want %s at %d+%d", l, loc.File, loc.Offset, loc.Length)
			}
			r := readAt(t, filepath.Dir(p), c.Fields["filename"], off, n)
			typ := r.get("WARC-Type")
			if r.get("WARC-Target-URI") != c.Fields["url"] || "sha1:"+c.Fields["digest"] != r.get("WARC-Payload-Digest") ||
				(typ == "revisit") != (c.Fields["mime"] == "warc/revisit") || typ != "response" && typ != "revisit" {
				t.Errorf("line %q points at a %s record of %s", l, typ, r.get("WARC-Target-URI"))
			}
			if c.Key != SURT(c.Fields["url"]) || c.Timestamp != "20261122010203" || c.Fields["status"] != "200" {
				t.Errorf("line %q: key, timestamp or status wrong", l)
			}
			seen++
		}
	}
	if seen != len(want) {
		t.Errorf("%d index lines, want %d", seen, len(want))
	}
}

// TestIndexOnlyDurable checks that a record's line reaches the open index
// only once the record is durable.
func TestIndexOnlyDurable(t *testing.T) {
	dir := t.TempDir()
	x := newCDXJWriter(dir, true)
	x.add("f.warc.gz", 100, []byte("a 1 {}\n"))
	x.add("f.warc.gz", 200, []byte("b 1 {}\n"))
	open := filepath.Join(dir, "f.warc.gz"+IndexSuffix+OpenIndexSuffix)
	for _, c := range []struct {
		size int64
		want string
	}{{50, ""}, {150, "a 1 {}\n"}, {199, "a 1 {}\n"}, {200, "a 1 {}\nb 1 {}\n"}} {
		x.durable("f.warc.gz", c.size)
		if b, _ := os.ReadFile(open); string(b) != c.want {
			t.Errorf("durable up to %d: open index %q, want %q", c.size, b, c.want)
		}
	}
	x.add("f.warc.gz", 300, []byte("0 1 {}\n"))
	if err := x.finish("f.warc.gz", 300); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.warc.gz"+IndexSuffix)); string(b) != "0 1 {}\na 1 {}\nb 1 {}\n" {
		t.Errorf("finished index %q", b)
	}
	if _, err := os.Stat(open); err == nil {
		t.Errorf("open index left after finish")
	}
}

// TestIndexAfterCrash copies the directory of a writer that is still open (a
// crash) and tears the last record: opening the copy rebuilds the index of
// the crashed file from its whole records.
func TestIndexAfterCrash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir})
	var locs []Location
	for i := range 5 {
		loc, err := w.WriteExchange(ctx, exchange(fmt.Sprintf("http://a.example/%d", i), noise(i, 2000), ""))
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	crashed := snapshot(t, dir)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	name := locs[0].File
	if _, err := os.Stat(filepath.Join(crashed, name+IndexSuffix)); err == nil {
		t.Fatalf("a sorted index exists for a file still open")
	}
	if got := readLines(t, filepath.Join(crashed, name+IndexSuffix+OpenIndexSuffix)); len(got) != 5 {
		t.Fatalf("open index of the crashed file has %d lines, want 5 (every acknowledged record)", len(got))
	}
	p := filepath.Join(crashed, name)
	last := locs[4]
	if err := os.Truncate(p, last.Offset+last.Length/2); err != nil {
		t.Fatal(err)
	}
	w2 := openTest(t, WARCOptions{Dir: crashed})
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, p+IndexSuffix)
	if len(lines) != 4 {
		t.Errorf("rebuilt index has %d lines, want the 4 whole records:\n%s", len(lines), strings.Join(lines, ""))
	}
	for _, l := range lines {
		c := parseCDXJ(t, l)
		off, _ := strconv.ParseInt(c.Fields["offset"], 10, 64)
		n, _ := strconv.ParseInt(c.Fields["length"], 10, 64)
		readAt(t, crashed, name, off, n)
	}
	if _, err := os.Stat(p + IndexSuffix + OpenIndexSuffix); err == nil {
		t.Errorf("open index left after the rebuild")
	}
}

func FuzzIndexWARC(f *testing.F) {
	dir := f.TempDir()
	w := openTest(f, WARCOptions{Dir: dir, NoSync: true})
	for i := range 3 {
		ex := exchange(fmt.Sprintf("http://a.example/%d", i), noise(i%2, 300), "")
		ex.Metadata = &Metadata{TargetURI: ex.TargetURI}
		if _, err := w.WriteExchange(context.Background(), ex); err != nil {
			f.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	addWARCSeeds(f, dir, 0, 0)
	f.Fuzz(func(t *testing.T, b []byte) {
		whole, err := IndexWARC(bytes.NewReader(b), "f.warc.gz", func(l []byte) error {
			c := parseCDXJ(t, string(l))
			if strings.ContainsAny(c.Key, " \n") {
				t.Fatalf("key %q holds white space", c.Key)
			}
			return nil
		})
		if err != nil || whole < 0 || whole > int64(len(b)) {
			t.Fatalf("IndexWARC: whole %d of %d bytes, err %v", whole, len(b), err)
		}
	})
}
