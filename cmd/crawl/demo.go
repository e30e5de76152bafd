package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

func init() {
	register("demo", "crawl a small farm of sites on loopback (no internet needed)", runDemo)
}

// demoMarker marks a data directory made by crawl demo, so a later demo may replace it.
const demoMarker = ".politecrawl-demo"

func runDemo(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("demo", "usage: crawl demo [-data DIR] [-delay D]\n\nStarts a small farm of web sites on loopback (robots.txt of every kind, a\nsitemap, redirects, a nofollow page, errors) and crawls it with the normal\nengine and defaults, but a short delay (and robots.txt retries and backoff\nten delays apart). Then it prints the summary and where the WARC files and\npages.jsonl went.")
	data := fs.String("data", "crawl-demo", "data `dir`ectory for the demo crawl (replaced if an earlier demo made it)")
	delayFlag := config.Duration(100 * time.Millisecond)
	fs.Var(&delayFlag, "delay", "least `time` between requests to one host, such as 100ms or 1 (seconds)")
	delay := (*time.Duration)(&delayFlag)
	progress := fs.String("progress", "auto", "progress display: auto, line, log or none")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("demo takes no arguments")
	}
	if err := prepareDemoDir(*data); err != nil {
		return err
	}

	sites := crawltest.DemoSites()
	farm, err := crawltest.Start(sites...)
	if err != nil {
		return err
	}
	defer farm.Close()
	fmt.Fprintf(m.Stdout, "demo: %d sites on loopback (%s): %v\n", len(farm.Hosts()), farm.Addr(), farm.Hosts())
	var unreachable []string
	for _, s := range sites {
		if s.Robots != nil && (s.Robots.Status == 429 || s.Robots.Status >= 500) {
			unreachable = append(unreachable, fmt.Sprintf("%s (%d)", s.Host, s.Robots.Status))
		}
	}
	if len(unreachable) > 0 {
		fmt.Fprintf(m.Stdout, "  on purpose, %s answer robots.txt with an error: RFC 9309 forbids\n"+
			"  fetching such a host, so expect a warning for each and their URLs set aside.\n", strings.Join(unreachable, " and "))
	}

	cfg := config.Default()
	cfg.DataDir = *data
	cfg.Seeds = farm.Seeds()
	cfg.Politeness.MinDelay = config.Duration(*delay)
	cfg.Network.AllowPrivate = true // the farm is on loopback
	cfg.Network.Resolve = farm.Resolve()
	cfg.Workers = 8
	// The farm has hosts whose robots.txt answers 503 and 429: retry them, and back off
	// from them, on the demo's time scale rather than the default minute and seconds, so
	// the demo ends in seconds.
	cfg.Robots.UnreachableRetry = config.Duration(10 * *delay)
	cfg.Politeness.BackoffBase = config.Duration(10 * *delay)
	cfg.Politeness.BackoffMax = config.Duration(100 * *delay)
	if err := runEngine(ctx, m, cfg, *progress); err != nil {
		return err
	}
	report := crawltest.Audit(farm, crawltest.AuditOptions{Agent: "politecrawl", MinDelay: *delay, Icons: true})
	fmt.Fprintf(m.Stdout, "audit: %d requests, coverage %.0f%%, politeness efficiency %.2f, smallest gap/allowed %.2f, violations %d\n",
		report.Requests, 100*report.Coverage, report.Efficiency(), report.SmallestGapRatio, len(report.Violations))
	for _, v := range report.Violations {
		fmt.Fprintf(m.Stdout, "  %s\n", v)
	}
	fmt.Fprintf(m.Stdout, "  (the farm's own log of every request, checked: smallest gap/allowed is the shortest time\n"+
		"  between two requests to one host over the least the host allows, never below 1 for a\n"+
		"  polite crawler; politeness efficiency is the least time a crawler keeping every host at\n"+
		"  exactly its pace would take over the time this crawl took, 1 at best: the robots.txt\n"+
		"  retries of the hosts above keep it low here)\n")
	abs, _ := filepath.Abs(*data)
	fmt.Fprintf(m.Stdout, "\nresults in %s:\n", abs)
	for _, f := range []struct{ name, what string }{
		{filepath.Join("warc", "*.warc.gz"), "WARC 1.1 archives"},
		{filepath.Join("warc", "*.warc.gz.cdxj"), "their CDXJ indexes, for replay tools"},
		{"pages.jsonl", "one JSON object per page"},
		{"skipped.jsonl", "one JSON object per URL not fetched, and why"},
		{"crawl.log", "the log, JSON lines"},
	} {
		fmt.Fprintf(m.Stdout, "  %s  (%s)\n", filepath.Join(abs, f.name), f.what)
	}
	fmt.Fprintf(m.Stdout, "open it in ReplayWeb.page: %s wacz -data %s -o demo.wacz\n", selfCommand(), *data)
	return report.Err()
}

// prepareDemoDir removes an earlier demo's directory (only one the demo made) and
// creates a fresh one with the marker.
func prepareDemoDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		if _, err := os.Stat(filepath.Join(dir, demoMarker)); err != nil {
			return usagef("%s exists and was not made by crawl demo; choose another -data", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, demoMarker), []byte("made by crawl demo\n"), 0o644)
}

// selfCommand is how the user ran this command, to repeat in advice: "crawl", or
// "go run ./cmd/crawl" when go run built it into a temporary directory (where no crawl
// binary is left behind).
func selfCommand() string {
	exe, err := os.Executable()
	if err == nil && strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ./cmd/crawl"
	}
	return "crawl"
}
