package workload

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/politecrawl/crawl/frontier"
)

// Fill gives add (a Frontier's Add or Stage) the URLs numbered from have to want, in
// batches of batch URLs per call from two goroutines, so that one builds a batch while
// the other's is committed. Each goroutine calls newEntries once for its own
// generator, which appends the entries of a range of numbers. Every URL must be new:
// Fill fails if add accepts fewer than it was given.
func Fill(ctx context.Context, add func(context.Context, ...frontier.Entry) (int, error), have, want, batch int,
	newEntries func() func(dst []frontier.Entry, from, to uint64) []frontier.Entry) error {
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	next.Store(int64(have))
	for range 2 {
		wg.Go(func() {
			entries := newEntries()
			var buf []frontier.Entry
			for ctx.Err() == nil {
				from := next.Add(int64(batch)) - int64(batch)
				if from >= int64(want) {
					return
				}
				to := min(from+int64(batch), int64(want))
				buf = entries(buf[:0], uint64(from), uint64(to))
				took, err := add(ctx, buf...)
				if err == nil && took != len(buf) {
					err = fmt.Errorf("workload: %d of %d URLs taken from number %d", took, len(buf), from)
				}
				if err != nil {
					errMu.Lock()
					if first == nil {
						first = err
					}
					errMu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// FormatBytes formats a byte count for people: "512 B", "3.2 KiB", "41.0 MiB", "1.27 GiB".
func FormatBytes(v float64) string {
	switch {
	case v >= 1<<30:
		return fmt.Sprintf("%.2f GiB", v/(1<<30))
	case v >= 1<<20:
		return fmt.Sprintf("%.1f MiB", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.1f KiB", v/(1<<10))
	}
	return fmt.Sprintf("%.0f B", v)
}
