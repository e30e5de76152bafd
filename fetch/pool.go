package fetch

import (
	"context"
	"io"
	"sort"
	"sync"
)

// Budget accounts for the body bytes that fetches hold in memory, so that many
// large responses at once cannot add up past what the caller allows. A Budget
// belongs to one Request (see Request.Budget); the caller that made it releases
// what Fetch reserved through it once it is done with the Response.
type Budget interface {
	// Reserve blocks until n more bytes may be held, or ctx ends (then it returns
	// ctx's error and reserves nothing). claim is the most this fetch will hold in
	// all, in bytes, the same on every call; a Budget uses it to let fetches grow
	// without deadlock.
	Reserve(ctx context.Context, n, claim int64) error
	// Release gives back n bytes reserved earlier.
	Release(n int64)
}

// account tracks one fetch's reservations in a Budget (nil: none).
type account struct {
	budget Budget
	claim  int64
}

func (a *account) reserve(ctx context.Context, n int64) error {
	if a == nil || a.budget == nil || n <= 0 {
		return nil
	}
	return a.budget.Reserve(ctx, n, a.claim)
}

func (a *account) release(n int64) {
	if a == nil || a.budget == nil || n <= 0 {
		return
	}
	a.budget.Release(n)
}

// Buffer size classes: 4 KiB to 64 MiB by factors of 1.5 and 2 (4, 6, 8, 12, 16
// KiB ...), so a buffer sized by Content-Length wastes at most a third. Larger
// buffers are allocated exactly and left to the garbage collector.
var (
	bufClasses []int
	bufPools   []sync.Pool
)

func init() {
	for s := 4 << 10; s <= 64<<20; s *= 2 {
		bufClasses = append(bufClasses, s)
		if s < 64<<20 {
			bufClasses = append(bufClasses, s+s/2)
		}
	}
	bufPools = make([]sync.Pool, len(bufClasses))
}

// bufSize is the capacity getBuf returns for a request of n bytes.
func bufSize(n int) int {
	if n <= 0 {
		return 0
	}
	i := sort.SearchInts(bufClasses, n)
	if i == len(bufClasses) {
		return n
	}
	return bufClasses[i]
}

// getBuf returns an empty slice with capacity bufSize(n), from the pool when it can.
func getBuf(n int) []byte {
	size := bufSize(n)
	if size == 0 {
		return nil
	}
	i := sort.SearchInts(bufClasses, size)
	if i < len(bufClasses) {
		if p, _ := bufPools[i].Get().(*[]byte); p != nil {
			return (*p)[:0]
		}
	}
	return make([]byte, 0, size)
}

// putBuf returns b to its pool; b must not be used afterwards. Slices whose
// capacity is not a class size are dropped.
func putBuf(b []byte) {
	c := cap(b)
	i := sort.SearchInts(bufClasses, c)
	if c == 0 || i == len(bufClasses) || bufClasses[i] != c {
		return
	}
	b = b[:0]
	bufPools[i].Put(&b)
}

// readPooled reads r to EOF or to limit bytes into a pooled buffer, reporting
// whether more followed. hint (when not negative, bounded by limit) sizes the
// first buffer: a body whose length is known is read without growing. Otherwise
// the buffer starts at 32 KiB and doubles. Every buffer is reserved in acct
// before it is taken, and a buffer outgrown is released. When a read fails, what
// was read comes back with the error (the caller owns that buffer and its
// reservation); when a reservation fails, buf is nil and nothing stays reserved.
func readPooled(ctx context.Context, r io.Reader, hint, limit int64, acct *account) (buf []byte, over bool, err error) {
	if hint < 0 {
		hint = 32 << 10
	}
	first := int(min(hint, limit))
	if err := acct.reserve(ctx, int64(bufSize(first))); err != nil {
		return nil, false, err
	}
	buf = getBuf(first)
	for {
		room := int(min(int64(cap(buf)), limit))
		if len(buf) == room {
			// Full: one byte says whether the body goes on, before growing.
			var probe [1]byte
			n, err := r.Read(probe[:])
			switch {
			case n > 0 && int64(len(buf)) >= limit:
				return buf, true, nil
			case n > 0:
				next := int(min(int64(max(2*cap(buf), 32<<10)), limit))
				if err := acct.reserve(ctx, int64(bufSize(next))); err != nil {
					acct.release(int64(cap(buf)))
					putBuf(buf)
					return nil, false, err
				}
				grown := append(getBuf(next), buf...)
				acct.release(int64(cap(buf)))
				putBuf(buf)
				buf = append(grown, probe[0])
			}
			if err == io.EOF {
				return buf, false, nil
			}
			if err != nil {
				return buf, false, err
			}
			continue
		}
		n, err := r.Read(buf[len(buf):room])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, false, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
}
