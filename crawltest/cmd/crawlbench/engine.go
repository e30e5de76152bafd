package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/internal/procstat"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/crawltest"
)

// agent is the product token of the engine's default User-Agent, audited on the farm.
const agent = "politecrawl"

// noDelay is the min_delay of the cpu and resume scenarios. The configuration cannot
// say "no delay": min_delay 0 passes Validate but reaches the politeness scheduler as
// zero, which means its default of one second, and a negative min_delay is refused. One
// nanosecond is the least it can say; the adaptive delay (at least the last response
// time) still applies, as it does for every crawl with the defaults.
const noDelay = time.Nanosecond

// engineConfig is the configuration the scenarios crawl with: the engine's defaults
// (durable frontier, WARC and pages.jsonl, 64 workers unless told otherwise, one
// connection per host, adaptive delay) with only what a loopback farm needs changed.
func engineConfig(j *crawlJob) config.Config {
	cfg := config.Default()
	cfg.DataDir = j.DataDir
	cfg.Seeds = j.Seeds
	cfg.Workers = j.Workers
	cfg.Politeness.MinDelay = config.Duration(j.MinDelay)
	cfg.Scope.MaxPages = j.MaxPages
	cfg.Network.AllowPrivate = true
	cfg.Network.Resolve = j.Resolve
	if j.LinkBatch != nil {
		cfg.Frontier.LinkBatch = *j.LinkBatch
	}
	for _, s := range j.Storage {
		switch s {
		case "text":
			cfg.Storage.Text = true
		case "text_records":
			cfg.Storage.TextRecords = true
		case "wet":
			cfg.Storage.WET = true
		case "parquet":
			cfg.Storage.Parquet = true
		}
	}
	if j.Requisites != nil {
		cfg.Requisites.Enabled = *j.Requisites
	}
	if j.CAFile != "" {
		cfg.Fetch.CAFile = j.CAFile
	}
	if j.HTTP2 != "" {
		cfg.Fetch.HTTP2 = j.HTTP2
	}
	return cfg
}

// crawlJobFor describes a crawl of farm into dataDir.
func crawlJobFor(farm *crawltest.Farm, dataDir string, workers int, minDelay time.Duration) *crawlJob {
	return &crawlJob{
		DataDir:  dataDir,
		Seeds:    farm.Seeds(),
		Resolve:  farm.Resolve(),
		FarmAddr: farm.Addr(),
		Workers:  workers,
		MinDelay: minDelay,
	}
}

// runEngine crawls with the engine and measures the wall and CPU time of Run.
func runEngine(ctx context.Context, j *crawlJob, stderr io.Writer) (*childResult, error) {
	c, err := crawl.New(engineConfig(j))
	if err != nil {
		return nil, err
	}
	c.Stderr = stderr
	cpu0, start := procstat.CPUTime(), time.Now()
	err = c.Run(ctx)
	r := &childResult{Wall: time.Since(start), CPU: procstat.CPUTime() - cpu0}
	if err != nil {
		return nil, fmt.Errorf("crawl: %w", err)
	}
	sum := c.Summary()
	r.Pages, r.Complete, r.Summary = sum.Pages, sum.Complete, sum.String()
	r.StorageWait, r.FrontierWait = sum.StorageWait, sum.FrontierWait
	return r, nil
}
