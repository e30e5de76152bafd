package crawl

import (
	"strings"
	"sync"

	"github.com/politecrawl/crawl/frontier"
)

// linkCache remembers the last links the engine handed to the frontier, so that a
// link found again on another page (the menus and footers of a site, its pages
// linking to each other) is not handed again: the frontier would stage it, write it
// in its log and find it a duplicate only when it folds the log in. This is the cache
// of popular URLs Mercator put in front of its seen set. It is bounded: the oldest
// link is forgotten first. A link found again at a smaller depth than remembered is
// handed again, so that the cache never changes what max_depth lets in.
//
// Forgetting is harmless (the frontier finds the duplicate) and remembering is
// safe: a link is remembered when the page that found it hands it over in its Done,
// and a page whose Done is not committed is fetched again, with its links, after a
// restart. The zero value and nil remember nothing. It is safe for concurrent use.
type linkCache struct {
	mu    sync.Mutex
	depth map[string]int // link → the smallest depth it was handed at
	ring  []string       // the links in the order they came, to forget the oldest
	next  int            // where the next link goes in ring
}

// newLinkCache returns a cache of n links; nil for n ≤ 0.
func newLinkCache(n int) *linkCache {
	if n <= 0 {
		return nil
	}
	return &linkCache{depth: make(map[string]int, n), ring: make([]string, 0, n)}
}

// handOver reports whether a link to u found at depth must go to the frontier (it
// is new to the cache, or found at a smaller depth than before), and remembers it.
// A page's links go through it one after another under one lock (see keep).
func (c *linkCache) handOver(u string, depth int) bool {
	if d, ok := c.depth[u]; ok {
		if depth >= d {
			return false
		}
		c.depth[u] = depth
		return true
	}
	// A copy: u may share its bytes with more of the page than the link.
	u = strings.Clone(u)
	if len(c.ring) < cap(c.ring) {
		c.ring = append(c.ring, u)
	} else {
		delete(c.depth, c.ring[c.next])
		c.ring[c.next] = u
		c.next = (c.next + 1) % len(c.ring)
	}
	c.depth[u] = depth
	return true
}

// keep returns, in place, the entries of links that must go to the frontier
// (handOver, at each entry's depth), and remembers them. A nil cache keeps them all.
func (c *linkCache) keep(links []frontier.Entry) []frontier.Entry {
	if c == nil {
		return links
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := links[:0]
	for _, e := range links {
		if c.handOver(e.URL, e.Depth) {
			kept = append(kept, e)
		}
	}
	return kept
}
