package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
)

func init() {
	register("", "crawl from seed URLs", runCrawl)
}

// crawlFlags are the command-line options of a crawl. Each overrides the configuration
// file's key of the same meaning, only when given.
type crawlFlags struct {
	config       string
	data         string
	seeds        string
	agent        string
	workers      int
	delay        config.Duration
	scope        string
	maxDepth     config.Depth
	maxPages     int
	timeLimit    config.Duration
	allowPrivate bool
	text         bool
	metrics      string
	logLevel     string
	progress     string
	cluster      string
	shards       string
	shardCount   int
	name         string
	dedupFrom    pathList
	requisites   bool
}

// pathList is a flag given once per path.
type pathList []string

func (l *pathList) String() string     { return strings.Join(*l, ",") }
func (l *pathList) Set(s string) error { *l = append(*l, s); return nil }

func (f *crawlFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "read the configuration from this YAML `file` (see config.example.yaml)")
	fs.StringVar(&f.data, "data", "", "data `dir`ectory (data_dir; default crawl-data)")
	fs.StringVar(&f.seeds, "seeds", "", "read more seed URLs from this `file`, one a line")
	fs.StringVar(&f.agent, "agent", "", "User-Agent `value` (user_agent); must start with a product token")
	fs.IntVar(&f.workers, "workers", 0, "fetches in flight over all hosts (workers; default 64)")
	fs.Var(&f.delay, "delay", "least `time` between requests to one host, such as 200ms or 5 (seconds) (politeness.min_delay; default 1s)")
	fs.StringVar(&f.scope, "scope", "", "scope `mode`: host, domain, prefix or any (scope.mode; default host)")
	fs.Var(&f.maxDepth, "max-depth", "links followed from a seed: a `number`, 0 = unlimited, or seeds = the seeds only (scope.max_depth)")
	fs.Var(&f.timeLimit, "time-limit", "stop this run after this `time`, such as 30m or 2h, as Ctrl-C does; run again to go on (scope.max_duration)")
	fs.IntVar(&f.maxPages, "max-pages", 0, "pages fetched over the whole crawl, across runs; 0 = unlimited (scope.max_pages)")
	fs.BoolVar(&f.allowPrivate, "allow-private", false, "allow loopback and private addresses (network.allow_private)")
	fs.BoolVar(&f.text, "text", false, "add page text to pages.jsonl (storage.text)")
	fs.BoolVar(&f.requisites, "requisites", true, "also fetch what pages need to be shown: stylesheets, images, fonts, scripts, frames; -requisites=false for links only (requisites.enabled)")
	fs.StringVar(&f.metrics, "metrics", "", "serve Prometheus metrics on this `addr`ess (metrics_addr)")
	fs.StringVar(&f.logLevel, "log-level", "", "debug, info, warn or error (log_level)")
	fs.StringVar(&f.cluster, "cluster", "", "share the crawl with other processes through this NATS `URL`, such as nats://127.0.0.1:4222 (cluster.url)")
	fs.StringVar(&f.shards, "shards", "", "with -cluster: the shards this process owns, such as 0-15 (cluster.shards)")
	fs.IntVar(&f.shardCount, "shard-count", 0, "with -cluster: shards of the whole crawl, the same in every process (cluster.shard_count; default 64)")
	fs.StringVar(&f.name, "name", "", "with -cluster: this process's `name` in the crawl (cluster.name; default HOST-shards-SHARDS)")
	fs.Var(&f.dedupFrom, "dedup-from", "deduplicate against an earlier crawl: its data `dir`ectory, digests.db or CDXJ file; once per source (dedup_from)")
	fs.StringVar(&f.progress, "progress", "auto", "progress display: auto (a live line on a terminal, else a log line every 10s), line, log or none")
}

