package cluster

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkHandOff measures the hand-off: links published by one process until the
// owner's intake has returned for all of them. "calls=1000" publishes from one goroutine
// in calls of 1000 links (a seed file, or an engine that gathers several pages' links);
// "pages=50x16" from 16 goroutines in calls of 50 links, as workers publishing each
// page's links do (Publish merges the calls that wait together). The intake only counts: the frontier's
// commit is measured by the frontier's benchmarks. The server is embedded (file
// storage), on loopback, sharing the machine with both processes.
//
//	go test -run '^$' -bench HandOff -benchtime 1000000x ./cluster/
//
// URLs/s is wall time, so it depends on what else runs on the machine; cpu-µs/URL is
// the CPU time of the test process (both nodes, and the embedded server) plus that of
// an external server, per URL.
func BenchmarkHandOff(b *testing.B) {
	b.Run("calls=1000", func(b *testing.B) { benchmarkHandOff(b, 1000, 1) })
	b.Run("pages=50x16", func(b *testing.B) { benchmarkHandOff(b, 50, 16) })
}

func benchmarkHandOff(b *testing.B, perCall, workers int) {
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
	cpu0 := s.cpuTime() + processCPU()
	start := time.Now()
	var next atomic.Int64 // the next call's first link
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(int64(perCall))) - perCall
				if i >= len(links) {
					return
				}
				if err := publisher.Publish(ctx, links[i:min(i+perCall, len(links))]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for taken.Load() < int64(b.N) {
		time.Sleep(time.Millisecond) // polling for the end, not a timing assumption
	}
	elapsed := time.Since(start)
	cpu := s.cpuTime() + processCPU() - cpu0
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "URLs/s")
	// CPU time of both processes and the server per URL: what the hand-off costs,
	// whatever else the machine is doing.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/URL")
	cancel()
	<-done
}

// processCPU returns the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
