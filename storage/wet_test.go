package storage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// wetFiles lists the WET files of dir in name order.
func wetFiles(t testing.TB, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*"+WETSuffix))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestWETName(t *testing.T) {
	if got, want := WETName("crawl-20261122010203-00001.warc.gz"), "crawl-20261122010203-00001.warc.wet.gz"; got != want {
		t.Errorf("WETName:\n\tgot %s\n\twant %s", got, want)
	}
}

// TestWETRecords writes pages with and without a Conversion across a rotation
// and reads each WET file back with gowarc: a warcinfo record naming the file,
// then one conversion record per page given one, in order, each referring to its
// response (or revisit) record in the WARC file of the same name.
func TestWETRecords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, WET: true, MaxFileSize: 3000})
	type page struct {
		uri  string
		conv *Conversion
	}
	pages := []page{
		{"http://a.example/", &Conversion{Text: "Hello\nworld", Languages: []string{"eng", "deu"}}},
		{"http://a.example/robots.txt", nil},
		{"http://a.example/empty", &Conversion{}},
		{"http://a.example/bad", &Conversion{Text: "caf\xe9"}},
		{"http://b.example/big", &Conversion{Text: string(bytes.Repeat([]byte("word "), 800))}},
		{"http://b.example/dup", &Conversion{Text: "Hello\nworld"}}, // same body as the first: a revisit
	}
	ids := map[string]string{} // URI → response or revisit record ID
	for i, p := range pages {
		body := fmt.Appendf(nil, "<p>page %d</p>", i)
		if p.uri == "http://b.example/dup" {
			body = []byte("<p>page 0</p>")
		}
		ex := exchange(p.uri, body, "")
		ex.Conversion = p.conv
		loc, err := w.WriteExchange(ctx, ex)
		if err != nil {
			t.Fatal(err)
		}
		ids[p.uri] = loc.RecordID
	}
	st := w.Stats()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st.WETRecords != 5 {
		t.Errorf("Stats().WETRecords = %d, want 5", st.WETRecords)
	}
	warcs, wets := warcFiles(t, dir), wetFiles(t, dir)
	if len(warcs) < 2 || len(wets) != len(warcs) {
		t.Fatalf("%d WARC files and %d WET files, want the same number, at least 2", len(warcs), len(wets))
	}
	var got []readRecord
	for i, path := range wets {
		if want := WETName(filepath.Base(warcs[i])); filepath.Base(path) != want {
			t.Errorf("WET file %s, want %s", filepath.Base(path), want)
		}
		recs := readWARC(t, path)
		if len(recs) == 0 || recs[0].get("WARC-Type") != "warcinfo" || recs[0].get("WARC-Filename") != filepath.Base(path) {
			t.Fatalf("%s: does not start with its warcinfo record", path)
		}
		// Every conversion record refers to a record of the WARC file of the same name.
		inWARC := map[string]bool{}
		for _, r := range readWARC(t, warcs[i]) {
			inWARC[r.get("WARC-Record-ID")] = true
		}
		for _, r := range recs[1:] {
			if !inWARC[r.get("WARC-Refers-To")] {
				t.Errorf("%s: %s refers to %s, not in %s", filepath.Base(path), r.get("WARC-Target-URI"), r.get("WARC-Refers-To"), filepath.Base(warcs[i]))
			}
		}
		got = append(got, recs[1:]...)
	}
	want := []struct{ uri, text, lang string }{
		{"http://a.example/", "Hello\nworld", "eng,deu"},
		{"http://a.example/empty", "", ""},
		{"http://a.example/bad", "caf\uFFFD", ""},
		{"http://b.example/big", pages[4].conv.Text, ""},
		{"http://b.example/dup", "Hello\nworld", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d conversion records, want %d", len(got), len(want))
	}
	for i, r := range got {
		w := want[i]
		checkRecordBasics(t, r)
		if r.get("WARC-Type") != "conversion" || r.get("WARC-Target-URI") != w.uri ||
			r.get("Content-Type") != "text/plain" || r.get("WARC-Refers-To") != ids[w.uri] ||
			r.get("WARC-Identified-Content-Language") != w.lang || string(r.Content) != w.text ||
			r.get("WARC-Block-Digest") != sha1B32(r.Content) || r.get("WARC-Date") == "" {
			t.Errorf("record %d:\n\tgot %v %q\n\twant %+v", i, r.Header, r.Content, w)
		}
	}
}

// TestWETOff: without WARCOptions.WET a Conversion is ignored and no WET file
// appears.
func TestWETOff(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir})
	ex := exchange("http://a.example/", []byte("<p>x</p>"), "")
	ex.Conversion = &Conversion{Text: "x"}
	if _, err := w.WriteExchange(context.Background(), ex); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := wetFiles(t, dir); len(got) != 0 {
		t.Errorf("WET files %v, want none", got)
	}
}

