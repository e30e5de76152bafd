package frontier_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/politecrawl/crawl/internal/procstat"

	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/frontier/workload"
)

// The benchmarks below run frontier.Frontier beside workload.Memory, a frontier of maps
// and slices with no file, on the same work in the same run:
//
//	go test -run '^$' -bench . -benchtime 3s -count 3 ./frontier/
//
// The Frontier has the durable defaults: each Add and Done returns once the group
// commit that carries it is on disk. Both sides start from the same prefill, benchHosts
// hosts with workload.LinksPerPage URLs each (a workload.Corpus), and the benchmarks
// check that both end with the URLs they expect. Heap, file size and Open time at millions of URLs are
// measured by the program in internal/frontierbench.

const (
	benchHosts = 10_000
	addBatch   = 100 // entries per Add in BenchmarkAdd
	firstID    = 1 << 40
)

// side is the implementation under benchmark.
type side interface {
	add(entries []frontier.Entry) error
	// cycle leases a URL and finishes it, with the host ready again at once and the
	// links that links returns.
	cycle(links func(e *frontier.Entry, host string) []frontier.Entry) error
	// flush queues what the side has accepted but not queued yet (staged links), so
	// that the timed work includes it.
	flush() error
	queued() int64
}

// newSide returns a prefilled side: "frontier" (each Done queues
// its links at once, the default), "frontier-staged" (Options.LinkBatch 100,000) or
// "memory".
func newSide(b *testing.B, impl string) side {
	b.Helper()
	var s side
	switch impl {
	case "frontier", "frontier-staged":
		path := filepath.Join(b.TempDir(), "frontier.db")
		var opts frontier.Options
		if impl == "frontier-staged" {
			opts.LinkBatch = 100_000
		}
		f, err := frontier.Open(path, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		s = frontierSide{f, path}
	case "memory":
		s = memorySide{workload.NewMemory(1)}
	default:
		panic(impl)
	}
	corpus := workload.NewCorpus(benchHosts)
	const batch = 30_000 // URLs per Add
	for i := uint64(0); i < prefill; i += batch {
		if err := s.add(corpus.Append(nil, i, i+batch)); err != nil {
			b.Fatal(err)
		}
	}
	if got, want := s.queued(), int64(prefill); got != want {
		b.Fatalf("%s: %d URLs queued after the prefill, want %d", impl, got, want)
	}
	return s
}

const prefill = benchHosts * workload.LinksPerPage

type frontierSide struct {
	f    *frontier.Frontier
	path string
}

func (s frontierSide) add(entries []frontier.Entry) error {
	_, err := s.f.Add(context.Background(), entries...)
	return err
}

func (s frontierSide) cycle(links func(*frontier.Entry, string) []frontier.Entry) error {
	ctx := context.Background()
	l, err := s.f.Next(ctx)
	if err != nil {
		return err
	}
	return s.f.Done(ctx, l, frontier.Outcome{Links: links(&l.Entry, l.Host)})
}

func (s frontierSide) flush() error { return s.f.Flush(context.Background()) }

func (s frontierSide) queued() int64 { return s.f.Stats().Queued }

type memorySide struct{ m *workload.Memory }

func (s memorySide) add(entries []frontier.Entry) error {
	s.m.Add(entries...)
	return nil
}

func (s memorySide) cycle(links func(*frontier.Entry, string) []frontier.Entry) error {
	l, ok := s.m.Next(time.Now())
	if !ok {
		return errors.New("memory: no host ready")
	}
	s.m.Done(l, time.Now(), links(&l.Entry, l.Host))
	return nil
}

func (s memorySide) flush() error { return nil }

func (s memorySide) queued() int64 { return int64(s.m.Len()) }

// runOps calls op b.N times in all from workers goroutines, then s.flush, timed; op's
// argument is the goroutine's number.
func runOps(b *testing.B, s side, workers int, op func(worker int) error) {
	b.Helper()
	var left atomic.Int64
	left.Store(int64(b.N))
	var (
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	written := procstat.BytesWritten()
	b.ResetTimer()
	for w := range workers {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := op(w); err != nil {
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
	if first == nil {
		first = s.flush()
	}
	b.StopTimer()
	if first != nil {
		b.Fatal(first)
	}
	if written >= 0 {
		b.ReportMetric(float64(procstat.BytesWritten()-written)/float64(b.N), "written-B/op")
	}
}

// BenchmarkAdd queues new URLs in batches of addBatch, each URL on one of benchHosts
// hosts, from one or many goroutines. The metric urls/s counts URLs queued.
func BenchmarkAdd(b *testing.B) {
	for _, workers := range []int{1, 64} {
		for _, impl := range []string{"frontier", "memory"} {
			b.Run(fmt.Sprintf("workers=%d/impl=%s", workers, impl), func(b *testing.B) {
				s := newSide(b, impl)
				var next atomic.Uint64
				next.Store(firstID)
				foundOn := workload.Host(0) + "/sitemap.xml"
				runOps(b, s, workers, func(int) error {
					id := next.Add(addBatch) - addBatch
					batch := make([]frontier.Entry, addBatch)
					for i := range batch {
						n := id + uint64(i)
						batch[i] = frontier.Entry{
							URL:     workload.URL(workload.Host(workload.Scatter(n, benchHosts)), n),
							Depth:   1,
							FoundOn: foundOn,
						}
					}
					return s.add(batch)
				})
				if got, want := s.queued(), int64(prefill+b.N*addBatch); got != want {
					b.Fatalf("%d URLs queued, want %d", got, want)
				}
				b.ReportMetric(float64(b.N*addBatch)/b.Elapsed().Seconds(), "urls/s")
				if fs, ok := s.(frontierSide); ok {
					reportFileSize(b, fs, prefill+b.N*addBatch)
				}
			})
		}
	}
}

// BenchmarkSeed queues a seed list, all in one Add, into a new frontier: the URLs of
// a workload.Corpus over benchHosts hosts. The metric urls/s counts URLs queued.
func BenchmarkSeed(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		seeds := workload.NewCorpus(benchHosts).Append(nil, 0, uint64(n))
		b.Run(fmt.Sprintf("urls=%d/impl=frontier", n), func(b *testing.B) {
			for i := range b.N {
				b.StopTimer()
				f, err := frontier.Open(filepath.Join(b.TempDir(), fmt.Sprint(i)), frontier.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if added, err := f.Add(context.Background(), seeds...); err != nil || added != len(seeds) {
					b.Fatalf("Add: %d of %d added, error %v", added, len(seeds), err)
				}
				b.StopTimer()
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(seeds))/b.Elapsed().Seconds(), "urls/s")
		})
		b.Run(fmt.Sprintf("urls=%d/impl=memory", n), func(b *testing.B) {
			for range b.N {
				m := workload.NewMemory(1)
				if added := m.Add(seeds...); added != len(seeds) {
					b.Fatalf("Add: %d of %d added", added, len(seeds))
				}
			}
			b.ReportMetric(float64(b.N*len(seeds))/b.Elapsed().Seconds(), "urls/s")
		})
	}
}

// BenchmarkCycle is a crawl's loop: from many goroutines, Next leases a URL and Done
// finishes it with workload.LinksPerPage new links, four in five on the same host. The
// host is ready again at once and there are far more hosts than goroutines, so Next
// never waits. The metric cycles/s counts Next+Done pairs; the time includes folding
// in the links still staged at the end.
func BenchmarkCycle(b *testing.B) {
	for _, workers := range []int{64, 256} {
		for _, impl := range []string{"frontier", "frontier-staged", "memory"} {
			b.Run(fmt.Sprintf("workers=%d/impl=%s", workers, impl), func(b *testing.B) {
				s := newSide(b, impl)
				bufs := make([][]frontier.Entry, workers)
				ids := make([]uint64, workers)
				for w := range ids {
					ids[w] = firstID + uint64(w)<<32
				}
				runOps(b, s, workers, func(w int) error {
					return s.cycle(func(e *frontier.Entry, host string) []frontier.Entry {
						bufs[w] = workload.Links(bufs[w][:0], e, host, ids[w], workload.LinksPerPage, benchHosts)
						ids[w] += workload.LinksPerPage
						return bufs[w]
					})
				})
				if got, want := s.queued(), int64(prefill+b.N*(workload.LinksPerPage-1)); got != want {
					b.Fatalf("%d URLs queued, want %d", got, want)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
				if fs, ok := s.(frontierSide); ok {
					reportFileSize(b, fs, prefill+b.N*(workload.LinksPerPage-1))
				}
			})
		}
	}
}

// reportFileSize closes the Frontier and reports the size of its file per URL queued.
func reportFileSize(b *testing.B, s frontierSide, urls int) {
	b.Helper()
	if err := s.f.Close(); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size())/float64(urls), "file-B/url")
}
