// Crawlbench measures politecrawl on a crawltest farm: how close it keeps every host to
// its allowed pace, how much CPU a page costs beside the simplest crawler that could
// fetch the same pages, how its frontier behaves at millions of URLs, and what a kill -9
// costs. It runs the real engine with its defaults (durable bbolt frontier, WARC files,
// pages.jsonl) in a temporary data directory and prints one line per scenario.
//
// Usage:
//
//	go run ./crawltest/cmd/crawlbench [-scenario polite,cpu,scale,resume,hostile,requisites,h2,seeds] [-short] [-out DIR]
//
// Scenarios:
//
//   - polite: 500 hosts × 40 pages, min_delay 1s, five hosts with a Crawl-delay of
//     1.5s, crawled in this process. Politeness efficiency (ideal time / actual time)
//     and the smallest gap between two requests to a host divided by the allowed gap.
//   - cpu: 1,000 hosts × 20 pages of 30 KB with 50 links each, no delay (min_delay 1ns:
//     the configuration has no way to say zero, see noDelay). Pages per second and per
//     CPU-second of the crawler, and of a ceiling crawler (net/http, goquery, a map for
//     the seen set, no storage) on the same farm with as many workers; each runs in a
//     child process so that its CPU time (getrusage) is its own, the farm staying here.
//   - scale: a frontier grown to 1 and then 10 million URLs over 100,000 hosts by
//     frontier.Add in large batches, each time opened by a fresh process: Open time,
//     peak RSS (VmHWM), Go heap, file bytes per URL and Next/Done cycles per second.
//   - resume: the cpu crawl in a child process killed with SIGKILL after a third of its
//     requests (or -resume-kill-after from its start), then run again: extra fetches,
//     the time from the restart to the first request the farm sees, and the second
//     run's wall time, against a goal of 50 s (a host held back for max_delay, 60 s,
//     after the kill would miss it).
//   - hostile: two crawls in child processes, with min_delay 10ms: two sites of each
//     kind of crawltest.HostileSites (gzip bombs of 64 MiB decoded, 10 MiB pages without
//     Content-Length, one 10 MiB text run, deep nesting, tag soup) beside 50 ordinary
//     sites of 20 pages, then 16 bomb hosts at once. The peak RSS (VmHWM) of each crawl,
//     against goals of 100 MB and 150 MB.
//   - requisites: crawltest.RequisiteFarm (10 hosts × 30 pages needing stylesheets, a
//     script, images and a font, an image on a shared host, one robots.txt disallows),
//     min_delay 50ms, crawled by the engine and then by Debian's wget --page-requisites
//     --warc-file --wait 0.05: requisites archived, requests, wall time and politeness
//     violations of each.
//   - h2: the cpu scenario's farm (without cross-host links) over https, crawled with
//     fetch.http2 off and then on, each in a child process: pages per second and per
//     CPU-second, and the TLS handshakes the farm saw, for HTTP/1.1 and for h2.
//   - seeds: a seeds file of 10 million URLs over 100,000 hosts (every batch of the
//     file touches every host), read by the engine in a child process until its seeds
//     are queued, then by a second one, as a resume: wall time, peak RSS (VmHWM) and
//     bytes of the file read by each. The hosts are private addresses, which nothing
//     fetches.
//
// Other flags: -out DIR keeps the data directories and writes results.json and
// results.md (a table for BENCHMARKS.md) there; -profile adds CPU profiles of the
// crawler, the ceiling, the frontier build and cycles (each with the profile of its
// process's allocations beside it, NAME-allocs.pprof), and a heap profile of the
// frontier, to DIR; -scale-urls sets the scale sizes; -workers the crawler's workers;
// -resume-delay gives the resume crawl a min_delay, so that the audit checks the
// spacing of each host across the kill; -resume-kill-after D kills its first run D
// after the run's start (the kill-and-resume check runs it at 1, 2, 3 and 5 s); -queued N first fills the cpu crawl's frontier
// with N URLs over the scale scenario's hosts (none of them due during the crawl), and
// the crawl then stops at max_pages, the farm's page count: the cost of a large
// frontier to a crawl; -queued-cache DIR builds that frontier once into DIR and copies
// it into each later run's crawl; -link-batch N sets the engine's frontier.link_batch (0: each
// page's links queued one by one), so that one binary compares the two; -requisites
// off crawls without page requisites (requisites.enabled false).
//
// -short runs every scenario at a small size and checks only that each completes and
// that the politeness audit passes; it never judges a figure. The command exits with
// status 1 when a scenario fails (an audit violation, an incomplete crawl, an error),
// 2 on a usage error and 0 otherwise, goals met or not.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"
)

