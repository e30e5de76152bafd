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

// TestIdentifyPayload is a table of declared type × payload: the identified
// type only refines a generic declaration, and never contradicts a specific
// one (ReplayWeb.page serves a record with its identified type).
func TestIdentifyPayload(t *testing.T) {
	const (
		html   = "<!DOCTYPE html><html><head><title>x</title></head></html>"
		xhtml  = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>` + "\n" + `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head></html>`
		css    = "body { color: #333; background: url(bg.png) }\n"
		oldCSS = "<!--\nbody { color: #333 }\n-->\n" // sniffs as HTML
		svg    = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`
		bare   = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`
		js     = "document.body.append('x');\n"
		oldJS  = "<!-- hide\nvar x = 1;\n// -->\n" // sniffs as HTML
		jsn    = ` {"a": [1, 2]}`
		png    = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
		gif    = "GIF89a\x01\x00\x01\x00"
		woff2  = "wOF2\x00\x01\x00\x00"
		woff   = "wOFF\x00\x01\x00\x00"
		ttf    = "\x00\x01\x00\x00\x00\x10\x01\x00"
		pdf    = "%PDF-1.7\n"
		xml    = `<?xml version="1.0"?><urlset/>`
	)
	head := func(ct string, more ...string) string {
		h := "HTTP/1.1 200 OK\r\n"
		if ct != "" {
			h += "Content-Type: " + ct + "\r\n"
		}
		for _, m := range more {
			h += m + "\r\n"
		}
		return h + "\r\n"
	}
	gz := "Content-Encoding: gzip"
	tests := []struct {
		name, head, body, want string
	}{
		// A specific declared type is kept, whatever the bytes sniff as.
		{"xhtml as text/html", head("text/html"), xhtml, ""},
		{"xhtml as text/html; charset", head("text/html; charset=UTF-8"), xhtml, ""},
		{"xhtml as application/xhtml+xml", head("application/xhtml+xml"), xhtml, ""},
		{"html as text/html", head("text/html"), html, ""},
		{"css as text/css", head("text/css"), css, ""},
		{"css starting <!-- as text/css", head("text/css"), oldCSS, ""},
		{"svg with <?xml as image/svg+xml", head("image/svg+xml"), svg, ""},
		{"svg as image/svg+xml", head("image/svg+xml"), bare, ""},
		{"js as text/javascript", head("text/javascript"), js, ""},
		{"js as application/javascript", head("application/javascript"), js, ""},
		{"js starting <!-- as application/x-javascript", head("application/x-javascript"), oldJS, ""},
		{"json as application/json", head("application/json"), jsn, ""},
		{"json as application/ld+json", head("application/ld+json"), jsn, ""},
		{"woff2 as font/woff2", head("font/woff2"), woff2, ""},
		{"woff as application/font-woff", head("application/font-woff"), woff, ""},
		{"ttf as application/x-font-ttf", head("application/x-font-ttf"), ttf, ""},
		{"png as image/png", head("image/png"), png, ""},
		{"png as image/jpeg", head("image/jpeg"), png, ""},
		{"gif as image/x-icon", head("image/x-icon"), gif, ""},
		{"png as text/html", head("text/html"), png, ""},
		{"pdf as application/pdf", head("application/pdf"), pdf, ""},
		{"xml as application/xml", head("application/xml"), xml, ""},
		{"gzip-coded css as text/css", head("text/css", gz), string(gzipped([]byte(oldCSS))), ""},
		// text/plain: JSON refines it; markup would change how it shows.
		{"json as text/plain", head("text/plain"), jsn, "application/json"},
		{"not json as text/plain", head("text/plain"), `{"a": `, ""},
		{"html as text/plain", head("text/plain"), html, ""},
		{"png as text/plain", head("text/plain"), png, ""},
		// No type, or a generic one: a browser sniffs, and so do we.
		{"html, no type", head(""), html, "text/html"},
		{"xhtml, no type", head(""), xhtml, "text/xml"},
		{"png as application/octet-stream", head("application/octet-stream"), png, "image/png"},
		{"woff2 as application/octet-stream", head("application/octet-stream"), woff2, "font/woff2"},
		{"ttf as binary/octet-stream", head("binary/octet-stream"), ttf, "font/ttf"},
		{"pdf as unknown/unknown", head("unknown/unknown"), pdf, "application/pdf"},
		{"json, no type", head(""), jsn, "application/json"},
		{"html as a malformed type", head("html"), html, "text/html"},
		{"gzip-coded png as application/octet-stream", head("application/octet-stream", gz), string(gzipped([]byte(png))), "image/png"},
		// The sniff adds nothing: nothing is written.
		{"css, no type", head(""), css, ""},
		{"js as application/octet-stream", head("application/octet-stream"), js, ""},
		{"binary as application/octet-stream", head("application/octet-stream"), "\x00\x01\x02\x03", ""},
		{"gzip coding, body not gzip", head("", gz), html, ""},
		{"unknown coding", head("", "Content-Encoding: zstd2"), html, ""},
		{"empty", head(""), "", ""},
		// The last declared type counts, as a browser takes it.
		{"two fields, the last generic", head("text/css", "Content-Type: application/octet-stream"), png, "image/png"},
		{"one field, two types", head("application/octet-stream, text/css"), oldCSS, ""},
	}
	for _, tt := range tests {
		if got := identifyPayload([]byte(tt.head), []byte(tt.body)); got != tt.want {
			t.Errorf("%s: identifyPayload(%q, %.20q…):\n\tgot  %q\n\twant %q", tt.name, tt.head, tt.body, got, tt.want)
		}
	}
}

// TestIdentifiedPayloadTypeField checks the field on response records, read
// back with gowarc: there on a PNG served as application/octet-stream, absent
// on an XHTML page served as text/html and on revisit records.
func TestIdentifiedPayloadTypeField(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, NoSync: true})
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR and more")
	for _, u := range []string{"http://a.example/1", "http://a.example/2"} {
		ex := exchange(u, png, "")
		ex.ResponseHeader = bytes.Replace(ex.ResponseHeader, []byte("text/html; charset=utf-8"), []byte("application/octet-stream"), 1)
		if _, err := w.WriteExchange(context.Background(), ex); err != nil {
			t.Fatal(err)
		}
	}
	xhtml := []byte(`<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head></html>`)
	if _, err := w.WriteExchange(context.Background(), exchange("http://a.example/x.html", xhtml, "")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, r := range readDir(t, dir) {
		got := r.get("WARC-Identified-Payload-Type")
		switch r.get("WARC-Type") {
		case "response":
			want := "image/png"
			if r.get("WARC-Target-URI") == "http://a.example/x.html" {
				want = ""
			}
			if got != want {
				t.Errorf("response of %s: WARC-Identified-Payload-Type %q, want %q", r.get("WARC-Target-URI"), got, want)
			}
		case "revisit", "request", "warcinfo":
			if got != "" {
				t.Errorf("%s: WARC-Identified-Payload-Type %q, want none", r.get("WARC-Type"), got)
			}
		}
	}
}

// TestConversionRecord checks the conversion record of Exchange.Text: after
// the response, pointing at it, holding the text, with the languages detected as
// Common Crawl writes them, and not in the index; the metadata record has a
// language field per language.
func TestConversionRecord(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, NoSync: true})
	ex := exchange("http://a.example/page", []byte("<title>T</title><p>Hello, world"), "")
	ex.Metadata = &Metadata{TargetURI: ex.TargetURI, Languages: []Language{{"en", "Latn", 0.9}, {"ja", "Jpan", 0.1234}}}
	ex.Text = "T\nHello, world \xff"
	ex.TextLanguages = []string{"eng", "jpn"}
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
		c.get("WARC-Block-Digest") != sha1B32(c.Content) || c.get("WARC-Identified-Content-Language") != "eng,jpn" {
		t.Errorf("conversion record %v %q", c.Header, c.Content)
	}
	if m := string(recs[3].Content); !strings.Contains(m, "language: en Latn 0.900\r\nlanguage: ja Jpan 0.123\r\n") {
		t.Errorf("metadata record %q: no language fields", m)
	}
	if lines := indexOf(t, filepath.Join(dir, loc.File)); len(lines) != 1 {
		t.Errorf("index %q, want the response alone", lines)
	}
}
