package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"testing/iotest"
)

// recordBudget is a Budget that grants everything and records what it was asked.
type recordBudget struct {
	mu       sync.Mutex
	held     int64
	peak     int64
	claims   []int64
	reserved []int64
	refuse   error // when set, Reserve fails with it
}

func (b *recordBudget) Reserve(ctx context.Context, n, claim int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refuse != nil {
		return b.refuse
	}
	b.held += n
	b.peak = max(b.peak, b.held)
	b.claims = append(b.claims, claim)
	b.reserved = append(b.reserved, n)
	return nil
}

func (b *recordBudget) Release(n int64) {
	b.mu.Lock()
	b.held -= n
	b.mu.Unlock()
}

func TestReadPooled(t *testing.T) {
	for _, tc := range []struct {
		name        string
		size        int
		hint, limit int64
		wantLen     int
		wantOver    bool
		wantBuffers int // buffers reserved in turn
	}{
		{"known length", 100 << 10, 100 << 10, 1 << 20, 100 << 10, false, 1},
		{"known length over the limit", 300 << 10, 300 << 10, 200 << 10, 200 << 10, true, 1},
		{"known empty", 0, 0, 1 << 20, 0, false, 0},
		{"unknown length", 100 << 10, -1, 1 << 20, 100 << 10, false, 3}, // 32, 64, 128 KiB
		{"unknown length at the limit", 64 << 10, -1, 64 << 10, 64 << 10, false, 2},
		{"unknown length over the limit", 65 << 10, -1, 64 << 10, 64 << 10, true, 2},
		{"short hint", 100 << 10, 10 << 10, 1 << 20, 100 << 10, false, 4}, // 10, 32, 64, 128 KiB
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := bytes.Repeat([]byte("x"), tc.size)
			b := new(recordBudget)
			acct := &account{budget: b, claim: 1 << 30}
			// One byte per Read at the end of each buffer tests the probe too.
			buf, over, err := readPooled(context.Background(), iotest.HalfReader(bytes.NewReader(body)), tc.hint, tc.limit, acct)
			if err != nil || len(buf) != tc.wantLen || over != tc.wantOver || !bytes.Equal(buf, body[:len(buf)]) {
				t.Fatalf("readPooled:\n\tgot %d bytes, over %v, %v\n\twant %d bytes, over %v", len(buf), over, err, tc.wantLen, tc.wantOver)
			}
			if len(b.reserved) != tc.wantBuffers || b.held != int64(cap(buf)) {
				t.Errorf("reserved %v, holding %d; want %d buffers, holding the last (%d)", b.reserved, b.held, tc.wantBuffers, cap(buf))
			}
		})
	}
}

// TestReadPooledError checks that what was read comes back with a read error, and
// that a refused reservation leaves nothing reserved.
func TestReadPooledError(t *testing.T) {
	boom := errors.New("boom")
	b := new(recordBudget)
	r := io.MultiReader(bytes.NewReader(make([]byte, 40<<10)), iotest.ErrReader(boom))
	buf, _, err := readPooled(context.Background(), r, -1, 1<<20, &account{budget: b, claim: 1 << 20})
	if !errors.Is(err, boom) || len(buf) != 40<<10 || b.held != int64(cap(buf)) {
		t.Errorf("got %d bytes, %v, %d held; want 40 KiB, boom, its buffer held", len(buf), err, b.held)
	}
	b = &recordBudget{refuse: context.Canceled}
	buf, _, err = readPooled(context.Background(), bytes.NewReader(make([]byte, 40<<10)), -1, 1<<20, &account{budget: b, claim: 1 << 20})
	if !errors.Is(err, context.Canceled) || buf != nil || b.held != 0 {
		t.Errorf("refused: got %d bytes, %v, %d held; want nil, context.Canceled, 0", len(buf), err, b.held)
	}
}

