package fetch

import (
	"bytes"
	"context"
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
	return decodeBudgeted(context.Background(), raw, contentEncoding, maxDecoded, maxRatio, nil)
}

// contentCodings returns the codings of Content-Encoding header values, in the
// order applied, without "identity".
func contentCodings(contentEncoding []string) []string {
	var codings []string
	for _, v := range contentEncoding {
		for c := range strings.SplitSeq(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	return codings
}

// decodeBudgeted is decodeBody with the output read into pooled buffers reserved
// in acct. An intermediate buffer (stacked codings) goes back to the pool when
// the next coding has been undone; the result stays reserved.
func decodeBudgeted(ctx context.Context, raw []byte, contentEncoding []string, maxDecoded int64, maxRatio int, acct *account) ([]byte, error) {
	codings := contentCodings(contentEncoding)
	if len(codings) == 0 {
		return raw, nil
	}
	if len(codings) > maxCodings {
		return nil, fmt.Errorf("%w: %d stacked codings", ErrUnsupportedEncoding, len(codings))
	}
	limit := decodeLimit(len(raw), maxDecoded, maxRatio)
	d := decoder{ctx: ctx, acct: acct}
	body := raw
	for i := len(codings) - 1; i >= 0; i-- {
		out, err := d.decodeOne(codings[i], body, limit)
		if i < len(codings)-1 { // body is an intermediate result, not raw
			acct.release(int64(cap(body)))
			putBuf(body)
		}
		body = out
		if err != nil {
			return body, err
		}
	}
	return body, nil
}

// decoder undoes content codings into pooled buffers reserved in acct.
type decoder struct {
	ctx  context.Context
	acct *account
}

// decodeOne undoes one coding, reading at most limit bytes of output.
func (d decoder) decodeOne(coding string, in []byte, limit int64) ([]byte, error) {
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
		out, err := d.readLimited(zr, coding, limit, len(in))
		gzipPool.Put(zr)
		return out, err
	case "br":
		br, _ := brotliPool.Get().(*brotli.Reader)
		if br == nil {
			br = brotli.NewReader(bytes.NewReader(in))
		} else if err := br.Reset(bytes.NewReader(in)); err != nil {
			return nil, fmt.Errorf("fetch: decode br: %w", err)
		}
		out, err := d.readLimited(br, coding, limit, len(in))
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
		out, err := d.readLimited(zd, coding, limit, len(in))
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
		return d.readLimited(r, coding, limit, len(in))
	}
	return nil, fmt.Errorf("%w: %q", ErrUnsupportedEncoding, coding)
}

var gzipPool, brotliPool, zstdPool sync.Pool

// readLimited reads r to EOF or to limit bytes. Past limit it returns the first
// limit bytes and ErrDecodeLimit; on a decoder error, what was decoded and the
// error.
func (d decoder) readLimited(r io.Reader, coding string, limit int64, inLen int) ([]byte, error) {
	hint := min(limit, int64(inLen)*4+512)
	buf, over, err := readPooled(d.ctx, r, hint, limit, d.acct)
	if over {
		return buf, fmt.Errorf("%w: %s decodes to more than %d bytes", ErrDecodeLimit, coding, limit)
	}
	if err != nil && buf == nil {
		return nil, err // the budget refused: ctx ended
	}
	if err != nil {
		return buf, fmt.Errorf("fetch: decode %s: %w", coding, err)
	}
	return buf, nil
}

// DecodeBody removes the content codings listed in Content-Encoding header values
// from a body as received (an archived one, say), as a fetch does: at most maxDecoded
// bytes (0: DefaultMaxDecodedSize) and DefaultMaxRatio times the received size, beyond
// which it stops with ErrDecodeLimit. With no coding the result is raw itself.
func DecodeBody(raw []byte, contentEncoding []string, maxDecoded int64) ([]byte, error) {
	if maxDecoded <= 0 {
		maxDecoded = DefaultMaxDecodedSize
	}
	return decodeBody(raw, contentEncoding, maxDecoded, DefaultMaxRatio)
}
