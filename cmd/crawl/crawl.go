package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/politecrawl/crawl"
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
	delay        time.Duration
	scope        string
	maxDepth     int
	maxPages     int
	allowPrivate bool
	text         bool
	metrics      string
	logLevel     string
	progress     string
}

func (f *crawlFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "read the configuration from this YAML `file` (see config.example.yaml)")
	fs.StringVar(&f.data, "data", "", "data `dir`ectory (data_dir; default crawl-data)")
	fs.StringVar(&f.seeds, "seeds", "", "read more seed URLs from this `file`, one a line")
	fs.StringVar(&f.agent, "agent", "", "User-Agent `value` (user_agent); must start with a product token")
	fs.IntVar(&f.workers, "workers", 0, "fetches in flight over all hosts (workers; default 64)")
	fs.DurationVar(&f.delay, "delay", 0, "least `time` between requests to one host (politeness.min_delay; default 1s)")
	fs.StringVar(&f.scope, "scope", "", "scope `mode`: host, domain, prefix or any (scope.mode; default host)")
	fs.IntVar(&f.maxDepth, "max-depth", 0, "links followed from a seed, 0 = unlimited (scope.max_depth)")
	fs.IntVar(&f.maxPages, "max-pages", 0, "pages fetched over the whole crawl, across runs; 0 = unlimited (scope.max_pages)")
	fs.BoolVar(&f.allowPrivate, "allow-private", false, "allow loopback and private addresses (network.allow_private)")
	fs.BoolVar(&f.text, "text", false, "add page text to pages.jsonl (storage.text)")
	fs.StringVar(&f.metrics, "metrics", "", "serve Prometheus metrics on this `addr`ess (metrics_addr)")
	fs.StringVar(&f.logLevel, "log-level", "", "debug, info, warn or error (log_level)")
	fs.StringVar(&f.progress, "progress", "auto", "progress display: auto (a live line on a terminal, else a log line every 10s), line, log or none")
}

// apply writes the flags that were given over cfg.
func (f *crawlFlags) apply(fs *flag.FlagSet, cfg *crawl.Config) {
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
			cfg.Politeness.MinDelay = crawl.Duration(f.delay)
			if cfg.Politeness.MaxDelay < cfg.Politeness.MinDelay {
				cfg.Politeness.MaxDelay = cfg.Politeness.MinDelay
			}
		case "scope":
			cfg.Scope.Mode = f.scope
		case "max-depth":
			cfg.Scope.MaxDepth = f.maxDepth
		case "max-pages":
			cfg.Scope.MaxPages = f.maxPages
		case "allow-private":
			cfg.Network.AllowPrivate = f.allowPrivate
		case "text":
			cfg.Storage.Text = f.text
		case "metrics":
			cfg.MetricsAddr = f.metrics
		case "log-level":
			cfg.LogLevel = f.logLevel
		}
	})
}

func runCrawl(ctx context.Context, m *Main, args []string) error {
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	var f crawlFlags
	f.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: crawl [flags] [URL...]\n\nCrawls politely from the seed URLs into the data directory; running the same\ncommand again resumes. Sub-commands: crawl help.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%v", err)
	}
	cfg, err := loadConfig(f.config)
	if err != nil {
		return err
	}
	f.apply(fs, &cfg)
	cfg.Seeds = append(cfg.Seeds, fs.Args()...)
	if cfg.SeedsFile != "" {
		seeds, err := readSeeds(cfg.SeedsFile)
		if err != nil {
			return usagef("%v", err)
		}
		cfg.Seeds = append(cfg.Seeds, seeds...)
		cfg.SeedsFile = ""
	}
	if err := cfg.Validate(); err != nil {
		return usagef("%v", err)
	}
	if len(cfg.Seeds) == 0 && !dataDirExists(cfg.DataDir) {
		fs.Usage()
		return usagef("no seed URLs: give URLs, -seeds FILE or seeds in -config")
	}
	return runEngine(ctx, m, cfg, f.progress)
}

// runEngine runs a crawl of cfg with signals, progress and a final summary.
func runEngine(ctx context.Context, m *Main, cfg crawl.Config, progress string) error {
	c, err := crawl.New(cfg)
	if err != nil {
		return usagef("%v", err)
	}
	c.Stderr = m.Stderr
	switch progress {
	case "auto":
		if isTerminal(m.Stderr) {
			c.ProgressLine = m.Stderr
		} else {
			c.ProgressEvery = 10 * time.Second
		}
	case "line":
		c.ProgressLine = m.Stderr
	case "log":
		c.ProgressEvery = 10 * time.Second
	case "none":
	default:
		return usagef("-progress must be auto, line, log or none")
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
		fmt.Fprintln(m.Stderr, "\ncrawl: stopping: finishing fetches in flight (signal again to stop at once)")
		cancel()
		select {
		case <-sigs:
			// Everything finished is already durable; what was in flight is fetched
			// again on the next run.
			fmt.Fprintln(m.Stderr, "crawl: stopped at once; run the same command again to resume")
			os.Exit(130)
		case <-c.Done():
		}
	}()

	runErr := c.Run(ctx)
	sum := c.Summary()
	fmt.Fprintln(m.Stdout, sum.String())
	select {
	case <-interrupted:
		if runErr == nil || errors.Is(runErr, context.Canceled) {
			return errInterrupted
		}
	default:
	}
	return runErr
}

func loadConfig(path string) (crawl.Config, error) {
	if path == "" {
		return crawl.DefaultConfig(), nil
	}
	file, err := os.Open(path)
	if err != nil {
		return crawl.Config{}, usagef("%v", err)
	}
	defer file.Close()
	cfg, err := crawl.ParseConfig(file)
	if err != nil {
		return cfg, usagef("%s: %v", path, err)
	}
	return cfg, nil
}

// readSeeds reads one URL a line; blank lines and lines starting with '#' are skipped.
func readSeeds(path string) ([]string, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var seeds []string
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		seeds = append(seeds, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return seeds, nil
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