func main() {
	if job := os.Getenv(childEnv); job != "" {
		os.Exit(runChild(job, os.Stdout, os.Stderr))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	m := &Main{Stdout: os.Stdout, Stderr: os.Stderr}
	code := m.Exit(m.Run(ctx, os.Args[1:]))
	stop()
	os.Exit(code)
}

// Main is the command, with its output streams, so that tests run it in-process.
type Main struct {
	Stdout io.Writer // one line per scenario
	Stderr io.Writer // progress and errors
}

// errUsage marks a bad command line: exit status 2.
var errUsage = errors.New("usage error")

// usagef is a mistake on the command line, said by format and args; it is errUsage.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == errUsage }

// errFailed marks a run in which some scenario failed: exit status 1.
var errFailed = errors.New("some scenarios failed")

// scenarioOrder is the order scenarios run in, whatever order -scenario names them.
var scenarioOrder = []string{"polite", "cpu", "scale", "resume", "hostile", "requisites", "h2", "seeds"}

// options is the command line.
type options struct {
	scenarios map[string]bool
	short     bool
	out       string // "" means a temporary directory, removed at the end
	profile   bool
	workers   int
	// resumeDelay is the resume scenario's min_delay; 0 means as the cpu scenario.
	resumeDelay time.Duration
	// resumeKillAfter, when set, is when the resume scenario kills the first run,
	// from its start, rather than after a share of the requests.
	resumeKillAfter time.Duration
	// queued is how many URLs on other hosts, not due, the cpu crawl's frontier holds
	// before it starts; 0: none.
	queued int
	// queuedCache, when set, is a directory where the queued frontier is built once
	// and copied from for each run; "": built in each run's data directory.
	queuedCache string
	// linkBatch is the engine's frontier.link_batch in every crawl; negative: its
	// default.
	linkBatch int
	// storage lists storage options every crawl turns on (text, text_records, wet,
	// parquet).
	storage []string
	// requisites is the engine's requisites.enabled in every crawl: "" its default
	// (on), "on" or "off".
	requisites string
	size       sizes
}

func parseArgs(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("crawlbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	list := fs.String("scenario", strings.Join(scenarioOrder, ","), "comma-separated `scenarios` to run: polite, cpu, scale, resume, hostile, requisites, h2, seeds")
	o := &options{}
	fs.BoolVar(&o.short, "short", false, "small sizes: check that every scenario completes and keeps the politeness audit, judge no figure")
	fs.StringVar(&o.out, "out", "", "keep data directories, results.json, results.md and profiles in this `dir`ectory (default: a temporary one, removed)")
	fs.BoolVar(&o.profile, "profile", false, "write CPU and allocation profiles of the crawler, the ceiling and the frontier cycles, and a heap profile of the frontier, into -out")
	fs.IntVar(&o.workers, "workers", 64, "crawler workers (the engine's default is 64); the ceiling uses as many")
	scaleURLs := fs.String("scale-urls", "", "comma-separated frontier `sizes` the scale scenario grows to and measures in turn (default 1000000,10000000; -short 100000)")
	fs.IntVar(&o.queued, "queued", 0, "before the cpu crawl, queue this many `URLs` over other hosts (the scale scenario's), none due during the crawl")
	fs.StringVar(&o.queuedCache, "queued-cache", "", "build -queued's frontier once into this `dir`ectory and copy it into each run's crawl (default: build it in the crawl's)")
	fs.IntVar(&o.linkBatch, "link-batch", -1, "the engine's frontier.link_batch in every crawl, in `links` (0: off; default: the engine's default)")
	storage := fs.String("storage", "", "comma-separated storage `options` every crawl turns on: text, text_records, wet, parquet (default: none, the engine's defaults)")
	fs.StringVar(&o.requisites, "requisites", "", "the engine's requisites.enabled in every crawl: on or off (default: the engine's default, on)")
	fs.DurationVar(&o.resumeDelay, "resume-delay", 0, "min_delay of the resume crawl, audited across the kill (default: none, as the cpu scenario)")
	fs.DurationVar(&o.resumeKillAfter, "resume-kill-after", 0, "kill the resume crawl's first run this `long` after its start (default: after a third of its requests)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, errUsage
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected argument %q", fs.Arg(0))
	}
	switch o.requisites {
	case "", "on", "off":
	default:
		return nil, usagef("-requisites: %q, want on or off", o.requisites)
	}
	o.scenarios = map[string]bool{}
	for s := range strings.SplitSeq(*list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		known := false
		for _, k := range scenarioOrder {
			known = known || k == s
		}
		if !known {
			return nil, usagef("-scenario: unknown scenario %q (want polite, cpu, scale, resume, hostile, requisites or h2)", s)
		}
		o.scenarios[s] = true
	}
	if len(o.scenarios) == 0 {
		return nil, usagef("-scenario: no scenario named")
	}
	if o.profile && o.out == "" {
		return nil, usagef("-profile needs -out DIR to write the profiles to")
	}
	if o.resumeDelay < 0 {
		return nil, usagef("-resume-delay must not be negative")
	}
	if o.resumeKillAfter < 0 {
		return nil, usagef("-resume-kill-after must not be negative")
	}
	if o.queued < 0 {
		return nil, usagef("-queued must not be negative")
	}
	if o.workers < 1 || o.workers > 10000 {
		return nil, usagef("-workers must be between 1 and 10000")
	}
	for s := range strings.SplitSeq(*storage, ",") {
		switch s = strings.TrimSpace(s); s {
		case "":
		case "text", "text_records", "wet", "parquet":
			o.storage = append(o.storage, s)
		default:
			return nil, usagef("-storage: unknown option %q (want text, text_records, wet or parquet)", s)
		}
	}
	o.size = fullSizes
	if o.short {
		o.size = shortSizes
	}
	if *scaleURLs != "" {
		o.size.scaleURLs = nil
		for v := range strings.SplitSeq(*scaleURLs, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n <= 0 {
				return nil, usagef("-scale-urls: %q is not a positive number", v)
			}
			if k := len(o.size.scaleURLs); k > 0 && n <= o.size.scaleURLs[k-1] {
				return nil, usagef("-scale-urls: sizes must grow, %d does not", n)
			}
			o.size.scaleURLs = append(o.size.scaleURLs, n)
		}
	}
	return o, nil
}

// Run runs the scenarios named in args and prints a line for each. It returns
// errFailed (wrapped) when one of them failed.
func (m *Main) Run(ctx context.Context, args []string) error {
	o, err := parseArgs(args, m.Stderr)
	if err != nil {
		return err
	}
	dir := o.out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "crawlbench"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b := &bench{opts: o, dir: dir, stderr: m.Stderr}
	defer b.close()

	mode := "full size"
	if o.short {
		mode = "short"
	}
	fmt.Fprintf(m.Stdout, "crawlbench %s, %s, %d workers, data in %s\n", mode, machine(), o.workers, dir)
	var results []*result
	failed := 0
	for _, name := range scenarioOrder {
		if !o.scenarios[name] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r := b.run(ctx, name)
		results = append(results, r)
		fmt.Fprintln(m.Stdout, r.line())
		if len(r.Problems) > 0 {
			failed++
		}
	}
	if o.out != "" {
		if err := writeResults(dir, o, results); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d: %w", failed, len(results), errFailed)
	}
	return nil
}

// Exit reports err on stderr and turns it into an exit status: 0 success, 1 failure,
// 2 usage error.
func (m *Main) Exit(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		if err != errUsage {
			fmt.Fprintln(m.Stderr, "crawlbench:", err)
		}
		return 2
	default:
		fmt.Fprintln(m.Stderr, "crawlbench:", err)
		return 1
	}
}

// bench is one run of the command: its options, directory and the farm the cpu and
// resume scenarios share.
type bench struct {
	opts   *options
	dir    string
	stderr io.Writer
	cpu    *cpuFarm // started by the first scenario that needs it
	jobs   int      // child jobs started, to name their files
}

func (b *bench) close() {
	if b.cpu != nil {
		b.cpu.farm.Close()
	}
}

// run runs one scenario within its time bound and returns its result; an error
// becomes a problem of the result.
func (b *bench) run(ctx context.Context, name string) *result {
	r := &result{Scenario: name}
	timeout := b.opts.size.timeout
	if name == "scale" || name == "seeds" || name == "cpu" && b.opts.queued > 0 {
		timeout = b.opts.size.scaleTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	var err error
	switch name {
	case "polite":
		err = b.polite(ctx, r)
	case "cpu":
		err = b.cpuScenario(ctx, r)
	case "scale":
		err = b.scale(ctx, r)
	case "resume":
		err = b.resume(ctx, r)
	case "hostile":
		err = b.hostile(ctx, r)
	case "requisites":
		err = b.requisites(ctx, r)
	case "h2":
		err = b.h2Scenario(ctx, r)
	case "seeds":
		err = b.seeds(ctx, r)
	}
	r.Elapsed = time.Since(start)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("not finished within %v: %w", timeout, err)
		}
		r.problem("%v", err)
	}
	return r
}

// logf writes a progress line on stderr.
func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.stderr, "crawlbench: "+format+"\n", args...)
}
