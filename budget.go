package crawl

import (
	"context"
	"slices"
	"sync"

	"github.com/politecrawl/crawl/fetch"
)

// memBudget bounds the body bytes held in memory by all workers at once: response
// bodies as received and decoded, and the HTML being parsed. Each page takes a
// memClaim, declares the most it may hold (its claim) and reserves bytes as its
// buffers grow; a reservation waits while granting it could leave the claims
// unable to finish. This is the banker's algorithm for one resource: a grant is
// made only when the pages can still finish one after another, each growing to
// its whole claim with what the earlier ones give back, so pages that grow while
// holding never deadlock. A claim larger than the whole budget counts as the whole
// budget: such a page, once it holds the whole budget, holds it alone and may go
// past it. A page that reserves past a smaller claim (which fetch's claims, upper
// bounds, never do) is granted the excess at once rather than risk a deadlock.
// memBudget is safe for simultaneous use by multiple goroutines.
type memBudget struct {
	total int64

	// parseCost is the most bytes parsing a body of n bytes may hold beside it.
	parseCost func(n int64) int64

	mu      sync.Mutex
	held    int64 // sum of reservations, at most total except for a page alone
	peak    int64 // the largest held has been, for tests and figures
	shared  int64 // the largest held has been while more than one page held bytes
	claims  map[*memClaim]struct{}
	changed chan struct{} // closed and replaced whenever bytes are given back
}

// newMemBudget returns a budget of total bytes; parseCost(n) is the most bytes
// parsing a body of n bytes may hold beside it (nil: nothing).
func newMemBudget(total int64, parseCost func(n int64) int64) *memBudget {
	if parseCost == nil {
		parseCost = func(int64) int64 { return 0 }
	}
	return &memBudget{total: total, parseCost: parseCost,
		claims: make(map[*memClaim]struct{}), changed: make(chan struct{})}
}

// reserveParse reserves in m what parsing resp as HTML will hold, when it is HTML,
// and returns the function that gives it back once the parse is over.
func (c *Crawler) reserveParse(ctx context.Context, m *memClaim, resp *fetch.Response) (release func(), err error) {
	if !isHTML(resp.Header.Get("Content-Type"), resp.Body) {
		return func() {}, nil
	}
	n := c.mem.parseCost(int64(len(resp.Body)))
	if err := m.Reserve(ctx, n, 0); err != nil {
		return nil, err
	}
	return func() { m.Release(n) }, nil
}

// memClaim is one page's share of a memBudget. It implements fetch.Budget. Its
// methods are safe for use by one goroutine at a time (the page's worker).
type memClaim struct {
	b     *memBudget
	claim int64 // declared on the first reservation, at most b.total
	held  int64
}

// claim starts a page's share.
func (b *memBudget) claim() *memClaim { return &memClaim{b: b} }

// Reserve implements fetch.Budget: it waits until n more bytes may be held. The
// first call declares the claim, to which the cost of parsing that much HTML is
// added; later calls keep it.
func (c *memClaim) Reserve(ctx context.Context, n, claim int64) error {
	if c == nil || n <= 0 {
		return nil
	}
	b := c.b
	b.mu.Lock()
	if c.claim == 0 {
		c.claim = min(max(claim+b.parseCost(claim), n), b.total)
		b.claims[c] = struct{}{}
	}
	within := min(n, c.claim-c.held)
	for within > 0 && !b.grantable(c, within) {
		wait := b.changed
		b.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			b.mu.Lock()
			if c.held == 0 {
				delete(b.claims, c)
				c.claim = 0
			}
			b.mu.Unlock()
			return context.Cause(ctx)
		}
		b.mu.Lock()
	}
	// Past the claim: either the claim is the whole budget, now all held by c, or
	// the claim was short and c is let through rather than risk a deadlock.
	c.held += n
	b.held += n
	b.peak = max(b.peak, b.held)
	if b.held > c.held {
		b.shared = max(b.shared, b.held)
	}
	b.mu.Unlock()
	return nil
}

// Release implements fetch.Budget: it gives back n bytes.
func (c *memClaim) Release(n int64) {
	if c == nil || n <= 0 {
		return
	}
	b := c.b
	b.mu.Lock()
	n = min(n, c.held)
	c.held -= n
	b.held -= n
	b.broadcast()
	b.mu.Unlock()
}

// Done gives back everything c holds and ends its claim.
func (c *memClaim) Done() {
	if c == nil {
		return
	}
	b := c.b
	b.mu.Lock()
	b.held -= c.held
	c.held, c.claim = 0, 0
	delete(b.claims, c)
	b.broadcast()
	b.mu.Unlock()
}

// broadcast wakes every waiting reservation. b.mu is held.
func (b *memBudget) broadcast() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// grantable reports whether c may take n more bytes, within its claim. b.mu is
// held.
func (b *memBudget) grantable(c *memClaim, n int64) bool {
	if b.held+n > b.total {
		return false
	}
	// Safe state: with c holding n more, the claims can finish one by one, the
	// smallest remaining need first, each giving back what it holds.
	type share struct{ need, held int64 }
	shares := make([]share, 0, len(b.claims))
	for o := range b.claims {
		h := o.held
		if o == c {
			h += n
		}
		shares = append(shares, share{max(o.claim-h, 0), h})
	}
	slices.SortFunc(shares, func(x, y share) int { return cmpInt64(x.need, y.need) })
	free := b.total - b.held - n
	for _, s := range shares {
		if s.need > free {
			return false
		}
		free += s.held
	}
	return true
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
