package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/frontier/workload"
	"github.com/politecrawl/crawl/internal/procstat"
)

// seedsJob reads a seeds file into a crawl and stops once its seeds are queued.
type seedsJob struct {
	DataDir, SeedsFile string
}

// seeds is the seeds scenario: a first run reads the whole file, a second one
// resumes.
func (b *bench) seeds(ctx context.Context, r *result) error {
	n, hosts := b.opts.size.seedsURLs, b.opts.size.seedsHosts
	path := filepath.Join(b.dir, "seeds.txt")
	size, err := writeSeeds(path, n, hosts)
	if err != nil {
		return err
	}
	b.logf("seeds: %d seeds over %d hosts, %s", n, hosts, workload.FormatBytes(float64(size)))
	j := &job{Kind: "seeds", Seeds: &seedsJob{DataDir: filepath.Join(b.dir, "seeds-data"), SeedsFile: path}}
	for _, run := range []string{"first run", "resume"} {
		c, err := b.runChildJob(ctx, j)
		if err != nil {
			return err
		}
		read := c.SeedsRead
		if read == nil || !read.Done {
			return fmt.Errorf("seeds %s: the file not read to its end: %+v", run, read)
		}
		r.add(run+" wall", c.Wall.Seconds(), c.Wall.Round(10*time.Millisecond).String())
		r.add(run+" peak RSS", float64(c.PeakRSS), workload.FormatBytes(float64(c.PeakRSS)))
		r.add(run+" bytes of the file read", float64(read.Bytes), workload.FormatBytes(float64(read.Bytes)))
		r.add(run+" seeds read", float64(read.Seeds), fmt.Sprint(read.Seeds))
		if run == "first run" && read.Queued != int64(n) {
			r.problem("first run queued %d seeds, want %d", read.Queued, n)
		}
		if run == "resume" && read.Bytes != 0 {
			r.problem("the resume read %d bytes of the seeds file, want none", read.Bytes)
		}
	}
	return nil
}

// writeSeeds writes n seed URLs over hosts hosts (private addresses), the hosts
// interleaved, and returns the file's size.
func writeSeeds(path string, n, hosts int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		h := i % hosts
		fmt.Fprintf(w, "http://10.%d.%d.%d/p/%d/page-%d.html\n", h>>16&255, h>>8&255, h&255, i/hosts, i)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	return st.Size(), f.Close()
}

// readSeeds runs the engine on j's seeds file until it has queued its seeds.
func readSeeds(ctx context.Context, j *seedsJob, stderr io.Writer) (*childResult, error) {
	cfg := config.Default()
	cfg.DataDir, cfg.SeedsFile, cfg.Workers = j.DataDir, j.SeedsFile, 4
	c, err := crawl.New(cfg)
	if err != nil {
		return nil, err
	}
	c.Stderr = stderr
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.OnSeedsRead = func(crawl.SeedsRead) { cancel() } // nothing is fetched: the hosts are private
	cpu0, start := procstat.CPUTime(), time.Now()
	err = c.Run(ctx)
	r := &childResult{Wall: time.Since(start), CPU: procstat.CPUTime() - cpu0}
	if err != nil && !errors.Is(err, context.Canceled) {
		return nil, fmt.Errorf("crawl: %w", err)
	}
	read := c.SeedsRead()
	r.SeedsRead = &read
	return r, nil
}
