package storage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// earlierCrawl writes, in a new directory, the records of an earlier crawl: two
// pages with validators and a third whose body repeats the first's, and returns
// the directory (WARC files, their CDXJ and digests.db) and the locations.
func earlierCrawl(t *testing.T) (string, []Location) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir})
	var locs []Location
	for _, p := range []struct{ uri, body, etag string }{
		{"http://a.example/", "page one", `"e1"`},
		{"http://a.example/two", "page two", ""},
		{"http://a.example/copy", "page one", ""},
	} {
		ex := exchange(p.uri, []byte(p.body), "")
		if p.etag != "" {
			ex.ResponseHeader = []byte(strings.Replace(string(ex.ResponseHeader), "\r\n\r\n", "\r\nETag: "+p.etag+"\r\n\r\n", 1))
		}
		loc, err := w.WriteExchange(ctx, ex)
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, locs
}

// laterExchange is a fetch of uri with body, an hour after the earlier crawl.
func laterExchange(uri, body string) *Exchange {
	ex := exchange(uri, []byte(body), "")
	ex.Date = t0.Add(time.Hour)
	return ex
}

// TestImportDedupIndex checks that a crawl importing an earlier crawl's digest
// index writes an unchanged payload as a revisit pointing at the earlier
// record, answers LastCapture from the earlier captures (a 304 then refers to
// the earlier record), keeps changed payloads whole, and does not read the
// source again when it has not changed.
func TestImportDedupIndex(t *testing.T) {
	ctx := context.Background()
	old, locs := earlierCrawl(t)
	srcs, err := DedupSources(old)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 1 || filepath.Base(srcs[0]) != DigestIndexName {
		t.Fatalf("DedupSources(%s) = %q, want its %s", old, srcs, DigestIndexName)
	}
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir})
	st, err := w.ImportDedup(ctx, srcs[0])
	if err != nil {
		t.Fatal(err)
	}
	if st.Digests != 2 || st.Captures != 3 || st.Damaged != 0 || st.Unchanged || st.Resumed {
		t.Errorf("ImportDedup = %+v, want 2 digests, 3 captures", st)
	}
	c, ok, err := w.LastCapture("http://a.example/")
	if err != nil || !ok || c.RecordID != locs[0].RecordID || c.ETag != `"e1"` || !c.Imported {
		t.Errorf("LastCapture(/) = %+v, %v, %v; want record %s with ETag \"e1\", imported", c, ok, err, locs[0].RecordID)
	}
	same, err := w.WriteExchange(ctx, laterExchange("http://a.example/two", "page two"))
	if err != nil {
		t.Fatal(err)
	}
	changed, err := w.WriteExchange(ctx, laterExchange("http://a.example/copy", "page three"))
	if err != nil {
		t.Fatal(err)
	}
	nm, err := w.WriteExchange(ctx, notModified("http://a.example/", `"e1"`))
	if err != nil {
		t.Fatal(err)
	}
	if !same.Revisit || same.RefersTo != locs[1].RecordID {
		t.Errorf("unchanged page: Revisit %v RefersTo %s, want a revisit of %s", same.Revisit, same.RefersTo, locs[1].RecordID)
	}
	if changed.Revisit {
		t.Errorf("changed page archived as a revisit of %s", changed.RefersTo)
	}
	if !nm.NotModified || nm.RefersTo != locs[0].RecordID {
		t.Errorf("304: NotModified %v RefersTo %s, want a revisit of %s", nm.NotModified, nm.RefersTo, locs[0].RecordID)
	}
	// The page's own capture now comes first.
	if c, ok, err := w.LastCapture("http://a.example/two"); err != nil || !ok || c.Imported {
		t.Errorf("LastCapture(/two) after its fetch = %+v, %v, %v; want this crawl's capture", c, ok, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, loc := range []Location{same, nm} {
		rv := readAt(t, dir, loc.File, loc.Offset, loc.Length)
		checkRecordBasics(t, rv)
		ref := locs[1]
		if loc.NotModified {
			ref = locs[0]
		}
		orig := readAt(t, old, ref.File, ref.Offset, ref.Length)
		for _, k := range [][2]string{
			{"WARC-Refers-To", "WARC-Record-ID"},
			{"WARC-Refers-To-Target-URI", "WARC-Target-URI"},
			{"WARC-Refers-To-Date", "WARC-Date"},
		} {
			if got, want := rv.get(k[0]), orig.get(k[1]); got != want || got == "" {
				t.Errorf("revisit of %s: %s %q, want the earlier record's %s %q", rv.get("WARC-Target-URI"), k[0], got, k[1], want)
			}
		}
	}

	w = openTest(t, WARCOptions{Dir: dir})
	defer w.Close()
	st, err = w.ImportDedup(ctx, srcs[0])
	if err != nil || !st.Unchanged || st.Digests != 0 {
		t.Errorf("ImportDedup again = %+v, %v; want Unchanged", st, err)
	}
	if _, err := w.ImportDedup(ctx, filepath.Join(dir, DigestIndexName)); err == nil {
		t.Error("ImportDedup of the writer's own index: no error")
	}
}

// TestImportDedupCDXJ checks an import from CDXJ files, with damaged lines
// counted and skipped: a revisit then names the earlier record by URI and
// date, without WARC-Refers-To, which a CDXJ line does not hold.
func TestImportDedupCDXJ(t *testing.T) {
	ctx := context.Background()
	old, locs := earlierCrawl(t)
	if err := os.Remove(filepath.Join(old, DigestIndexName)); err != nil {
		t.Fatal(err)
	}
	srcs, err := DedupSources(old)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 1 || !strings.HasSuffix(srcs[0], ".warc.gz"+IndexSuffix) {
		t.Fatalf("DedupSources without a digest index = %q, want the CDXJ file", srcs)
	}
	data, err := os.ReadFile(srcs[0])
	if err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(t.TempDir(), "damaged.cdxj")
	data = append(data, "not a line\ncom,example)/ 2026 {\"url\":\"http://a.example/x\"}\ncom,example)/ 20261122010203 {\"url\":\n"...)
	if err := os.WriteFile(damaged, data, 0o644); err != nil {
		t.Fatal(err)
	}
	w := openTest(t, WARCOptions{})
	defer w.Close()
	st, err := w.ImportDedup(ctx, damaged)
	if err != nil {
		t.Fatal(err)
	}
	if st.Digests != 2 || st.Captures != 0 || st.Damaged != 3 || len(st.Examples) != 3 {
		t.Errorf("ImportDedup = %+v, want 2 digests and 3 damaged lines", st)
	}
	loc, err := w.WriteExchange(ctx, laterExchange("http://a.example/new", "page one"))
	if err != nil {
		t.Fatal(err)
	}
	if !loc.Revisit || loc.RefersTo != "" {
		t.Fatalf("unchanged payload: Revisit %v RefersTo %q, want a revisit with no record ID", loc.Revisit, loc.RefersTo)
	}
	rv := readAt(t, w.opts.Dir, loc.File, loc.Offset, loc.Length)
	orig := readAt(t, old, locs[0].File, locs[0].Offset, locs[0].Length)
	// A CDXJ line knows the capture's date to the second: the revisit says no more.
	origDate := strings.Replace(orig.get("WARC-Date"), ".000Z", "Z", 1)
	if rv.get("WARC-Refers-To") != "" || rv.get("WARC-Refers-To-Target-URI") != orig.get("WARC-Target-URI") ||
		rv.get("WARC-Refers-To-Date") != origDate {
		t.Errorf("revisit refers to %q %q %q, want no record ID, %q, %q", rv.get("WARC-Refers-To"),
			rv.get("WARC-Refers-To-Target-URI"), rv.get("WARC-Refers-To-Date"), orig.get("WARC-Target-URI"), origDate)
	}
}

// stopAfter is a context whose Err says Canceled from its nth call on: an
// import stopped after a known number of batches.
type stopAfter struct {
	context.Context
	n int
}

func (c *stopAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestImportDedupResumes checks that an import cut between two batches carries
// on from where it stopped, for both kinds of source, and that the result is
// the same as an import in one go.
func TestImportDedupResumes(t *testing.T) {
	defer func(n int) { importBatch = n }(importBatch)
	importBatch = 1
	old, _ := earlierCrawl(t)
	cdxj, _ := filepath.Glob(filepath.Join(old, "*"+IndexSuffix))
	for _, src := range []string{filepath.Join(old, DigestIndexName), cdxj[0]} {
		t.Run(filepath.Ext(src), func(t *testing.T) {
			w := openTest(t, WARCOptions{})
			defer w.Close()
			first, err := w.ImportDedup(&stopAfter{Context: context.Background(), n: 1}, src)
			if err != context.Canceled {
				t.Fatalf("cut import: %v, want context.Canceled", err)
			}
			second, err := w.ImportDedup(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			if !second.Resumed || first.Digests+second.Digests != 2 || first.Digests != 1 {
				t.Errorf("cut import %+v then %+v, want 1 digest then the rest, resumed", first, second)
			}
			wantCaptures := int64(0)
			if !strings.HasSuffix(src, IndexSuffix) {
				wantCaptures = 3
			}
			if first.Captures+second.Captures != wantCaptures {
				t.Errorf("captures %d + %d, want %d", first.Captures, second.Captures, wantCaptures)
			}
			if third, err := w.ImportDedup(context.Background(), src); err != nil || !third.Unchanged {
				t.Errorf("import after a whole one = %+v, %v; want Unchanged", third, err)
			}
		})
	}
}

func TestParseCDXJLine(t *testing.T) {
	for _, c := range []struct {
		line, digest, date, uri, reason string
	}{
		{`com,example)/ 20261122010203 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"ABC","length":"10","offset":"0","filename":"f.warc.gz"}`,
			"sha1:ABC", "2026-11-22T01:02:03Z", "http://example.com/", ""},
		{`com,example)/ 20261122010203 {"url":"http://example.com/","digest":"sha256:abc"}`,
			"sha256:abc", "2026-11-22T01:02:03Z", "http://example.com/", ""},
		{`com,example)/ 20261122010203 {"url":"http://example.com/","mime":"warc/revisit","digest":"ABC"}`, "", "", "", ""},
		{`com,example)/ 20261122010203 {"url":"http://example.com/"}`, "", "", "", ""},
		{`com,example)/ 2026112201020 {"url":"http://example.com/","digest":"ABC"}`, "", "", "", "bad timestamp"},
		{`com,example)/ 20261122010203 {"url":"http://example.com/","digest":`, "", "", "", "bad JSON"},
		{`com,example)/ 20261122010203 {"digest":"ABC"}`, "", "", "", "no url"},
		{`com,example)/ 20261122010203 {"url":"http://example.com/","digest":"A B"}`, "", "", "", "bad digest"},
		{`com,example)/ 20261122010203`, "", "", "", "not a CDXJ line"},
		{``, "", "", "", "not a CDXJ line"},
	} {
		d, ref, ok, reason := parseCDXJLine([]byte(c.line))
		if d != c.digest || ref.Date != c.date || ref.URI != c.uri || reason != c.reason || ok != (c.digest != "") {
			t.Errorf("parseCDXJLine(%q):\n\tgot  %q %q %q %v %q\n\twant %q %q %q %v %q", c.line,
				d, ref.Date, ref.URI, ok, reason, c.digest, c.date, c.uri, c.digest != "", c.reason)
		}
	}
}

// FuzzParseCDXJLine checks that no line makes parseCDXJLine panic, and that
// what it accepts can be written back into a revisit record's header: a
// labelled digest and a one-line URI.
func FuzzParseCDXJLine(f *testing.F) {
	for _, s := range []string{
		`com,example)/ 20261122010203 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"ABC","length":"10"}`,
		`com,example)/ 20261122010203 {"url":"http://example.com/","mime":"warc/revisit","digest":"ABC"}`,
		`com,example)/ 20261122010203 {"url":"http://exa\u000dmple.com/","digest":"ABC"}`,
		`x 1 {`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		d, ref, ok, reason := parseCDXJLine(line)
		if !ok {
			if d != "" {
				t.Errorf("rejected (%q) with digest %q", reason, d)
			}
			return
		}
		if !strings.Contains(d, ":") || strings.ContainsAny(d+ref.URI+ref.Date, "\r\n") || ref.URI == "" {
			t.Errorf("accepted %q as %q %+v", line, d, ref)
		}
	})
}
