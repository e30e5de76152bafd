package crawl

import (
	"fmt"
	"testing"

	"github.com/politecrawl/crawl/frontier"
)

// TestLinkCacheHandsALinkOnce checks the cache's decisions: a link goes to the frontier
// the first time, not again at the same or a larger depth, again at a smaller one, and
// again once the cache has forgotten it (the oldest first).
func TestLinkCacheHandsALinkOnce(t *testing.T) {
	c := newLinkCache(3)
	steps := []struct {
		url   string
		depth int
		want  bool
	}{
		{"http://a.test/1", 2, true},
		{"http://a.test/1", 2, false}, // same depth
		{"http://a.test/1", 3, false}, // deeper
		{"http://a.test/1", 1, true},  // shallower: max_depth must see it
		{"http://a.test/1", 1, false},
		{"http://a.test/2", 1, true},
		{"http://a.test/3", 1, true},
		{"http://a.test/4", 1, true},  // forgets /1, the oldest
		{"http://a.test/1", 1, true},  // forgotten: handed again; forgets /2
		{"http://a.test/3", 1, false}, // still remembered
		{"http://a.test/2", 5, true},  // forgotten
	}
	for i, s := range steps {
		got := c.keep([]frontier.Entry{{URL: s.url, Depth: s.depth}})
		if (len(got) == 1) != s.want {
			t.Fatalf("step %d: %s at depth %d handed over: %v, want %v", i, s.url, s.depth, len(got) == 1, s.want)
		}
	}
	if len(c.depth) != 3 || len(c.ring) != 3 {
		t.Errorf("the cache holds %d links (%d in its ring), want at most 3", len(c.depth), len(c.ring))
	}
}

// TestLinkCacheKeepsOrder checks that keep filters a page's links in place, in order,
// and that a nil cache (none configured) keeps every link.
func TestLinkCacheKeepsOrder(t *testing.T) {
	var links []frontier.Entry
	for i := range 6 {
		links = append(links, frontier.Entry{URL: fmt.Sprintf("http://a.test/%d", i%3), Depth: 1})
	}
	var none *linkCache
	if got := none.keep(links); len(got) != 6 {
		t.Fatalf("nil cache kept %d of 6 links", len(got))
	}
	got := newLinkCache(10).keep(links)
	if len(got) != 3 {
		t.Fatalf("kept %d links, want 3", len(got))
	}
	for i, e := range got {
		if want := fmt.Sprintf("http://a.test/%d", i); e.URL != want {
			t.Errorf("link %d: %s, want %s", i, e.URL, want)
		}
	}
}