// TestFetchBudget checks that a fetch reserves every buffer it takes before taking
// it, within the claim it declares, and keeps reserved exactly what the Response
// holds: for a plain body with and without Content-Length, and for a gzip bomb.
func TestFetchBudget(t *testing.T) {
	plain := bytes.Repeat([]byte("<p>x</p>"), 64<<10) // 512 KiB
	gz := bomb(t, 9<<20)                              // past the 8 MiB cap
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/length":
			w.Header().Set("Content-Length", strconv.Itoa(len(plain)))
			w.Write(plain)
		case "/chunked":
			for i := 0; i < len(plain); i += 8 << 10 {
				w.Write(plain[i : i+8<<10])
				w.(http.Flusher).Flush()
			}
		case "/bomb":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz)
		}
	})
	c := newClient(t, func(o *Options) { o.MaxDecodedSize, o.MaxRatio = 8<<20, 1000 })
	for _, path := range []string{"/length", "/chunked", "/bomb"} {
		t.Run(path, func(t *testing.T) {
			b := new(recordBudget)
			resp, err := c.Fetch(context.Background(), &Request{URL: srv.URL + path, Budget: b})
			if err != nil {
				t.Fatal(err)
			}
			held := int64(cap(resp.RawBody))
			if path == "/bomb" {
				held += int64(cap(resp.Body))
				if !errors.Is(resp.DecodeError, ErrDecodeLimit) || len(resp.Body) != 8<<20 {
					t.Errorf("bomb: got %d bytes, %v; want 8 MiB and ErrDecodeLimit", len(resp.Body), resp.DecodeError)
				}
			} else if !bytes.Equal(resp.Body, plain) {
				t.Errorf("got %d bytes, want the %d-byte page", len(resp.Body), len(plain))
			}
			if b.held != held {
				t.Errorf("%d bytes reserved after Fetch, want %d (the response's buffers)", b.held, held)
			}
			for _, claim := range b.claims {
				if claim != b.claims[0] || b.peak > claim {
					t.Errorf("claims %v, peak %d: want one claim, never exceeded", b.claims, b.peak)
					break
				}
			}
			if path == "/length" && len(b.reserved) != 1 {
				t.Errorf("reserved %v: want one buffer sized by Content-Length", b.reserved)
			}
			resp.Release()
			if resp.Body != nil || resp.RawBody != nil {
				t.Errorf("Release left the bodies")
			}
		})
	}
}

// TestFetchBudgetRefused checks that a fetch whose budget refuses (its context
// ended while waiting) fails with the context's error.
func TestFetchBudgetRefused(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<p>hello</p>")) })
	c := newClient(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Fetch(context.Background(), &Request{URL: srv.URL, Budget: &recordBudget{refuse: ctx.Err()}})
	var fe *Error
	if !errors.As(err, &fe) || !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want an *Error wrapping context.Canceled", err)
	}
}

// TestUnknownLengthAllocation checks that a 10 MiB body sent without
// Content-Length is read with a bounded number of bytes allocated: buffers that
// double from 32 KiB, under 3.5 times the body. Growing from 512 bytes by append
// allocated 5 times the body (50 MB).
func TestUnknownLengthAllocation(t *testing.T) {
	const size = 10 << 20
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	r := func() io.Reader {
		rs := make([]io.Reader, size/len(chunk))
		for i := range rs {
			rs[i] = bytes.NewReader(chunk)
		}
		return io.MultiReader(rs...)
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	buf, over, err := readPooled(context.Background(), r(), -1, 16<<20, nil)
	runtime.ReadMemStats(&m1)
	if err != nil || over || len(buf) != size {
		t.Fatalf("got %d bytes, over %v, %v", len(buf), over, err)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > size*7/2 {
		t.Errorf("reading %d bytes allocated %d, want at most %d", size, alloc, size*7/2)
	}
}

// TestBombDecodeAllocation checks that decoding a gzip bomb to an 8 MiB cap
// allocates at most 2.5 times the cap (buffers that double), where growing by
// append allocated about 5 times the cap (174 MB for the former 32 MiB cap).
func TestBombDecodeAllocation(t *testing.T) {
	const maxDecoded = 8 << 20
	gz := bomb(t, 9<<20)
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	body, err := decodeBody(gz, []string{"gzip"}, maxDecoded, 1000)
	runtime.ReadMemStats(&m1)
	if !errors.Is(err, ErrDecodeLimit) || len(body) != maxDecoded {
		t.Fatalf("got %d bytes, %v; want %d and ErrDecodeLimit", len(body), err, maxDecoded)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > maxDecoded*5/2 {
		t.Errorf("decoding allocated %d bytes, want at most %d", alloc, maxDecoded*5/2)
	}
}

// TestRequestMaxDecodedSize checks that a request's own decoded-size cap (robots.txt
// asks for 500 KiB) replaces the client's.
func TestRequestMaxDecodedSize(t *testing.T) {
	gz := bomb(t, 4<<20)
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(gz)))
		w.Write(gz)
	})
	c := newClient(t, func(o *Options) { o.MaxRatio = 1000 })
	const want = 500<<10 + 1
	b := new(recordBudget)
	resp, err := c.Fetch(context.Background(), &Request{URL: srv.URL, MaxDecodedSize: want, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Body) != want || !errors.Is(resp.DecodeError, ErrDecodeLimit) {
		t.Errorf("got %d bytes, %v; want %d and ErrDecodeLimit", len(resp.Body), resp.DecodeError, want)
	}
	if b.claims[0] > 2<<20 { // the bomb and twice the 500 KiB decoded, in buffer sizes
		t.Errorf("claimed %d bytes for a body decoded to %d at most", b.claims[0], want)
	}
}
