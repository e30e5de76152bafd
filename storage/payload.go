package storage

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

// sniffLen is how many bytes of a payload identifyPayload looks at, as
// net/http.DetectContentType does.
const sniffLen = 512

// maxJSONSniff is the largest payload checked whole for JSON, in bytes.
const maxJSONSniff = 1 << 20

// identifyPayload returns what WARC-Identified-Payload-Type records of an
// HTTP payload: a media type, without parameters, sniffed from its bytes
// (the WHATWG MIME Sniffing algorithm of net/http.DetectContentType, then
// JSON recognised), or "" when the sniff adds nothing to the type the
// response declared.
//
// Replay tools serve a record with its identified type in place of the
// declared one (ReplayWeb.page 2.5 does), so an identified type must never
// change how a browser treats the payload. It only refines a declaration:
//   - no Content-Type, or a generic one (application/octet-stream, unknown
//     types), which a browser sniffs itself: the sniffed type, if specific;
//   - text/plain holding JSON: application/json, which a browser shows as it
//     shows text;
//   - any other declared type is kept: XHTML served as text/html stays HTML
//     although it sniffs as text/xml, and CSS, JavaScript, SVG, fonts and
//     images keep theirs; "" is returned.
//
// A generic sniff (text/plain, application/octet-stream) is never returned.
// The payload is decoded first when the response head names a content coding
// (gzip, deflate, br); a coding it cannot undo gives "".
func identifyPayload(respHead, body []byte) string {
	declared := declaredType(respHead)
	if len(body) == 0 || !genericType(declared) && declared != "text/plain" {
		return ""
	}
	mt := sniffPayload(respHead, body)
	switch {
	case mt == "" || mt == "text/plain" || mt == "application/octet-stream" || mt == declared:
		return ""
	case declared == "text/plain" && mt != "application/json":
		return ""
	}
	return mt
}

// sniffPayload returns the media type of a payload sniffed from its bytes,
// without parameters, or "" when there is nothing to sniff: an empty payload
// or a content coding it cannot undo.
func sniffPayload(respHead, body []byte) string {
	sample, whole := body, true
	if coding := contentEncoding(respHead); coding != "" && coding != "identity" {
		var r io.Reader
		var err error
		switch coding {
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(bytes.NewReader(body))
		case "deflate":
			if r, err = zlib.NewReader(bytes.NewReader(body)); err != nil {
				r, err = flate.NewReader(bytes.NewReader(body)), nil
			}
		case "br":
			r = brotli.NewReader(bytes.NewReader(body))
		default:
			return ""
		}
		if err != nil {
			return ""
		}
		buf := make([]byte, sniffLen)
		n, _ := io.ReadFull(r, buf)
		if n == 0 {
			return ""
		}
		sample, whole = buf[:n], false
	}
	mt := http.DetectContentType(sample)
	mt, _, _ = strings.Cut(mt, ";")
	if mt == "text/plain" && whole && len(sample) <= maxJSONSniff {
		if t := bytes.TrimSpace(sample); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
			return "application/json"
		}
	}
	return mt
}

// genericType reports whether a declared media type (lower case, without
// parameters) says nothing a browser relies on: it is absent, or one of the
// types the WHATWG MIME Sniffing standard sniffs as unknown.
func genericType(mt string) bool {
	switch mt {
	case "", "application/octet-stream", "binary/octet-stream", "application/unknown",
		"unknown/unknown", "*/*", "application/x-unknown", "application/x-unknown-content-type":
		return true
	}
	return !strings.Contains(mt, "/")
}

// declaredType returns the media type the last Content-Type field of an
// HTTP head declares, lower-cased and without parameters; of a field listing
// several types, the last one, as a browser takes it. It returns "" when no
// field declares one.
func declaredType(head []byte) string {
	declared := ""
	for v := range headerItems(head, "Content-Type") {
		if mt, _, _ := strings.Cut(v, ";"); strings.TrimSpace(mt) != "" {
			declared = strings.TrimSpace(mt)
		}
	}
	return declared
}

// contentEncoding returns the last content coding an HTTP head names,
// lower-cased, or "".
func contentEncoding(head []byte) string {
	coding := ""
	for c := range headerItems(head, "Content-Encoding") {
		coding = c
	}
	return coding
}

// headerItems yields the comma-separated items of the fields of an HTTP head
// named name, in order, trimmed and lower-cased; empty items are skipped.
func headerItems(head []byte, name string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for rest := head; len(rest) > 0; {
			var line []byte
			line, rest, _ = bytes.Cut(rest, []byte("\n"))
			n, value, ok := bytes.Cut(line, []byte(":"))
			if !ok || !strings.EqualFold(string(bytes.TrimSpace(n)), name) {
				continue
			}
			for item := range strings.SplitSeq(string(value), ",") {
				if item = strings.ToLower(strings.TrimSpace(item)); item != "" && !yield(item) {
					return
				}
			}
		}
	}
}
