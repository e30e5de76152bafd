package storage

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/json"
	"io"
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

// identifyPayload returns the media type of an HTTP payload as sniffed from
// its bytes (the WHATWG MIME Sniffing algorithm of net/http.DetectContentType,
// then JSON recognised), without parameters: what WARC-Identified-Payload-Type
// records. The payload is decoded first when the response head names a
// content coding (gzip, deflate, br). It returns "" when there is nothing to
// identify: an empty payload, or a coding it cannot undo.
func identifyPayload(respHead, body []byte) string {
	if len(body) == 0 {
		return ""
	}
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

// contentEncoding returns the last content coding an HTTP head names,
// lower-cased, or "".
func contentEncoding(head []byte) string {
	coding := ""
	for rest := head; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !strings.EqualFold(string(bytes.TrimSpace(name)), "Content-Encoding") {
			continue
		}
		for c := range strings.SplitSeq(string(value), ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
				coding = c
			}
		}
	}
	return coding
}
