package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/internal/procstat"
)

// childEnv, when set, makes this program run one job instead of the command: the value
// names a JSON file holding the job. The crawler, the ceiling and the frontier
// measurements run in child processes so that each one's CPU time and memory are its
// own (the farm stays in the parent), and so that the resume scenario can SIGKILL a
// crawl. The child is this very binary (os.Executable), under go run and go test alike.
const childEnv = "CRAWLBENCH_CHILD_JOB"

// job is the work of a child process.
type job struct {
	Kind    string // "crawl", "ceiling", "scale" or "seeds"
	Profile string // when set, write a CPU profile of the measured part here
	Crawl   *crawlJob
	Scale   *scaleJob
	Seeds   *seedsJob
}

// crawlJob is a crawl of the farm, by the engine ("crawl") or the ceiling.
type crawlJob struct {
	DataDir  string
	Seeds    []string
	Resolve  map[string]string // farm host:80 → the farm's address
	FarmAddr string
	Workers  int
	MinDelay time.Duration
	MaxPages int // scope.max_pages; 0: none
	// LinkBatch is frontier.link_batch; nil: the engine's default.
	LinkBatch *int
	// Storage lists storage options to turn on: text, text_records, wet, parquet.
	Storage []string
	// Requisites is requisites.enabled; nil: the engine's default.
	Requisites *bool
	// CAFile and HTTP2 are fetch.ca_file and fetch.http2 (the h2 scenario).
	CAFile, HTTP2 string
}

// scaleJob opens a frontier built by the parent and measures it.
type scaleJob struct {
	DB          string
	Hosts       int
	Workers     int
	Cycles      time.Duration // 0: measure Open and memory only
	Salt        int           // makes the URLs the cycles add distinct between runs
	HeapProfile string
}

// childResult is what a child measured. Durations are in nanoseconds, sizes in bytes.
type childResult struct {
	// crawl and ceiling
	Pages    int64 // pages fetched (robots.txt excluded)
	Links    int64 // links extracted (ceiling)
	Complete bool
	Wall     time.Duration // of the crawl
	CPU      time.Duration // user+system CPU time of the crawl
	Summary  string
	// StorageWait and FrontierWait are the engine's waits, summed over workers
	// (crawl.Summary).
	StorageWait, FrontierWait time.Duration

	// scale
	URLs       int64 // queued at Open
	Hosts      int
	OpenCold   time.Duration // 0 when the page cache could not be dropped
	OpenWarm   time.Duration
	HeapInuse  uint64 // after Open, after GC
	RSSAnon    int64  // after Open
	RSSFile    int64  // after Open: pages of the mapped file
	Cycles     int64
	CycleTime  time.Duration
	CycleCPU   time.Duration
	HeapEnd    uint64 // after the cycles, after GC
	RSSAnonEnd int64
	RSSFileEnd int64
	URLsEnd    int64

	// seeds
	SeedsRead *crawl.SeedsRead

	PeakRSS int64 // VmHWM at the end
}

// runChild runs the job in the file named by path and writes its result as JSON on
// stdout. It returns the exit status.
func runChild(path string, stdout, stderr io.Writer) int {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "crawlbench child:", err)
		return 1
	}
	var j job
	if err := json.Unmarshal(data, &j); err != nil {
		fmt.Fprintln(stderr, "crawlbench child:", path, err)
		return 1
	}
	r, err := j.run(context.Background(), stderr)
	if err != nil {
		fmt.Fprintf(stderr, "crawlbench child %s: %v\n", j.Kind, err)
		return 1
	}
	r.PeakRSS, _, _ = procstat.Memory()
	if err := json.NewEncoder(stdout).Encode(r); err != nil {
		fmt.Fprintln(stderr, "crawlbench child:", err)
		return 1
	}
	return 0
}

func (j *job) run(ctx context.Context, stderr io.Writer) (*childResult, error) {
	stopProfile, err := startProfile(j.Profile)
	if err != nil {
		return nil, err
	}
	defer stopProfile()
	switch {
	case j.Kind == "crawl" && j.Crawl != nil:
		return runEngine(ctx, j.Crawl, stderr)
	case j.Kind == "ceiling" && j.Crawl != nil:
		return runCeiling(ctx, j.Crawl)
	case j.Kind == "scale" && j.Scale != nil:
		return measureScale(ctx, j.Scale)
	case j.Kind == "seeds" && j.Seeds != nil:
		return readSeeds(ctx, j.Seeds, stderr)
	}
	return nil, fmt.Errorf("bad job %q", j.Kind)
}

// startProfile starts a CPU profile into path, unless path is empty, and returns the
// function that stops it and writes beside it (NAME-allocs.pprof for NAME.pprof) the
// profile of the allocations the process made (go tool pprof -sample_index
// alloc_space).
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		if a, err := os.Create(strings.TrimSuffix(path, ".pprof") + "-allocs.pprof"); err == nil {
			pprof.Lookup("allocs").WriteTo(a, 0) //nolint:errcheck // a profile is best effort, as the CPU one
			a.Close()
		}
	}, nil
}

// child is a child process running a job.
type child struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	kind   string
	done   chan struct{} // closed when the process has exited
	err    error         // of Wait, set before done is closed
}

// startChild writes j to a file in b.dir and starts this program on it. The child is
// killed if ctx ends.
func (b *bench) startChild(ctx context.Context, j *job) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if j.Kind == "crawl" && b.opts.linkBatch >= 0 {
		j.Crawl.LinkBatch = &b.opts.linkBatch
	}
	if j.Kind == "crawl" {
		j.Crawl.Storage = b.opts.storage
	}
	if j.Kind == "crawl" && b.opts.requisites != "" {
		on := b.opts.requisites == "on"
		j.Crawl.Requisites = &on
	}
	b.jobs++
	path := filepath.Join(b.dir, fmt.Sprintf("job-%02d-%s.json", b.jobs, j.Kind))
	data, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, err
	}
	c := &child{kind: j.Kind, done: make(chan struct{})}
	c.cmd = exec.CommandContext(ctx, exe)
	c.cmd.Env = append(os.Environ(), childEnv+"="+path)
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s child: %w", j.Kind, err)
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// wait waits for the child to exit and decodes its result.
func (c *child) wait() (*childResult, error) {
	<-c.done
	if c.err != nil {
		return nil, fmt.Errorf("%s child: %v: %s", c.kind, c.err, lastLines(c.stderr.String(), 5))
	}
	var r childResult
	if err := json.Unmarshal(c.stdout.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("%s child: output %q: %v", c.kind, lastLines(c.stdout.String(), 3), err)
	}
	return &r, nil
}

// kill sends SIGKILL (on Unix) and waits for the process to exit.
func (c *child) kill() error {
	err := c.cmd.Process.Kill()
	<-c.done
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// runChildJob runs j in a child process and returns its result.
func (b *bench) runChildJob(ctx context.Context, j *job) (*childResult, error) {
	c, err := b.startChild(ctx, j)
	if err != nil {
		return nil, err
	}
	return c.wait()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// profilePath returns where a profile named name goes, or "" without -profile.
func (b *bench) profilePath(name string) string {
	if !b.opts.profile {
		return ""
	}
	return filepath.Join(b.dir, name)
}
