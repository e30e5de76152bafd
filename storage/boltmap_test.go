package storage

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/politecrawl/crawl/internal/boltmap"
)

// TestDigestIndexDropsMappedPages: the writer watches its digest index's mapped pages;
// with a budget of one byte it drops them, and the index still finds every payload
// (the same payloads again are revisits). It does not run in parallel with other
// tests: a budget is checked against the whole process's file-backed resident size.
func TestDigestIndexDropsMappedPages(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, WARCOptions{NoSync: true})
	if runtime.GOOS == "linux" && !w.mapped.Watching() {
		t.Fatal("the digest index's pages are not watched")
	}
	w.mapped.Close()
	w.mapped = boltmap.NewLimit(1)
	ticks := make(chan time.Time)
	w.mapped.Watch(w.db, ticks)
	const n = 2*persistBatch + 88 // persists at persistBatch and twice that
	for i := range n {
		if _, err := w.WriteExchange(ctx, exchange(fmt.Sprintf("http://a.example/%d", i), fmt.Appendf(nil, "payload %d", i), "")); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS == "linux" {
		ticks <- time.Time{}
		ticks <- time.Time{} // taken once the first is checked
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
