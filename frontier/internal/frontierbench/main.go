// Frontierbench measures the frontier at scale. It builds a database of millions of
// queued URLs over many hosts, then, in fresh processes, opens it and reports the Go
// heap, peak RSS, file size, Open time and Next/Done throughput, each beside
// workload.Memory, a frontier of maps and slices, holding the same URLs in the same
// run:
//
//	go run ./frontier/internal/frontierbench -urls 1000000,10000000 -hosts 100000
//
// With -stage the database is built through Stage, and a Flush at the end, rather
// than Add. -buildprofile FILE writes a CPU profile of the build (go tool pprof).
//
// Sizes are built in order, each growing the database of the one before; the cycles
// of each size add their links, so the next size starts a little larger. The run
// above takes about 5 minutes on 2 cores and needs about 550 bytes of disk per URL
// (5.5 GB) and, for the baseline, about 400 bytes of memory per URL (4 GB).
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/politecrawl/crawl/internal/procstat"

	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/frontier/workload"
	bolt "go.etcd.io/bbolt"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "frontierbench:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	dir      string
	keep     bool
	sizes    []int
	hosts    int
	batch    int
	workers  int
	duration time.Duration
	memory   bool
	drop     bool
	// Set for a child process, which measures one side and prints a result.
	child string // "frontier" or "memory"
	db    string
	salt  uint64

	linkBatch int
	foldLinks int
	stage     bool
	profile   string // file for a CPU profile of the build

	residentMap int64 // frontier.Options.ResidentMap
	links       int   // new links per cycle
	floor       bool  // measure floor too
}

