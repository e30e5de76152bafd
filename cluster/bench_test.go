package cluster

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkHandOff measures the hand-off: links published by one process, in calls of
// 1000 (a page's links are fewer; a seed file or a busy engine's batch more), until the
// owner's intake has returned for all of them. The intake only counts: the frontier's
// commit is measured by the frontier's benchmarks. The server is embedded (file
// storage), on loopback, sharing the machine with both processes.
//
//	go test -run '^$' -bench HandOff -benchtime 1000000x ./cluster/
func BenchmarkHandOff(b *testing.B) {
	s := startServer(b, nil)
	const shards = 64
	all, _ := ParseShards("all", shards)
	cfg := testConfig(s, "owner", shards, all...)
	cfg.AckWait = DefaultAckWait
	owner := join(b, cfg)
	publisher := join(b, testConfig(s, "publisher", shards))

	links := make([]Link, b.N)
	for i := range links {
		links[i] = Link{
			URL:     fmt.Sprintf("https://www.site%d.com/articles/%d/some-title-of-an-article.html", i%5000, i),
			FoundOn: fmt.Sprintf("https://www.site%d.com/articles/", i%5000),
			Depth:   3,
		}
	}
	var taken atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- owner.Consume(ctx, func(_ context.Context, ls []Link) error {
			taken.Add(int64(len(ls)))
			return nil
		})
	}()

	b.ResetTimer()
	start := time.Now()
	for i := 0; i < len(links); i += 1000 {
		if err := publisher.Publish(ctx, links[i:min(i+1000, len(links))]); err != nil {
			b.Fatal(err)
		}
	}
	for taken.Load() < int64(b.N) {
		time.Sleep(time.Millisecond) // polling for the end, not a timing assumption
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "URLs/s")
	cancel()
	<-done
}
