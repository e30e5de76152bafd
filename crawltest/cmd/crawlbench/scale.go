package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/politecrawl/crawl/internal/procstat"

	"github.com/politecrawl/crawl/frontier/workload"

	"github.com/politecrawl/crawl/frontier"
)

// scale grows a frontier (durable defaults, as the engine opens it) to each size in
// turn with frontier.Add in large batches — crawling millions of pages is out of reach
// on one machine in minutes — and after each size opens it in a fresh process, as a
// restarted crawl would, to measure Open, memory and, at the last size, Next/Done
// throughput with ten new links per Done.
func (b *bench) scale(ctx context.Context, r *result) error {
	s := b.opts.size
	dir := filepath.Join(b.dir, "scale")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	db := filepath.Join(dir, "frontier.db")
	if err := os.Remove(db); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	judge := !b.opts.short
	var err error
	have := 0
	hosts := scaleHostNames(s.scaleHosts)
	for i, size := range s.scaleURLs {
		b.logf("scale: growing the frontier to %s URLs over %s hosts", fmtCount(int64(size)), fmtCount(int64(s.scaleHosts)))
		last := i == len(s.scaleURLs)-1
		var stopProfile func()
		if last {
			if stopProfile, err = startProfile(b.profilePath("scale-build.pprof")); err != nil {
				return err
			}
		}
		bt, err := buildFrontier(ctx, db, hosts, have, size, s.scaleBatch)
		if stopProfile != nil {
			stopProfile()
		}
		if err != nil {
			return err
		}
		have = size
		sj := &scaleJob{DB: db, Hosts: s.scaleHosts, Workers: b.opts.workers, Salt: i + 1}
		j := &job{Kind: "scale", Scale: sj}
		if last {
			sj.Cycles = s.scaleCycles
			sj.HeapProfile = b.profilePath("scale-heap.pprof")
			j.Profile = b.profilePath("scale-cpu.pprof")
		}
		b.logf("scale: opening %s URLs in a new process", fmtCount(int64(size)))
		m, err := b.runChildJob(ctx, j)
		if err != nil {
			return err
		}
		if m.URLs != int64(size) {
			r.problem("frontier holds %d URLs, want %d", m.URLs, size)
		}
		fi, err := os.Stat(db)
		if err != nil {
			return err
		}
		at := " at " + fmtCount(int64(size))
		if !last {
			r.add("Open"+at, m.OpenWarm.Seconds(), openText(m))
			r.add("peak RSS after Open"+at, float64(m.PeakRSS), workload.FormatBytes(float64(m.PeakRSS)))
			continue
		}
		r.add("URLs", float64(size), fmtCount(int64(size))+" over "+fmtCount(int64(s.scaleHosts))+" hosts")
		r.add("build", bt.time.Seconds(), fmt.Sprintf("%.0f URLs/s", float64(bt.urls)/bt.time.Seconds()))
		open := m.OpenWarm
		if m.OpenCold > 0 {
			open = m.OpenCold
		}
		r.goal("Open", open.Seconds(), openText(m), "< 10s", open < 10*time.Second, judge)
		r.goal("peak RSS", float64(m.PeakRSS), workload.FormatBytes(float64(m.PeakRSS)), "< 300 MB at 10M", m.PeakRSS < 300<<20, judge && m.PeakRSS > 0)
		r.add("heap after Open", float64(m.HeapInuse), workload.FormatBytes(float64(m.HeapInuse)))
		r.add("heap after cycles", float64(m.HeapEnd), workload.FormatBytes(float64(m.HeapEnd)))
		r.add("RSS anon/file after cycles", float64(m.RSSAnonEnd), workload.FormatBytes(float64(m.RSSAnonEnd))+"/"+workload.FormatBytes(float64(m.RSSFileEnd)))
		r.add("db", float64(fi.Size()), workload.FormatBytes(float64(fi.Size())))
		r.add("db per URL", float64(fi.Size())/float64(max(m.URLsEnd, 1)), workload.FormatBytes(float64(fi.Size())/float64(max(m.URLsEnd, 1))))
		if m.CycleTime > 0 {
			rate := float64(m.Cycles) / m.CycleTime.Seconds()
			r.add("Next/Done cycles/s", rate, fmt.Sprintf("%.0f (10 new links each, %d workers)", rate, b.opts.workers))
			if m.CycleCPU > 0 {
				r.add("cycles/CPU-s", float64(m.Cycles)/m.CycleCPU.Seconds(), fmt.Sprintf("%.0f", float64(m.Cycles)/m.CycleCPU.Seconds()))
			}
		}
	}
	return nil
}

func openText(m *childResult) string {
	if m.OpenCold > 0 {
		return fmtDuration(m.OpenCold) + " cold, " + fmtDuration(m.OpenWarm) + " warm"
	}
	return fmtDuration(m.OpenWarm) + " (warm)"
}

// scaleHostNames returns the authorities of the scale scenario's hosts.
func scaleHostNames(n int) []string {
	hosts := make([]string, n)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("https://www.site%06d.example", i)
	}
	return hosts
}

// scatter maps URL number n to a host, spreading consecutive numbers over hosts far
// apart (a bijection on [0, hosts) while hosts has no factor in common with the
// multiplier, which is prime).
func scatter(n uint64, hosts int) int {
	return int(n * 2654435761 % uint64(hosts))
}

