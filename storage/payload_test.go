package storage

import (
	"bytes"
	"compress/gzip"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestIdentifyPayload(t *testing.T) {
	html := []byte("<!DOCTYPE html><html><head><title>x</title></head></html>")
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	plain := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"
	gz := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n"
	tests := []struct {
		name, head string
		body       []byte
		want       string
	}{
		{"html served as text/plain", plain, html, "text/html"},
		{"png", plain, png, "image/png"},
		{"json", plain, []byte(` {"a": [1, 2]}`), "application/json"},
		{"not json", plain, []byte(`{"a": `), "text/plain"},
		{"pdf", plain, []byte("%PDF-1.7\n"), "application/pdf"},
		{"xml", plain, []byte(`<?xml version="1.0"?><urlset/>`), "text/xml"},
		{"gzip coding undone", gz, gzipped(html), "text/html"},
		{"gzip coding, body not gzip", gz, html, ""},
		{"unknown coding", "HTTP/1.1 200 OK\r\nContent-Encoding: zstd2\r\n\r\n", html, ""},
		{"empty", plain, nil, ""},
	}
	for _, tt := range tests {
		if got := identifyPayload([]byte(tt.head), tt.body); got != tt.want {
			t.Errorf("%s: identifyPayload:\n\tgot  %q\n\twant %q", tt.name, got, tt.want)
		}
	}
}

// TestIdentifiedPayloadTypeField checks the field on response records, read
// back with gowarc, and its absence on revisit records.
func TestIdentifiedPayloadTypeField(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, NoSync: true})
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR and more")
	for _, u := range []string{"http://a.example/1", "http://a.example/2"} {
		if _, err := w.WriteExchange(context.Background(), exchange(u, png, "")); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, r := range readDir(t, dir) {
		got := r.get("WARC-Identified-Payload-Type")
		switch r.get("WARC-Type") {
		case "response":
			if got != "image/png" {
				t.Errorf("response: WARC-Identified-Payload-Type %q, want image/png", got)
			}
		case "revisit", "request", "warcinfo":
			if got != "" {
				t.Errorf("%s: WARC-Identified-Payload-Type %q, want none", r.get("WARC-Type"), got)
			}
		}
	}
}

// TestConversionRecord checks the conversion record of Exchange.Text: after
// the response, pointing at it, holding the text, and not in the index.
func TestConversionRecord(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, NoSync: true})
	ex := exchange("http://a.example/page", []byte("<title>T</title><p>Hello, world"), "")
	ex.Metadata = &Metadata{TargetURI: ex.TargetURI}
	ex.Text = "T\nHello, world \xff"
	loc, err := w.WriteExchange(context.Background(), ex)
	if err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Conversions != 1 {
		t.Errorf("Stats().Conversions = %d, want 1", st.Conversions)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readDir(t, dir)
	var types []string
	for _, r := range recs {
		types = append(types, r.get("WARC-Type"))
	}
	if got := strings.Join(types, " "); got != "warcinfo request response metadata conversion" {
		t.Fatalf("records %q", got)
	}
	c := recs[4]
	if c.get("WARC-Refers-To") != loc.RecordID || c.get("WARC-Target-URI") != ex.TargetURI ||
		c.get("Content-Type") != "text/plain; charset=utf-8" || string(c.Content) != "T\nHello, world \uFFFD" ||
		c.get("WARC-Block-Digest") != sha1B32(c.Content) {
		t.Errorf("conversion record %v %q", c.Header, c.Content)
	}
	if lines := indexOf(t, filepath.Join(dir, loc.File)); len(lines) != 1 {
		t.Errorf("index %q, want the response alone", lines)
	}
}