// apply writes the flags that were given over cfg.
func (f *crawlFlags) apply(fs *flag.FlagSet, cfg *config.Config) {
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "data":
			cfg.DataDir = f.data
		case "seeds":
			cfg.SeedsFile = f.seeds
		case "agent":
			cfg.UserAgent = f.agent
		case "workers":
			cfg.Workers = f.workers
		case "delay":
			cfg.Politeness.MinDelay = f.delay
			if cfg.Politeness.MaxDelay < cfg.Politeness.MinDelay {
				cfg.Politeness.MaxDelay = cfg.Politeness.MinDelay
			}
		case "scope":
			cfg.Scope.Mode = f.scope
		case "max-depth":
			cfg.Scope.MaxDepth = f.maxDepth
		case "max-pages":
			cfg.Scope.MaxPages = f.maxPages
		case "time-limit":
			cfg.Scope.MaxDuration = f.timeLimit
		case "allow-private":
			cfg.Network.AllowPrivate = f.allowPrivate
		case "text":
			cfg.Storage.Text = f.text
		case "requisites":
			cfg.Requisites.Enabled = f.requisites
		case "metrics":
			cfg.MetricsAddr = f.metrics
		case "log-level":
			cfg.LogLevel = f.logLevel
		case "cluster":
			cfg.Cluster.URL = f.cluster
		case "shards":
			cfg.Cluster.Shards = f.shards
		case "shard-count":
			cfg.Cluster.ShardCount = f.shardCount
		case "name":
			cfg.Cluster.Name = f.name
		case "dedup-from":
			cfg.DedupFrom = f.dedupFrom
		}
	})
}

func runCrawl(ctx context.Context, m *Main, args []string) error {
	cfg, progress, err := crawlConfig(m, args)
	if err != nil {
		return err
	}
	return runEngine(ctx, m, cfg, progress)
}

// crawlConfig turns the crawl's command line into a validated configuration and the
// -progress mode.
func crawlConfig(m *Main, args []string) (config.Config, string, error) {
	fs := m.flagSet("crawl", "usage: crawl [flags] [URL...]\n\nCrawls politely from the seed URLs into the data directory; running the same\ncommand again resumes. Flags may come before or after the URLs. Sub-commands:\ncrawl help.")
	var f crawlFlags
	f.register(fs)
	urls, err := parseFlags(fs, args)
	if err != nil {
		return config.Config{}, "", err
	}
	switch f.progress {
	case "auto", "line", "log", "none":
	default:
		return config.Config{}, "", usagef("-progress must be auto, line, log or none")
	}
	for _, u := range urls {
		if err := checkBareWord(u); err != nil {
			return config.Config{}, "", err
		}
	}
	cfg, err := loadConfig(f.config)
	if err != nil {
		return cfg, "", err
	}
	f.apply(fs, &cfg)
	cfg.Seeds = append(cfg.Seeds, urls...)
	if err := cfg.Validate(); err != nil {
		return cfg, "", usagef("%v", err)
	}
	if !dataDirExists(cfg.DataDir) {
		if len(cfg.Seeds) == 0 && cfg.SeedsFile == "" {
			fs.Usage()
			return cfg, "", usagef("no seed URLs: give URLs, -seeds FILE or seeds in -config")
		}
		if cfg.SeedsFile != "" {
			// The engine reads the file as it crawls; a file that is not there is a
			// mistake in the command, found before a data directory is made.
			if _, err := os.Stat(cfg.SeedsFile); err != nil {
				return cfg, "", usagef("seeds file: %v", err)
			}
		}
	}
	return cfg, f.progress, nil
}

