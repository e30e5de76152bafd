package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/politecrawl/crawl/crawltest"
)

// polite crawls a farm of many hosts with a real delay, in this process, and audits
// the farm's record: efficiency is the ideal time of a perfectly polite crawler (the
// slowest host's requests × its allowed gap) over the actual time, and no two requests
// to a host may be closer than the allowed gap.
func (b *bench) polite(ctx context.Context, r *result) error {
	s := b.opts.size
	sites := crawltest.Generate(crawltest.GenerateOptions{
		Seed:            1,
		Hosts:           s.politeHosts,
		PagesPerHost:    s.politePages,
		LinksPerPage:    s.politeLinks,
		CrossHostLinks:  0.05,
		CrawlDelayEvery: s.politeDelayEvery,
		CrawlDelay:      s.politeCrawlDelay,
	})
	farm, err := crawltest.Start(sites...)
	if err != nil {
		return err
	}
	defer farm.Close()
	b.logf("polite: %d hosts × %d pages, min_delay %v, Crawl-delay %v on every %dth host",
		s.politeHosts, s.politePages, s.politeDelay, s.politeCrawlDelay, s.politeDelayEvery)

	j := crawlJobFor(farm, filepath.Join(b.dir, "polite"), b.opts.workers, s.politeDelay)
	var logs bytes.Buffer
	res, err := runEngine(ctx, j, &logs)
	if err != nil {
		return fmt.Errorf("%w: %s", err, lastLines(logs.String(), 3))
	}
	if !res.Complete {
		r.problem("crawl not complete: %s", res.Summary)
	}
	rep := crawltest.Audit(farm, crawltest.AuditOptions{
		Agent: agent, MinDelay: s.politeDelay, Tolerance: time.Millisecond, MinCoverage: 1,
	})
	judge := !b.opts.short
	eff := rep.Efficiency()
	r.goal("efficiency", eff, fmt.Sprintf("%.3f", eff), "≥ 0.95", eff >= 0.95, judge)
	r.goal("smallest gap ratio", rep.SmallestGapRatio, fmt.Sprintf("%.3f", rep.SmallestGapRatio), "≥ 1", rep.SmallestGapRatio >= 1, judge)
	r.add("ideal time", rep.IdealTime.Seconds(), fmtDuration(rep.IdealTime))
	r.add("actual time", rep.ActualTime.Seconds(), fmtDuration(rep.ActualTime))
	r.add("requests", float64(rep.Requests), fmtCount(int64(rep.Requests)))
	r.add("coverage", rep.Coverage, fmt.Sprintf("%.4f", rep.Coverage))
	r.add("violations", float64(len(rep.Violations)), fmt.Sprint(len(rep.Violations)))
	if err := rep.Err(); err != nil {
		r.problem("audit: %v", err)
	}
	return nil
}