// scaleEntry returns URL number n of the build: about 75 bytes, on host scatter(n),
// found on a section page of that host, at depth 1 to 3.
func scaleEntry(hosts []string, n uint64) frontier.Entry {
	h := hosts[scatter(n, len(hosts))]
	sec := strconv.FormatUint(n%16, 10)
	month := strconv.FormatUint(101+n%12, 10)[1:]
	return frontier.Entry{
		URL:     h + "/section-" + sec + "/2026/" + month + "/article-" + strconv.FormatUint(n, 10) + ".html",
		Depth:   1 + int(n%3),
		FoundOn: h + "/section-" + sec + "/index.html",
	}
}

// built is what buildFrontier did.
type built struct {
	urls    int
	time    time.Duration
	written int64 // bytes passed to write calls, -1 if unknown
}

// buildFrontier grows the frontier at path from URL number have to want, in batches
// of batch URLs per Add (see workload.Fill).
func buildFrontier(ctx context.Context, path string, hosts []string, have, want, batch int) (built, error) {
	f, err := frontier.Open(path, frontier.Options{})
	if err != nil {
		return built{}, err
	}
	defer f.Close()
	start, written := time.Now(), procstat.BytesWritten()
	err = workload.Fill(ctx, f.Add, have, want, batch, func() func([]frontier.Entry, uint64, uint64) []frontier.Entry {
		return func(dst []frontier.Entry, from, to uint64) []frontier.Entry {
			for n := from; n < to; n++ {
				dst = append(dst, scaleEntry(hosts, n))
			}
			return dst
		}
	})
	if err != nil {
		return built{}, err
	}
	if err := f.Close(); err != nil {
		return built{}, err
	}
	b := built{urls: want - have, time: time.Since(start), written: -1}
	if w := procstat.BytesWritten(); written >= 0 && w >= 0 {
		b.written = w - written
	}
	return b, nil
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// measureScale runs in a child process: it opens the frontier (after dropping the file
// from the page cache when it can, then again warm), measures memory, and runs Next/Done
// cycles for j.Cycles.
func measureScale(ctx context.Context, j *scaleJob) (*childResult, error) {
	r := &childResult{Hosts: j.Hosts}
	if procstat.DropCache(j.DB) == nil {
		start := time.Now()
		f, err := frontier.Open(j.DB, frontier.Options{})
		if err != nil {
			return nil, err
		}
		r.OpenCold = time.Since(start)
		if err := f.Close(); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	f, err := frontier.Open(j.DB, frontier.Options{})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r.OpenWarm = time.Since(start)
	r.URLs = f.Stats().Queued
	r.HeapInuse = procstat.HeapInuse()
	_, r.RSSAnon, r.RSSFile = procstat.Memory()
	if j.Cycles > 0 {
		if err := cycles(ctx, f, j, r); err != nil {
			return nil, err
		}
		r.HeapEnd = procstat.HeapInuse()
		_, r.RSSAnonEnd, r.RSSFileEnd = procstat.Memory()
	}
	if j.HeapProfile != "" {
		hf, err := os.Create(j.HeapProfile)
		if err != nil {
			return nil, err
		}
		err = pprof.Lookup("heap").WriteTo(hf, 0)
		hf.Close()
		if err != nil {
			return nil, err
		}
	}
	r.URLsEnd = f.Stats().Queued
	return r, f.Close()
}

// cycles runs j.Workers goroutines that lease a URL and finish it with ten new links,
// eight on its host and two on others, as a crawl does, for j.Cycles.
func cycles(ctx context.Context, f *frontier.Frontier, j *scaleJob, r *childResult) error {
	ctx, cancel := context.WithTimeout(ctx, j.Cycles)
	defer cancel()
	hosts := scaleHostNames(j.Hosts)
	var (
		n     atomic.Int64
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	cpu0, start := procstat.CPUTime(), time.Now()
	for w := range j.Workers {
		wg.Go(func() {
			prefix := "/cycle-" + strconv.Itoa(j.Salt) + "/" + strconv.Itoa(w) + "/"
			links := make([]frontier.Entry, 10)
			id := uint64(0)
			for ctx.Err() == nil {
				l, err := f.Next(ctx)
				if err != nil {
					if ctx.Err() == nil {
						errMu.Lock()
						first = firstErr(first, err)
						errMu.Unlock()
					}
					return
				}
				for i := range links {
					id++
					h := l.Host
					if i >= 8 {
						h = hosts[scatter(id*uint64(j.Workers)+uint64(w), len(hosts))]
					}
					links[i] = frontier.Entry{URL: h + prefix + strconv.FormatUint(id, 10) + ".html", Depth: l.Depth + 1, FoundOn: l.URL}
				}
				// Not ctx: a lease taken is finished even after the deadline.
				if err := f.Done(context.Background(), l, frontier.Outcome{Links: links}); err != nil {
					errMu.Lock()
					first = firstErr(first, err)
					errMu.Unlock()
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	// Links still staged are part of the work: fold them in before the clock stops.
	if err := f.Flush(context.Background()); err != nil {
		first = firstErr(first, err)
	}
	r.CycleTime, r.CycleCPU = time.Since(start), procstat.CPUTime()-cpu0
	r.Cycles = n.Load()
	return first
}