// TestWETRepair: a crash leaves the newest WET file with a torn record, or with
// whole records whose response records the WARC file's repair cut; OpenWARC cuts
// them, so that every conversion record left refers to a record in the WARC file.
func TestWETRepair(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []string{"torn WET record", "response cut from the WARC", "response never written"} {
		t.Run(tc, func(t *testing.T) {
			dir := t.TempDir()
			w := openTest(t, WARCOptions{Dir: dir, WET: true, NoSync: true})
			for i := range 3 {
				ex := exchange(fmt.Sprintf("http://a.example/%d", i), fmt.Appendf(nil, "<p>%d</p>", i), "")
				ex.Conversion = &Conversion{Text: fmt.Sprint("text ", i)}
				if _, err := w.WriteExchange(ctx, ex); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			warcPath, wetPath := warcFiles(t, dir)[0], wetFiles(t, dir)[0]
			wetRecs := readWARC(t, wetPath)
			last := wetRecs[len(wetRecs)-1]
			whole, err := os.Stat(wetPath)
			if err != nil {
				t.Fatal(err)
			}
			switch tc {
			case "torn WET record":
				appendFile(t, wetPath, []byte{0x1f, 0x8b, 0x08, 0, 0, 0})
			case "response never written":
				// A whole conversion record reached the disk; its response did not.
				var buf bytes.Buffer
				if err := appendWETRecord(&buf, 1, "http://a.example/3", "2026-11-22T01:02:03Z", newRecordID(), &Conversion{Text: "lost"}); err != nil {
					t.Fatal(err)
				}
				appendFile(t, wetPath, buf.Bytes())
			case "response cut from the WARC":
				// Tear the WARC file's last record: its repair cuts the record and
				// with it the response the last conversion record refers to.
				recs := readWARC(t, warcPath)
				if err := os.Truncate(warcPath, recs[len(recs)-1].Offset+10); err != nil {
					t.Fatal(err)
				}
			}
			w = openTest(t, WARCOptions{Dir: dir, WET: true, NoSync: true})
			reps := w.Repairs()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			var cut bool
			for _, r := range reps {
				cut = cut || r.File == filepath.Base(wetPath) && r.Cut > 0
			}
			if !cut {
				t.Errorf("Repairs() = %+v: the WET file is not cut", reps)
			}
			after := readWARC(t, wetPath)
			switch tc {
			case "torn WET record", "response never written":
				if fi, _ := os.Stat(wetPath); fi.Size() != whole.Size() || len(after) != len(wetRecs) {
					t.Errorf("WET file %d bytes, %d records; want %d, %d", fi.Size(), len(after), whole.Size(), len(wetRecs))
				}
			case "response cut from the WARC":
				if len(after) != len(wetRecs)-1 || after[len(after)-1].get("WARC-Record-ID") == last.get("WARC-Record-ID") {
					t.Errorf("%d WET records after the repair, want %d without the last", len(after), len(wetRecs)-1)
				}
			}
		})
	}
}

// TestWETOrphan: a WET file (or its temporary file) whose WARC file never
// started is removed at open.
func TestWETOrphan(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"crawl-20261122010203-00001.warc.wet.gz", "crawl-20261122010203-00002.warc.wet.gz.tmp"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := openTest(t, WARCOptions{Dir: dir, WET: true})
	reps := w.Repairs()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 || !reps[0].Removed || !reps[1].Removed {
		t.Errorf("Repairs() = %+v, want both files removed", reps)
	}
	if got := wetFiles(t, dir); len(got) != 0 {
		t.Errorf("WET files left: %v", got)
	}
}

// TestRebuildWET: RebuildWET writes the conversion records a writer wrote, from the
// WARC files alone, converting the response an identical-payload revisit refers to.
func TestRebuildWET(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, WET: true, MaxFileSize: 2000})
	convert := func(uri string, head, body []byte) *Conversion {
		if !bytes.Contains(head, []byte("text/html")) {
			return nil
		}
		return &Conversion{Text: "text of " + string(body), Languages: []string{"eng"}}
	}
	for i, uri := range []string{"http://a.example/1", "http://a.example/2", "http://b.example/same-as-1"} {
		body := fmt.Appendf(nil, "<p>%d</p>", i)
		if i == 2 {
			body = []byte("<p>0</p>")
		}
		ex := exchange(uri, body, "")
		ex.Conversion = convert(uri, ex.ResponseHeader, body)
		if _, err := w.WriteExchange(ctx, ex); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	type rec struct{ typ, uri, to, lang, text string }
	read := func() (out []rec) {
		for _, p := range wetFiles(t, dir) {
			for _, r := range readWARC(t, p) {
				out = append(out, rec{r.get("WARC-Type"), r.get("WARC-Target-URI"), r.get("WARC-Refers-To"), r.get("WARC-Identified-Content-Language"), string(r.Content)})
			}
		}
		return out
	}
	want := read()
	for _, p := range wetFiles(t, dir) {
		os.Remove(p)
	}
	files := 0
	if err := RebuildWET(dir, convert, func(string, int) { files++ }); err != nil {
		t.Fatal(err)
	}
	got := read()
	// The warcinfo records differ in their IDs and dates only: compare the rest.
	for i := range got {
		if got[i].typ == "warcinfo" {
			got[i].text, want[i].text = "", ""
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || files != len(warcFiles(t, dir)) {
		t.Errorf("rebuilt WET records (%d files):\n\tgot  %v\n\twant %v", files, got, want)
	}
	if len(want) != 3+len(warcFiles(t, dir)) || want[len(want)-1].text != "text of <p>0</p>" {
		t.Errorf("the writer's records %v: want three conversions, the revisit's from the page it repeats", want)
	}
}