func parseArgs(args []string) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("frontierbench", flag.ContinueOnError)
	fs.StringVar(&c.dir, "dir", "", "directory for the database, which must not hold one yet; empty means a new temporary one")
	fs.BoolVar(&c.keep, "keep", false, "keep the database at the end")
	urls := fs.String("urls", "1000000,10000000", "comma-separated sizes to build and measure, in queued URLs")
	fs.IntVar(&c.hosts, "hosts", 100_000, "number of hosts the URLs are spread over")
	fs.IntVar(&c.batch, "batch", 300_000, "URLs per Add while building")
	fs.IntVar(&c.workers, "workers", 64, "goroutines calling Next and Done")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "how long to run Next/Done cycles at each size")
	fs.BoolVar(&c.memory, "memory", true, "measure the in-memory baseline too")
	fs.BoolVar(&c.floor, "floor", false, "measure the durable floor too: the cycles with a single bbolt append of the outcome and its links each, in group commits")
	fs.IntVar(&c.linkBatch, "linkbatch", 0, "frontier.Options.LinkBatch for the cycles: links staged before they are folded in (0: none, the default)")
	fs.IntVar(&c.foldLinks, "foldlinks", 0, "frontier.Options.FoldLinks for the cycles, and with -stage for the build: the most links one fold takes in (0: the default)")
	fs.Int64Var(&c.residentMap, "residentmap", 0, "frontier.Options.ResidentMap for the build and the cycles: bytes of the file mapped in the process before its pages are dropped (0: the default, frontier.DefaultResidentMap; -1: never drop)")
	fs.IntVar(&c.links, "links", workload.LinksPerPage, "new links each Done brings (the issue's goal is stated for 10)")
	fs.BoolVar(&c.stage, "stage", false, "build through Stage and a Flush at the end (counted in the build time) rather than Add")
	fs.StringVar(&c.profile, "buildprofile", "", "write a CPU profile of the build to this file (FILE.SIZE for each size when there are several)")
	fs.BoolVar(&c.drop, "drop", true, "drop the file from the page cache before the first Open, and so before the cycles")
	fs.StringVar(&c.child, "child", "", "internal: measure one side")
	fs.StringVar(&c.db, "db", "", "internal: database path")
	fs.Uint64Var(&c.salt, "salt", 1, "internal: makes the URLs of the cycles distinct between sizes")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	for s := range strings.SplitSeq(*urls, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-urls: %q is not a positive number", s)
		}
		if len(c.sizes) > 0 && n <= c.sizes[len(c.sizes)-1] {
			return nil, fmt.Errorf("-urls: sizes must grow, %d does not", n)
		}
		c.sizes = append(c.sizes, n)
	}
	if c.hosts <= 0 || c.batch <= 0 || c.workers <= 0 || c.duration <= 0 || c.links < 0 {
		return nil, errors.New("-hosts, -batch, -workers and -duration must be positive, -links not negative")
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	c, err := parseArgs(args)
	if err != nil {
		return err
	}
	if c.child != "" {
		if path := os.Getenv("FRONTIERBENCH_CPUPROFILE"); path != "" && c.child == "frontier" {
			out, err := os.Create(path)
			if err != nil {
				return err
			}
			if err := pprof.StartCPUProfile(out); err != nil {
				return err
			}
			defer pprof.StopCPUProfile()
		}
		if c.child == "frontier" {
			defer highWatch(os.Getenv("FRONTIERBENCH_HEAPPROFILE"))()
		}
		var r *result
		switch c.child {
		case "frontier":
			r, err = measureFrontier(ctx, c)
		case "memory":
			r, err = measureMemory(c)
		case "floor":
			r, err = measureFloor(ctx, c)
		default:
			return fmt.Errorf("-child %q", c.child)
		}
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(r)
	}
	if c.dir == "" {
		if c.dir, err = os.MkdirTemp("", "frontierbench"); err != nil {
			return err
		}
		if !c.keep {
			defer os.RemoveAll(c.dir)
		}
	} else if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	db := filepath.Join(c.dir, "frontier.db")
	fmt.Fprintf(stdout, "%s, %d hosts, %d workers for %v per cycle run, GOMAXPROCS %d\n\n",
		db, c.hosts, c.workers, c.duration, runtime.GOMAXPROCS(0))
	have := 0
	for i, size := range c.sizes {
		profile := c.profile
		if profile != "" && len(c.sizes) > 1 {
			profile += "." + strconv.Itoa(size)
		}
		b, err := profiled(profile, func() (built, error) { return build(ctx, c, db, have, size) })
		if err != nil {
			return err
		}
		have = size
		how := "Add"
		if c.stage {
			how = "Stage"
		}
		fmt.Fprintf(stdout, "built %d URLs through %s: %d more in %v, %.0f URLs/s, %s per URL written, peak RSS %s (anon %s)\n",
			size, how, b.urls, b.time.Round(time.Millisecond), float64(b.urls)/b.time.Seconds(),
			workload.FormatBytes(float64(b.written)/float64(b.urls)), workload.FormatBytes(float64(b.peak)), workload.FormatBytes(float64(b.anon)))
		salt := strconv.Itoa(i + 1)
		var f, m *result
		if f, err = child(ctx, "-child", "frontier", "-db", db, "-salt", salt, "-hosts", strconv.Itoa(c.hosts), "-drop="+strconv.FormatBool(c.drop),
			"-workers", strconv.Itoa(c.workers), "-duration", c.duration.String(), "-linkbatch", strconv.Itoa(c.linkBatch), "-foldlinks", strconv.Itoa(c.foldLinks),
			"-residentmap", strconv.FormatInt(c.residentMap, 10), "-links", strconv.Itoa(c.links)); err != nil {
			return err
		}
		if c.memory {
			if m, err = child(ctx, "-child", "memory", "-urls", strconv.Itoa(size), "-salt", salt,
				"-hosts", strconv.Itoa(c.hosts), "-workers", strconv.Itoa(c.workers), "-duration", c.duration.String(), "-links", strconv.Itoa(c.links)); err != nil {
				return err
			}
		}
		printTable(stdout, size, f, m)
		if c.floor {
			fl, err := child(ctx, "-child", "floor", "-db", filepath.Join(c.dir, "floor.db"), "-salt", salt, "-hosts", strconv.Itoa(c.hosts),
				"-workers", strconv.Itoa(c.workers), "-duration", c.duration.String(), "-links", strconv.Itoa(c.links))
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "durable floor (one bbolt append a cycle, group commits): %.0f cycles/s, %v CPU per cycle, %s written per cycle, %.1f cycles per commit\n\n",
				rate(fl), (fl.CycleCPU / time.Duration(max(fl.Cycles, 1))).Round(time.Microsecond),
				workload.FormatBytes(float64(fl.Written)/float64(max(fl.Cycles, 1))), float64(fl.Cycles)/float64(max(fl.URLs, 1)))
		}
	}
	return nil
}

