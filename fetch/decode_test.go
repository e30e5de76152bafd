package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// encode compresses b with a content coding, for tests.
func encode(t testing.TB, coding string, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w, _ = gzip.NewWriterLevel(&buf, gzip.BestCompression)
	case "br":
		w = brotli.NewWriterLevel(&buf, brotli.BestCompression)
	case "zstd":
		zw, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		w = zw
	case "deflate": // zlib, as RFC 9110 means it
		w = zlib.NewWriter(&buf)
	case "raw-deflate": // what some servers send as "deflate"
		w, _ = flate.NewWriter(&buf, flate.BestCompression)
	default:
		t.Fatalf("encode: unknown coding %q", coding)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var page = []byte(strings.Repeat("<p>The quick brown fox jumps over the lazy dog.</p>\n", 200))

func TestCompressedBodies(t *testing.T) {
	bodies := map[string][]byte{}
	for _, c := range []string{"gzip", "br", "zstd", "deflate", "raw-deflate"} {
		bodies[c] = encode(t, c, page)
	}
	bodies["gzip, br"] = encode(t, "br", bodies["gzip"])
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		coding := r.URL.Query().Get("c")
		w.Header().Set("Content-Encoding", strings.TrimPrefix(coding, "raw-"))
		w.Header().Set("Content-Type", "text/html")
		w.Write(bodies[coding])
	})
	c := newClient(t, nil)
	for coding, raw := range bodies {
		t.Run(coding, func(t *testing.T) {
			resp, err := c.Fetch(context.Background(), &Request{URL: srv.URL + "/?c=" + strings.ReplaceAll(coding, " ", "+")})
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if resp.DecodeError != nil || !bytes.Equal(resp.Body, page) {
				t.Errorf("got %d decoded bytes, error %v; want the %d-byte page", len(resp.Body), resp.DecodeError, len(page))
			}
			if !bytes.Equal(resp.RawBody, raw) {
				t.Errorf("RawBody is not the %d bytes sent (got %d)", len(raw), len(resp.RawBody))
			}
			if !bytes.Contains(resp.RawHeader, []byte("Content-Encoding: ")) {
				t.Errorf("RawHeader %q lacks Content-Encoding", resp.RawHeader)
			}
		})
	}
}

// bomb returns a gzip stream of n zero bytes.
func bomb(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, len(zeros))
		zw.Write(zeros[:k])
		n -= k
	}
	zw.Close()
	return buf.Bytes()
}

func TestGzipBomb(t *testing.T) {
	gz := bomb(t, 64<<20) // 64 MiB of zeros in about 64 KiB
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gz)
	})
	for _, tc := range []struct {
		name    string
		edit    func(*Options)
		wantLen int
	}{
		{"ratio cap", nil, DefaultMaxRatio * len(gz)},
		{"size cap", func(o *Options) { o.MaxDecodedSize = 1 << 20 }, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, tc.edit)
			resp, err := c.Fetch(context.Background(), &Request{URL: srv.URL})
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if !errors.Is(resp.DecodeError, ErrDecodeLimit) || len(resp.Body) != tc.wantLen || len(resp.RawBody) != len(gz) {
				t.Errorf("got %d decoded bytes, error %v; want %d and ErrDecodeLimit", len(resp.Body), resp.DecodeError, tc.wantLen)
			}
		})
	}
}

// TestBombCost checks that undoing a bomb allocates on the order of the cap,
// not of what the bomb expands to: two gzip layers over 256 MiB of zeros.
func TestBombCost(t *testing.T) {
	inner := bomb(t, 256<<20)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(inner)
	zw.Close()
	raw := buf.Bytes()
	const maxDecoded = 1 << 20

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	body, err := decodeBody(raw, []string{"gzip, gzip"}, maxDecoded, DefaultMaxRatio)
	runtime.ReadMemStats(&after)

	limit := int(decodeLimit(len(raw), maxDecoded, DefaultMaxRatio))
	if !errors.Is(err, ErrDecodeLimit) || len(body) != limit {
		t.Fatalf("got %d bytes, %v; want %d and ErrDecodeLimit", len(body), err, limit)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("decoding a %d-byte bomb allocated %d bytes, want under 8 MiB", len(raw), alloc)
	}
}

func TestDecodeBody(t *testing.T) {
	gz := encode(t, "gzip", page)
	for _, tc := range []struct {
		name     string
		raw      []byte
		codings  []string
		want     []byte
		wantErr  error
		anyError bool
	}{
		{"none", page, nil, page, nil, false},
		{"identity", page, []string{"identity"}, page, nil, false},
		{"empty header value", page, []string{""}, page, nil, false},
		{"upper-case", gz, []string{"GZIP"}, page, nil, false},
		{"x-gzip", gz, []string{"x-gzip"}, page, nil, false},
		{"two header lines", encode(t, "br", gz), []string{"gzip", "br"}, page, nil, false},
		{"unsupported", page, []string{"compress"}, nil, ErrUnsupportedEncoding, false},
		{"too many layers", page, []string{"gzip, gzip, gzip, gzip"}, nil, ErrUnsupportedEncoding, false},
		{"truncated gzip", gz[:len(gz)/2], []string{"gzip"}, nil, nil, true},
		{"not gzip", page, []string{"gzip"}, nil, nil, true},
		{"not zstd", page, []string{"zstd"}, nil, nil, true},
		{"not br", page, []string{"br"}, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeBody(tc.raw, tc.codings, DefaultMaxDecodedSize, DefaultMaxRatio)
			switch {
			case tc.anyError:
				if err == nil {
					t.Errorf("decodeBody: got no error, want one")
				}
				if len(got) > len(page) || !bytes.HasPrefix(page, got) {
					t.Errorf("decodeBody: partial output %q is not a prefix of the page", got)
				}
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) || got != nil {
					t.Errorf("decodeBody:\n\tgot %d bytes, %v\n\twant nil, %v", len(got), err, tc.wantErr)
				}
			default:
				if err != nil || !bytes.Equal(got, tc.want) {
					t.Errorf("decodeBody:\n\tgot %d bytes, %v\n\twant %d bytes", len(got), err, len(tc.want))
				}
			}
		})
	}
}

// TestDecodePoolReuse decodes many bodies through the pooled readers so a
// reader left in a bad state by an error would show.
func TestDecodePoolReuse(t *testing.T) {
	for _, coding := range []string{"gzip", "br", "zstd"} {
		good := encode(t, coding, page)
		for i := range 6 {
			in := good
			if i%2 == 1 {
				in = good[:len(good)/3] // truncated: an error, then the reader goes back to the pool
			}
			got, err := decodeBody(in, []string{coding}, DefaultMaxDecodedSize, DefaultMaxRatio)
			if i%2 == 0 && (err != nil || !bytes.Equal(got, page)) {
				t.Fatalf("%s round %d: got %d bytes, %v", coding, i, len(got), err)
			}
			if i%2 == 1 && err == nil {
				t.Fatalf("%s round %d: truncated input decoded without error", coding, i)
			}
		}
	}
}
