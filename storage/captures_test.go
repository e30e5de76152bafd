package storage

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// notModified builds the exchange of a 304 answer to a conditional GET of uri.
func notModified(uri, etag string) *Exchange {
	ex := exchange(uri, nil, "")
	ex.Request = bytes.Replace(ex.Request, []byte("\r\n\r\n"), []byte("\r\nIf-None-Match: "+etag+"\r\n\r\n"), 1)
	ex.ResponseHeader = []byte("HTTP/1.1 304 Not Modified\r\nETag: " + etag + "\r\nServer: test\r\n\r\n")
	ex.Date = t0.Add(3600e9)
	return ex
}

// TestNotModifiedRevisit checks that a 304 is archived as a server-not-modified
// revisit referring to the URI's last capture, in this run and in the next, and
// that the capture keeps the response's validators.
func TestNotModifiedRevisit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir})
	if _, ok, err := w.LastCapture("http://a.example/"); ok || err != nil {
		t.Fatalf("LastCapture before any write: ok %v, err %v", ok, err)
	}
	first := exchange("http://a.example/", []byte("<p>hello</p>"), "")
	first.ResponseHeader = bytes.Replace(first.ResponseHeader, []byte("Server: test"),
		[]byte("ETag: \"v1\"\r\nLast-Modified: Sun, 22 Nov 2026 01:02:03 GMT\r\nServer: test"), 1)
	loc1, err := w.WriteExchange(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	want := Capture{RecordID: loc1.RecordID, Date: "2026-11-22T01:02:03.000Z", URI: "http://a.example/",
		Fetched: t0, ETag: `"v1"`, LastModified: "Sun, 22 Nov 2026 01:02:03 GMT"}
	got, ok, err := w.LastCapture("http://a.example/")
	if err != nil || !ok || got != want {
		t.Fatalf("LastCapture (pending):\n\tgot  %+v, %v, %v\n\twant %+v", got, ok, err, want)
	}
	loc2, err := w.WriteExchange(ctx, notModified("http://a.example/", `"v1"`))
	if err != nil {
		t.Fatal(err)
	}
	if loc2.RefersTo != loc1.RecordID {
		t.Errorf("304: RefersTo %q, want %q", loc2.RefersTo, loc1.RecordID)
	}
	if !loc2.Revisit || !loc2.NotModified || loc2.PayloadDigest != "" {
		t.Errorf("304: Revisit %v, NotModified %v, PayloadDigest %q; want true, true, empty", loc2.Revisit, loc2.NotModified, loc2.PayloadDigest)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// The next run finds the capture in the index, and a 304 still refers to it.
	w = openTest(t, WARCOptions{Dir: dir})
	got, ok, err = w.LastCapture("http://a.example/")
	if err != nil || !ok || got != want {
		t.Fatalf("LastCapture (index):\n\tgot  %+v, %v, %v\n\twant %+v", got, ok, err, want)
	}
	loc3, err := w.WriteExchange(ctx, notModified("http://a.example/", `"v1"`))
	if err != nil {
		t.Fatal(err)
	}
	// A 304 for a URI never captured is archived as the response it is.
	loc4, err := w.WriteExchange(ctx, notModified("http://a.example/other", `"x"`))
	if err != nil {
		t.Fatal(err)
	}
	if loc4.Revisit || loc4.NotModified {
		t.Errorf("304 without an earlier capture: Revisit %v, NotModified %v; want false, false", loc4.Revisit, loc4.NotModified)
	}
	if st := w.Stats(); st.NotModified != 1 || st.Revisits != 1 || st.Responses != 1 {
		t.Errorf("Stats() = %+v, want 1 not-modified revisit and 1 response", st)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// The index written with the records equals the one read back from them.
	for _, p := range warcFiles(t, dir) {
		if lines, read := readLines(t, p+IndexSuffix), indexOf(t, p); !slices.Equal(lines, read) {
			t.Errorf("%s: index written:\n%s\nindex read from the file:\n%s", filepath.Base(p), strings.Join(lines, ""), strings.Join(read, ""))
		}
	}
	for _, loc := range []Location{loc2, loc3} {
		rv := readAt(t, dir, loc.File, loc.Offset, loc.Length)
		checkRecordBasics(t, rv)
		for k, want := range map[string]string{
			"WARC-Type":                 "revisit",
			"WARC-Profile":              "http://netpreserve.org/warc/1.1/revisit/server-not-modified",
			"WARC-Refers-To":            loc1.RecordID,
			"WARC-Refers-To-Target-URI": "http://a.example/",
			"WARC-Refers-To-Date":       "2026-11-22T01:02:03.000Z",
			"WARC-Target-URI":           "http://a.example/",
			"WARC-Date":                 "2026-11-22T02:02:03.000Z",
			"WARC-Payload-Digest":       "",
		} {
			if got := rv.get(k); got != want {
				t.Errorf("304 revisit %s: got %q, want %q", k, got, want)
			}
		}
		if !strings.HasPrefix(string(rv.Content), "HTTP/1.1 304 Not Modified\r\n") || !strings.HasSuffix(string(rv.Content), "\r\n\r\n") {
			t.Errorf("304 revisit block is not the HTTP head: %q", rv.Content)
		}
	}
}

// TestCaptureOfDigestRevisit checks that the capture of a page archived as an
// identical-payload-digest revisit is the record holding the payload.
func TestCaptureOfDigestRevisit(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, WARCOptions{})
	defer w.Close()
	body := []byte("same body")
	loc1, err := w.WriteExchange(ctx, exchange("http://a.example/one", body, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteExchange(ctx, exchange("http://a.example/two", body, "")); err != nil {
		t.Fatal(err)
	}
	got, ok, err := w.LastCapture("http://a.example/two")
	if err != nil || !ok || got.RecordID != loc1.RecordID || got.URI != "http://a.example/one" {
		t.Errorf("LastCapture(two) = %+v, %v, %v; want record %s of http://a.example/one", got, ok, err, loc1.RecordID)
	}
}

func TestDecodeCapture(t *testing.T) {
	c := Capture{RecordID: "<urn:uuid:x>", Date: "2026-11-22T01:02:03Z", URI: "http://a.example/", Fetched: t0, ETag: `W/"1"`}
	got, ok := decodeCapture(encodeCapture(&c))
	if !ok || got != c {
		t.Errorf("decodeCapture(encodeCapture(%+v)):\n\tgot  %+v, %v", c, got, ok)
	}
	for _, bad := range []string{"", "a\nb", "\n\n\n\n\n", "id\nd\nu\nnot a time\n\n"} {
		if got, ok := decodeCapture([]byte(bad)); ok {
			t.Errorf("decodeCapture(%q) = %+v, true; want false", bad, got)
		}
	}
}