// profiled runs build with a CPU profile written to path, unless path is empty.
func profiled(path string, build func() (built, error)) (built, error) {
	if path == "" {
		return build()
	}
	out, err := os.Create(path)
	if err != nil {
		return built{}, err
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return built{}, err
	}
	b, err := build()
	pprof.StopCPUProfile()
	return b, cmpErr(err, out.Close())
}

// built is what build did.
type built struct {
	urls    int
	time    time.Duration
	written int64
	peak    int64 // this process's VmHWM after the build, in bytes
	anon    int64 // its RssAnon then
}

// build grows the database at path from have to want queued URLs, in batches of
// c.batch from two goroutines, as a workload.Corpus lays them out.
func build(ctx context.Context, c *config, path string, have, want int) (built, error) {
	opts := frontier.Options{ResidentMap: c.residentMap}
	if c.stage {
		opts.FoldLinks = c.foldLinks // the folds of the build
	}
	f, err := frontier.Open(path, opts)
	if err != nil {
		return built{}, err
	}
	defer f.Close()
	if path := os.Getenv("FRONTIERBENCH_HEAPPROFILE"); path != "" {
		defer highWatch(path + ".build")()
	}
	start, written := time.Now(), procstat.BytesWritten()
	corpus := func() func([]frontier.Entry, uint64, uint64) []frontier.Entry {
		return workload.NewCorpus(c.hosts).Append // a Corpus per goroutine
	}
	if c.stage {
		err = stageFill(ctx, f, have, want, c.batch, corpus)
	} else {
		err = workload.Fill(ctx, f.Add, have, want, c.batch, corpus)
	}
	if err != nil {
		return built{}, err
	}
	if err := f.Close(); err != nil {
		return built{}, err
	}
	peak, anon, _ := procstat.Memory()
	return built{urls: want - have, time: time.Since(start), written: procstat.BytesWritten() - written, peak: peak, anon: anon}, nil
}

// stageFill is workload.Fill through Stage, then a Flush that folds what is left
// staged.
func stageFill(ctx context.Context, f *frontier.Frontier, have, want, batch int,
	newEntries func() func(dst []frontier.Entry, from, to uint64) []frontier.Entry) error {
	if err := workload.Fill(ctx, f.Stage, have, want, batch, newEntries); err != nil {
		return err
	}
	if err := f.Flush(ctx); err != nil {
		return err
	}
	if s := f.Stats(); s.Added != int64(want) {
		return fmt.Errorf("%d URLs added after the Flush, want %d (%d duplicates)", s.Added, want, s.Duplicates)
	}
	return nil
}

// cmpErr returns a if it is an error, else b.
func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// result is one side's figures at one size. Times are in nanoseconds and sizes in
// bytes.
type result struct {
	Side        string
	URLs        int64         // queued when measured
	FileSize    int64         // frontier, at Open
	FileSizeEnd int64         // frontier, after the cycles
	OpenCold    time.Duration // frontier: Open after dropping the file from the page cache
	OpenWarm    time.Duration // frontier: Open again
	Build       time.Duration // memory: Add of every URL
	HeapInuse   uint64        // after Open or Build, after GC
	PeakRSS     int64         // VmHWM after Open or Build
	RSSAnon     int64         // RssAnon after Open or Build
	RSSFile     int64         // RssFile after Open or Build: the mapped file's pages
	Links       int           // new links per cycle
	Cycles      int64
	CycleTime   time.Duration
	// The process's CPU time during the cycles, the flush included, and the page
	// faults it took: minor (a page mapped again) and major (read from disk).
	CycleCPU    time.Duration
	MinorFaults int64
	MajorFaults int64
	Written     int64 // bytes written during the cycles, the flush included
	FlushTime   time.Duration
	FlushWrite  int64  // bytes written by the flush at the end of the cycles
	HeapEnd     uint64 // after the cycles, after GC
	PeakEnd     int64  // VmHWM after the cycles
	AnonEnd     int64  // RssAnon after the cycles
	FileEnd     int64  // RssFile after the cycles
	// The largest RssAnon and RssFile seen during the cycles, sampled every 20 ms:
	// which of the two makes the peak.
	AnonMax, FileMax int64
}

