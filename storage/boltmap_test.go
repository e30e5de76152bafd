package storage

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/politecrawl/crawl/internal/boltmap"
)

// TestDigestIndexDropsMappedPages writes many payloads with a budget of one byte for
// the digest index's mapped pages: the writer drops them after its persists, and the
// index still finds every payload (the same payloads again are revisits).
func TestDigestIndexDropsMappedPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := openTest(t, WARCOptions{NoSync: true})
	w.mapped.Close()
	w.mapped = boltmap.NewLimit(1)
	w.mapped.SetInterval(0)
	const n = 600 // persists at 256 and 512
	for i := range n {
		if _, err := w.WriteExchange(ctx, exchange(fmt.Sprintf("http://a.example/%d", i), fmt.Appendf(nil, "payload %d", i), "")); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS == "linux" && w.mapped.Drops() == 0 {
		t.Fatalf("no drop of the digest index's pages after %d payloads with a budget of one byte", n)
	}
	for i := range n {
		loc, err := w.WriteExchange(ctx, exchange(fmt.Sprintf("http://b.example/%d", i), fmt.Appendf(nil, "payload %d", i), ""))
		if err != nil {
			t.Fatal(err)
		}
		if !loc.Revisit {
			t.Fatalf("payload %d written again: not a revisit", i)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
