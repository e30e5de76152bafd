package audit

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"io"
	"net/http/httputil"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// decodeBody returns a robots.txt body as the crawler read it: the chunked transfer
// coding removed when the record kept it (politecrawl's records do not; wget's do),
// then the content codings undone, at most maxRobotsBody bytes. A body it cannot
// decode is returned as far as it went, as a crawler parsing it leniently would.
func decodeBody(raw []byte, chunked bool, contentEncoding string) []byte {
	if chunked {
		if b, err := io.ReadAll(io.LimitReader(httputil.NewChunkedReader(bufio.NewReader(bytes.NewReader(raw))), 4*maxRobotsBody)); err == nil || len(b) > 0 {
			raw = b
		}
	}
	codings := strings.Split(contentEncoding, ",")
	for i := len(codings) - 1; i >= 0; i-- {
		c := strings.ToLower(strings.TrimSpace(codings[i]))
		var r io.Reader
		switch c {
		case "", "identity":
			continue
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				return raw
			}
			r = zr
		case "deflate":
			// Servers send zlib streams (RFC 9110) or, wrongly, raw deflate.
			if zr, err := zlib.NewReader(bytes.NewReader(raw)); err == nil {
				r = zr
			} else {
				r = flate.NewReader(bytes.NewReader(raw))
			}
		case "br":
			r = brotli.NewReader(bytes.NewReader(raw))
		case "zstd":
			zr, err := zstd.NewReader(bytes.NewReader(raw), zstd.WithDecoderMaxMemory(64<<20))
			if err != nil {
				return raw
			}
			defer zr.Close()
			r = zr
		default:
			return raw
		}
		b, _ := io.ReadAll(io.LimitReader(r, maxRobotsBody))
		raw = b
	}
	if len(raw) > maxRobotsBody {
		raw = raw[:maxRobotsBody]
	}
	return raw
}