// child runs this program with args and decodes the result it prints.
func child(ctx context.Context, args ...string) (*result, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(args, " "), err)
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("%s: output %q: %w", strings.Join(args, " "), out.Bytes(), err)
	}
	return &r, nil
}

func measureFrontier(ctx context.Context, c *config) (*result, error) {
	r := &result{Side: "frontier"}
	if c.drop {
		// Where it cannot be done, the "not cached" Open time is a cached one.
		if err := procstat.DropCache(c.db); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			return nil, err
		}
	}
	start := time.Now()
	f, err := frontier.Open(c.db, frontier.Options{ResidentMap: c.residentMap})
	if err != nil {
		return nil, err
	}
	r.OpenCold = time.Since(start)
	if err := f.Close(); err != nil {
		return nil, err
	}
	start = time.Now()
	f, err = frontier.Open(c.db, frontier.Options{LinkBatch: c.linkBatch, FoldLinks: c.foldLinks, ResidentMap: c.residentMap})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r.OpenWarm = time.Since(start)
	r.URLs = f.Stats().Queued
	fi, err := os.Stat(c.db)
	if err != nil {
		return nil, err
	}
	r.FileSize = fi.Size()
	r.HeapInuse = procstat.HeapInuse()
	r.PeakRSS, r.RSSAnon, r.RSSFile = procstat.Memory()

	next := func(ctx context.Context) (*frontier.Entry, string, func([]frontier.Entry) error, error) {
		l, err := f.Next(ctx)
		if err != nil {
			return nil, "", nil, err
		}
		return &l.Entry, l.Host, func(links []frontier.Entry) error {
			return f.Done(ctx, l, frontier.Outcome{Links: links})
		}, nil
	}
	flush := func() error { return f.Flush(ctx) }
	if err := cycles(ctx, c, r, next, flush); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if fi, err = os.Stat(c.db); err != nil {
		return nil, err
	}
	r.FileSizeEnd = fi.Size()
	return r, nil
}

func measureMemory(c *config) (*result, error) {
	r := &result{Side: "memory"}
	m := workload.NewMemory(1)
	const batch = 300_000
	start := time.Now()
	buf := make([]frontier.Entry, 0, batch)
	corpus := workload.NewCorpus(c.hosts)
	for from := uint64(0); from < uint64(c.sizes[0]); from += batch {
		m.Add(corpus.Append(buf[:0], from, min(from+batch, uint64(c.sizes[0])))...)
	}
	r.Build = time.Since(start)
	clear(buf[:cap(buf)])
	buf = nil
	r.URLs = int64(m.Len())
	r.HeapInuse = procstat.HeapInuse()
	r.PeakRSS, r.RSSAnon, r.RSSFile = procstat.Memory()

	next := func(context.Context) (*frontier.Entry, string, func([]frontier.Entry) error, error) {
		l, ok := m.Next(time.Now())
		if !ok {
			return nil, "", nil, errors.New("memory: no host ready")
		}
		return &l.Entry, l.Host, func(links []frontier.Entry) error {
			m.Done(l, time.Now(), links)
			return nil
		}, nil
	}
	if err := cycles(context.Background(), c, r, next, func() error { return nil }); err != nil {
		return nil, err
	}
	runtime.KeepAlive(m) // until cycles measured the heap
	return r, nil
}