// runEngine runs a crawl of cfg with signals, progress and a final summary.
func runEngine(ctx context.Context, m *Main, cfg config.Config, progress string) error {
	c, err := crawl.New(cfg)
	if err != nil {
		return usagef("%v", err)
	}
	out := &console{w: m.Stderr}
	c.Stderr = out
	c.OnPermanent = func(e *crawl.PermanentError) {
		out.println(fmt.Sprintf("crawl: warning: cannot fetch %s: %s; %s", e.URL, e.Cause, permanentAdvice(e)))
	}
	named := int64(0) // skipped lines of the seeds file named on stderr
	c.OnSeedSkip = func(path string, s config.SeedSkip) {
		named++
		out.println(fmt.Sprintf("crawl: warning: %s: %s; line skipped", path, s))
	}
	c.OnSeedsRead = func(r crawl.SeedsRead) {
		if r.Skipped > named {
			out.println(fmt.Sprintf("crawl: warning: %s: %d more lines skipped", r.Path, r.Skipped-named))
		}
		if r.Skipped > 0 {
			out.println(fmt.Sprintf("crawl: warning: %s: %d seeds read, %d lines skipped", r.Path, r.Seeds, r.Skipped))
		}
	}
	var every time.Duration
	asLine := false
	switch progress {
	case "auto":
		if isTerminal(m.Stderr) {
			every, asLine = time.Second, true
		} else {
			every = 10 * time.Second
		}
	case "line":
		every, asLine = time.Second, true
	case "log":
		every = 10 * time.Second
	case "none":
	default:
		return usagef("-progress must be auto, line, log or none")
	}
	if every > 0 && !asLine {
		c.ProgressEvery = every // a progress record in crawl.log too
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sigs, stop := m.notifySignals()
	defer stop()
	interrupted := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-ctx.Done():
			return
		}
		close(interrupted)
		out.println("crawl: stopping: finishing fetches in flight (signal again to stop at once)")
		cancel()
		select {
		case <-sigs:
			// Everything finished is already durable; what was in flight is fetched
			// again on the next run.
			out.println("crawl: stopped at once; run the same command again to resume")
			os.Exit(130)
		case <-c.Done():
		}
	}()

	progressCtx, stopProgress := context.WithCancel(ctx)
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		if every > 0 {
			showProgress(progressCtx, c, out, every, asLine)
		}
	}()
	runErr := c.Run(ctx)
	stopProgress()
	<-progressDone
	sum := c.Summary()
	if !sum.Started {
		// Nothing was crawled: no summary, and nothing to resume.
		select {
		case <-interrupted:
			return errInterrupted
		default:
		}
		if errors.Is(runErr, crawl.ErrNoSeeds) || errors.As(runErr, new(*crawl.SeedsChangedError)) {
			return seedsFileError(runErr)
		}
		if errors.Is(runErr, crawl.ErrInUse) {
			return fmt.Errorf("%s is in use by another crawl (its frontier.db is locked): wait for that crawl to end, or give another -data directory", cfg.DataDir)
		}
		return runErr
	}
	fmt.Fprintln(m.Stdout, sum.String())
	if sum.WasComplete && sum.Complete && sum.Pages == 0 {
		fmt.Fprintf(m.Stdout, "%[1]s already holds a complete crawl: nothing was left to fetch. For a new\n"+
			"snapshot, crawl into a new directory and store only what changed:\n"+
			"  crawl -data NEW_DIR -dedup-from %[1]s URL...\n"+
			"To fetch its pages again as they change, set recrawl.interval (README, \"Recrawl\").\n", cfg.DataDir)
	}
	select {
	case <-interrupted:
		if runErr == nil || errors.Is(runErr, context.Canceled) {
			return errInterrupted
		}
	default:
	}
	if sum.LimitReached && runErr == nil {
		fmt.Fprintf(m.Stderr, "crawl: stopped at the page limit with %d URLs queued: run again with a larger -max-pages (scope.max_pages) to go on\n", sum.Queued)
	}
	if runErr == nil && sum.NothingFetched() {
		if sum.Warnings > 0 {
			return fmt.Errorf("no page fetched: %d fetches failed (see the warnings above)", sum.Errors)
		}
		return fmt.Errorf("no page fetched: %d fetches failed (see %s)", sum.Errors, filepath.Join(sum.DataDir, "crawl.log"))
	}
	return runErr
}

func loadConfig(path string) (config.Config, error) {
	if path == "" {
		return config.Default(), nil
	}
	file, err := os.Open(path)
	if err != nil {
		return config.Config{}, usagef("%v", err)
	}
	defer file.Close()
	cfg, err := config.Parse(file)
	if err != nil {
		return cfg, usagef("%s: %v", path, err)
	}
	return cfg, nil
}

// seedsFileError renders an error of the seeds file: a file without seed URLs is a
// usage error, and a file changed under a resumed crawl gets what to do.
func seedsFileError(err error) error {
	var changed *crawl.SeedsChangedError
	switch {
	case errors.Is(err, crawl.ErrNoSeeds):
		return usagef("%v", err)
	case errors.As(err, &changed):
		return fmt.Errorf("%v.\nA resumed crawl reads on from where it stopped, so the part it read must stay as it was. "+
			"Put the file back as it was (lines may be added at its end), or give the new seeds with -seeds in a file of another name: "+
			"it is read from its start, and seeds already queued are not queued twice", err)
	}
	return err
}

func dataDirExists(dir string) bool {
	_, err := os.Stat(dir)
	return err == nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
