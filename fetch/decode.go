package fetch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// Errors reported in Response.DecodeError.
var (
	// ErrDecodeLimit: decoding stopped at Options.MaxDecodedSize or at
	// Options.MaxRatio times the received size (a cap that applies only past
	// 1 MiB decoded); Body holds the decoded prefix.
	ErrDecodeLimit = errors.New("fetch: decoded body exceeds limit")
	// ErrUnsupportedEncoding: the Content-Encoding is not one of gzip, x-gzip,
	// br, zstd, deflate or identity, or has more than maxCodings layers; Body is nil.
	ErrUnsupportedEncoding = errors.New("fetch: unsupported content encoding")
)

// maxCodings bounds how many stacked content codings are undone.
const maxCodings = 3

// zstdMaxWindow is the largest zstd window accepted: RFC 9659 has HTTP encoders
// keep to 8 MiB, and it bounds what a hostile frame header can make us allocate.
const zstdMaxWindow = 8 << 20

// ratioFloor is the decoded size, in bytes, below which the ratio cap does not
// apply: a small, highly repetitive page (a 100-byte br stream of a 10 KB page)
// is no bomb, and decoding 1 MiB costs nothing worth guarding.
const ratioFloor = 1 << 20

// decodeLimit is the most bytes decodeBody produces from rawLen received bytes:
// maxRatio times rawLen (but at least ratioFloor), and never more than maxDecoded.
func decodeLimit(rawLen int, maxDecoded int64, maxRatio int) int64 {
	return min(maxDecoded, max(int64(maxRatio)*int64(rawLen), ratioFloor))
}

// decodeBody removes the content codings listed in the Content-Encoding header
// values from raw, last applied first. The result is at most
// decodeLimit(len(raw), maxDecoded, maxRatio) bytes; beyond that decoding stops
// with ErrDecodeLimit, so a bomb costs at most that much memory and time. With
// no coding the result is raw itself.
func decodeBody(raw []byte, contentEncoding []string, maxDecoded int64, maxRatio int) ([]byte, error) {
	var codings []string
	for _, v := range contentEncoding {
		for c := range strings.SplitSeq(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	if len(codings) == 0 {
		return raw, nil
	}
	if len(codings) > maxCodings {
		return nil, fmt.Errorf("%w: %d stacked codings", ErrUnsupportedEncoding, len(codings))
	}
	limit := decodeLimit(len(raw), maxDecoded, maxRatio)
	body := raw
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		body, err = decodeOne(codings[i], body, limit)
		if err != nil {
			return body, err
		}
	}
	return body, nil
}

// decodeOne undoes one coding, reading at most limit bytes of output.
func decodeOne(coding string, in []byte, limit int64) ([]byte, error) {
	switch coding {
	case "gzip", "x-gzip":
		zr, _ := gzipPool.Get().(*gzip.Reader)
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(bytes.NewReader(in))
		} else {
			err = zr.Reset(bytes.NewReader(in))
		}
		if err != nil {
			return nil, fmt.Errorf("fetch: decode gzip: %w", err)
		}
		out, err := readLimited(zr, coding, limit, len(in))
		gzipPool.Put(zr)
		return out, err
	case "br":
		br, _ := brotliPool.Get().(*brotli.Reader)
		if br == nil {
			br = brotli.NewReader(bytes.NewReader(in))
		} else if err := br.Reset(bytes.NewReader(in)); err != nil {
			return nil, fmt.Errorf("fetch: decode br: %w", err)
		}
		out, err := readLimited(br, coding, limit, len(in))
		brotliPool.Put(br)
		return out, err
	case "zstd":
		zd, _ := zstdPool.Get().(*zstd.Decoder)
		var err error
		if zd == nil {
			zd, err = zstd.NewReader(bytes.NewReader(in),
				zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderLowmem(true),
				zstd.WithDecoderMaxWindow(zstdMaxWindow),
				zstd.WithDecoderMaxMemory(uint64(DefaultMaxDecodedSize)*4))
		} else {
			err = zd.Reset(bytes.NewReader(in))
		}
		if err != nil {
			return nil, fmt.Errorf("fetch: decode zstd: %w", err)
		}
		out, err := readLimited(zd, coding, limit, len(in))
		zd.Reset(nil) // release the input; a decoder with concurrency 1 has no goroutines
		zstdPool.Put(zd)
		return out, err
	case "deflate":
		// "deflate" means zlib (RFC 9110 §8.4.1.2), but servers often send raw
		// DEFLATE; a zlib stream starts with a header whose checksum is a
		// multiple of 31.
		var r io.ReadCloser
		if len(in) >= 2 && in[0]&0x0f == 8 && (uint16(in[0])<<8|uint16(in[1]))%31 == 0 {
			zr, err := zlib.NewReader(bytes.NewReader(in))
			if err != nil {
				return nil, fmt.Errorf("fetch: decode deflate: %w", err)
			}
			r = zr
		} else {
			r = flate.NewReader(bytes.NewReader(in))
		}
		defer r.Close()
		return readLimited(r, coding, limit, len(in))
	}
	return nil, fmt.Errorf("%w: %q", ErrUnsupportedEncoding, coding)
}

var gzipPool, brotliPool, zstdPool sync.Pool

// readLimited reads r to EOF or to limit bytes. Past limit it returns the first
// limit bytes and ErrDecodeLimit; on a decoder error, what was decoded and the
// error.
func readLimited(r io.Reader, coding string, limit int64, inLen int) ([]byte, error) {
	buf := make([]byte, 0, min(limit+1, int64(inLen)*4+512))
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := int(min(int64(cap(buf)), limit+1))
		n, err := r.Read(buf[len(buf):room])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf[:limit], fmt.Errorf("%w: %s decodes to more than %d bytes", ErrDecodeLimit, coding, limit)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, fmt.Errorf("fetch: decode %s: %w", coding, err)
		}
	}
}