// cycles runs c.workers goroutines that lease a URL with next and finish it with
// c.links new links, for c.duration, then flush, and records the
// figures in r.
func cycles(ctx context.Context, c *config, r *result,
	next func(context.Context) (*frontier.Entry, string, func([]frontier.Entry) error, error),
	flush func() error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		n     atomic.Int64
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	start, written := time.Now(), procstat.BytesWritten()
	cpu := procstat.CPUTime()
	minor, major := procstat.PageFaults()
	deadline := start.Add(c.duration)
	sampled := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			_, anon, file := procstat.Memory()
			r.AnonMax, r.FileMax = max(r.AnonMax, anon), max(r.FileMax, file)
			select {
			case <-sampled:
				return
			case <-tick.C:
			}
		}
	})
	defer func() {
		close(sampled)
		sampler.Wait()
	}()
	for w := range c.workers {
		wg.Go(func() {
			id := c.salt<<44 | uint64(w)<<36
			var links []frontier.Entry
			for time.Now().Before(deadline) {
				e, host, done, err := next(ctx)
				if err == nil {
					links = workload.Links(links[:0], e, host, id, c.links, c.hosts)
					id += uint64(c.links)
					err = done(links)
				}
				if err != nil {
					errMu.Lock()
					first = cmpErr(first, err)
					errMu.Unlock()
					cancel()
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	flushStart, flushWritten := time.Now(), procstat.BytesWritten()
	if err := flush(); err != nil {
		return err
	}
	r.FlushTime, r.FlushWrite = time.Since(flushStart), procstat.BytesWritten()-flushWritten
	r.CycleTime = time.Since(start)
	r.CycleCPU = procstat.CPUTime() - cpu
	minorEnd, majorEnd := procstat.PageFaults()
	r.MinorFaults, r.MajorFaults = minorEnd-minor, majorEnd-major
	r.Written = procstat.BytesWritten() - written
	r.Cycles, r.Links = n.Load(), c.links
	r.HeapEnd = procstat.HeapInuse()
	r.PeakEnd, r.AnonEnd, r.FileEnd = procstat.Memory()
	return nil
}

func printTable(w io.Writer, size int, f, m *result) {
	fmt.Fprintf(w, "\n%d URLs over the hosts\n\n", size)
	fmt.Fprintln(w, "| figure | frontier | memory | frontier/memory |")
	fmt.Fprintln(w, "|---|---|---|---|")
	if m == nil {
		m = &result{}
	}
	row := func(name string, fv, mv float64, unit func(float64) string) {
		ratio, fs, ms := "-", "-", "-"
		if mv > 0 && fv > 0 {
			ratio = fmt.Sprintf("%.3g", fv/mv)
		}
		if fv > 0 {
			fs = unit(fv)
		}
		if mv > 0 {
			ms = unit(mv)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", name, fs, ms, ratio)
	}
	count := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	secs := func(v float64) string { return time.Duration(v).Round(time.Millisecond).String() }
	row("URLs queued", float64(f.URLs), float64(m.URLs), count)
	row("Go heap in use after Open/build, after GC", float64(f.HeapInuse), float64(m.HeapInuse), workload.FormatBytes)
	row("peak RSS (VmHWM) after Open/build", float64(f.PeakRSS), float64(m.PeakRSS), workload.FormatBytes)
	row("RssAnon after Open/build", float64(f.RSSAnon), float64(m.RSSAnon), workload.FormatBytes)
	row("RssFile after Open/build", float64(f.RSSFile), float64(m.RSSFile), workload.FormatBytes)
	row("file size at Open", float64(f.FileSize), 0, workload.FormatBytes)
	row("file size per URL queued", float64(f.FileSize)/float64(f.URLs), 0, workload.FormatBytes)
	row("Open, file not cached", float64(f.OpenCold), 0, secs)
	row("Open, file cached", float64(f.OpenWarm), 0, secs)
	row("build in memory (Add of every URL)", 0, float64(m.Build), secs)
	row(fmt.Sprintf("Next/Done+%d links cycles/s", f.Links), rate(f), rate(m), count)
	perCycle := func(r *result, v float64) float64 { return v / float64(max(r.Cycles, 1)) }
	row("CPU time per cycle", perCycle(f, float64(f.CycleCPU)), perCycle(m, float64(m.CycleCPU)),
		func(v float64) string { return time.Duration(v).Round(time.Microsecond).String() })
	row("page faults per cycle, minor", perCycle(f, float64(f.MinorFaults)), perCycle(m, float64(m.MinorFaults)),
		func(v float64) string { return fmt.Sprintf("%.1f", v) })
	row("page faults per cycle, major", perCycle(f, float64(f.MajorFaults)), perCycle(m, float64(m.MajorFaults)),
		func(v float64) string { return fmt.Sprintf("%.1f", v) })
	row("bytes written per cycle", float64(f.Written)/float64(max(f.Cycles, 1)), 0, workload.FormatBytes)
	row("of which by the flush at the end", float64(f.FlushWrite)/float64(max(f.Cycles, 1)), 0, workload.FormatBytes)
	row("flush at the end", float64(f.FlushTime), 0, secs)
	row("Go heap in use after the cycles, after GC", float64(f.HeapEnd), float64(m.HeapEnd), workload.FormatBytes)
	row("peak RSS (VmHWM) after the cycles", float64(f.PeakEnd), float64(m.PeakEnd), workload.FormatBytes)
	row("RssAnon after the cycles", float64(f.AnonEnd), float64(m.AnonEnd), workload.FormatBytes)
	row("RssFile after the cycles", float64(f.FileEnd), float64(m.FileEnd), workload.FormatBytes)
	row("largest RssAnon during the cycles", float64(f.AnonMax), float64(m.AnonMax), workload.FormatBytes)
	row("largest RssFile during the cycles", float64(f.FileMax), float64(m.FileMax), workload.FormatBytes)
	row("file size after the cycles", float64(f.FileSizeEnd), 0, workload.FormatBytes)
	fmt.Fprintln(w)
}

func rate(r *result) float64 {
	if r.CycleTime <= 0 {
		return 0
	}
	return float64(r.Cycles) / r.CycleTime.Seconds()
}

// measureFloor measures what no bbolt frontier can beat with the same durability: each
// cycle appends one record, its outcome and its new links, to a bucket in increasing
// key order (the cheapest write bbolt has: only the rightmost leaf changes), and waits
// for a group commit, as Done does; there is no lease to find, no seen set and no
// queue. c.db is a new file, removed at the end. URLs holds the number of commits.
func measureFloor(ctx context.Context, c *config) (*result, error) {
	os.Remove(c.db)
	defer os.Remove(c.db)
	db, err := bolt.Open(c.db, 0o600, nil)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	type rec struct {
		val  []byte
		done chan error
	}
	ops := make(chan *rec, c.workers)
	var commits atomic.Int64
	var committer sync.WaitGroup
	committer.Go(func() {
		var seq uint64
		batch := make([]*rec, 0, c.workers)
		for first := range ops {
			batch = append(batch[:0], first)
		drain:
			for {
				select {
				case o := <-ops:
					batch = append(batch, o)
				default:
					break drain
				}
			}
			err := db.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucketIfNotExists([]byte("log"))
				if err != nil {
					return err
				}
				b.FillPercent = 1
				for _, o := range batch {
					seq++
					if err := b.Put(binary.BigEndian.AppendUint64(nil, seq), o.val); err != nil {
						return err
					}
				}
				return nil
			})
			commits.Add(1)
			for _, o := range batch {
				o.done <- err
			}
		}
	})
	defer func() {
		close(ops)
		committer.Wait()
	}()
	r := &result{Side: "floor"}
	var host atomic.Uint64
	next := func(ctx context.Context) (*frontier.Entry, string, func([]frontier.Entry) error, error) {
		n := host.Add(1)
		h := workload.Host(int(n % uint64(c.hosts)))
		e := &frontier.Entry{URL: workload.URL(h, n)}
		return e, h, func(links []frontier.Entry) error {
			val := append(make([]byte, 0, 64*(len(links)+1)), e.URL...)
			for _, l := range links {
				val = append(append(val, '\n'), l.URL...)
			}
			o := &rec{val: val, done: make(chan error, 1)}
			select {
			case ops <- o:
			case <-ctx.Done():
				return ctx.Err()
			}
			return <-o.done
		}, nil
	}
	if err := cycles(ctx, c, r, next, func() error { return nil }); err != nil {
		return nil, err
	}
	r.URLs = commits.Load()
	return r, nil
}
