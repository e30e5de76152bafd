package politeness

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

const benchHostCount = 100_000

var benchHosts = func() []string {
	hs := make([]string, benchHostCount)
	for i := range hs {
		hs[i] = fmt.Sprintf("host%06d.example", i)
	}
	return hs
}()

// benchScheduler returns a scheduler with every bench host known and ready: no delay,
// no adaptive delay, so every Acquire is granted and the benchmark measures the
// decision, not the waiting.
func benchScheduler(now func() time.Time) *Scheduler {
	s := New(Options{MinDelay: -1, AdaptiveFactor: -1, Now: now})
	for _, h := range benchHosts {
		tk, _, _ := s.TryAcquire(h, now())
		s.Release(tk, Observation{Status: 200})
	}
	return s
}

func benchLimiters() map[string]*rate.Limiter {
	m := make(map[string]*rate.Limiter, benchHostCount)
	for _, h := range benchHosts {
		m[h] = rate.NewLimiter(rate.Limit(1e12), 1) // always allows: no waiting measured
	}
	return m
}

// BenchmarkDecisions measures one scheduling decision (a grant and its release) per op,
// round-robin over 100k hosts, beside a bare baseline of a map lookup and
// rate.Limiter.AllowN per host in the same run.
func BenchmarkDecisions(b *testing.B) {
	ctx := context.Background()
	b.Run("scheduler/Acquire+Release", func(b *testing.B) {
		s := benchScheduler(time.Now)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			tk, err := s.Acquire(ctx, benchHosts[i%benchHostCount])
			if err != nil {
				b.Fatal(err)
			}
			s.Release(tk, Observation{Status: 200})
		}
	})
	b.Run("scheduler/TryAcquire+Release/fixed-clock", func(b *testing.B) {
		now := time.Now()
		s := benchScheduler(func() time.Time { return now })
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			tk, _, err := s.TryAcquire(benchHosts[i%benchHostCount], now)
			if tk == nil {
				b.Fatal("not granted", err)
			}
			s.Release(tk, Observation{End: now, Status: 200})
		}
	})
	b.Run("baseline/map+rate.Limiter.AllowN", func(b *testing.B) {
		m := benchLimiters()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			if !m[benchHosts[i%benchHostCount]].AllowN(time.Now(), 1) {
				b.Fatal("not allowed")
			}
		}
	})
	b.Run("scheduler/Acquire+Release/parallel", func(b *testing.B) {
		s := benchScheduler(time.Now)
		var next atomic.Uint64
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				// Hosts are handed out in turn so no two goroutines wait on one host.
				h := benchHosts[next.Add(1)%benchHostCount]
				tk, err := s.Acquire(ctx, h)
				if err != nil {
					b.Error(err)
					return
				}
				s.Release(tk, Observation{Status: 200})
			}
		})
	})
	b.Run("baseline/map+rate.Limiter.AllowN/parallel", func(b *testing.B) {
		m := benchLimiters()
		var next atomic.Uint64
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if !m[benchHosts[next.Add(1)%benchHostCount]].AllowN(time.Now(), 1) {
					b.Error("not allowed")
					return
				}
			}
		})
	})
}

// BenchmarkMemoryPerHost reports the heap held per host record, for 100k hosts, beside a
// map of rate.Limiters. The host names themselves are shared and not counted.
func BenchmarkMemoryPerHost(b *testing.B) {
	measure := func(b *testing.B, build func() any) {
		var keep any
		for b.Loop() {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			keep = build()
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/benchHostCount, "B/host")
		}
		runtime.KeepAlive(keep)
	}
	b.Run("scheduler", func(b *testing.B) {
		measure(b, func() any { return benchScheduler(time.Now) })
	})
	b.Run("baseline/map+rate.Limiter", func(b *testing.B) {
		measure(b, func() any { return benchLimiters() })
	})
}
