package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/politecrawl/crawl/crawltest"
)

// h2Scenario crawls one farm over https twice, each crawl in a child process so that
// its CPU time is its own: with fetch.http2 off (HTTP/1.1) and on (HTTP/2). The farm
// speaks both at ALPN; its links are all relative, so a crawl from https seeds stays on
// https. It reports, for each, pages per second and per CPU-second and the TLS
// handshakes the farm saw per page, and the h2/HTTP/1.1 ratios.
func (b *bench) h2Scenario(ctx context.Context, r *result) error {
	s := b.opts.size
	farm, err := crawltest.Start(crawltest.Generate(crawltest.GenerateOptions{
		Seed:         3,
		Hosts:        s.cpuHosts,
		PagesPerHost: s.cpuPages,
		LinksPerPage: s.cpuLinks,
		PageSize:     s.cpuPageSize,
		Latency:      s.cpuLatency,
	})...)
	if err != nil {
		return err
	}
	defer farm.Close()
	ca, err := farm.ServeHTTPS("h2", "http/1.1")
	if err != nil {
		return err
	}
	caFile := filepath.Join(b.dir, "h2-ca.pem")
	if err := os.WriteFile(caFile, ca, 0o600); err != nil {
		return err
	}
	pages := len(farm.Expected())
	type run struct {
		res        *childResult
		handshakes int64
	}
	runs := map[string]run{}
	for _, mode := range []string{"off", "on"} {
		farm.Reset()
		hs0 := farm.TLSHandshakes()
		b.logf("h2: %d hosts × %d pages over https, fetch.http2 %s", s.cpuHosts, s.cpuPages, mode)
		j := crawlJobFor(farm, filepath.Join(b.dir, "h2-"+mode), b.opts.workers, noDelay)
		for i, seed := range j.Seeds {
			j.Seeds[i] = "https://" + strings.TrimPrefix(seed, "http://")
		}
		j.Resolve, j.CAFile, j.HTTP2 = farm.ResolveHTTPS(), caFile, mode
		res, err := b.runChildJob(ctx, &job{Kind: "crawl", Profile: b.profilePath("h2-" + mode + ".pprof"), Crawl: j})
		if err != nil {
			return err
		}
		if !res.Complete || res.Pages != int64(pages) {
			r.problem("http2 %s: %d pages of %d, complete %v: %s", mode, res.Pages, pages, res.Complete, res.Summary)
		}
		rep := crawltest.Audit(farm, crawltest.AuditOptions{Agent: agent, Tolerance: time.Millisecond, MinCoverage: 1})
		if err := rep.Err(); err != nil {
			r.problem("http2 %s: audit: %v", mode, err)
		}
		runs[mode] = run{res, farm.TLSHandshakes() - hs0}
	}
	perSecond := func(n int64, d time.Duration) float64 {
		if d <= 0 {
			return 0
		}
		return float64(n) / d.Seconds()
	}
	for _, mode := range []string{"off", "on"} {
		x := runs[mode]
		name := map[string]string{"off": "HTTP/1.1", "on": "h2"}[mode]
		r.add(name+" pages/s", perSecond(x.res.Pages, x.res.Wall), fmt.Sprintf("%.0f", perSecond(x.res.Pages, x.res.Wall)))
		r.add(name+" pages/CPU-s", perSecond(x.res.Pages, x.res.CPU), fmt.Sprintf("%.0f", perSecond(x.res.Pages, x.res.CPU)))
		hs := float64(x.handshakes) / float64(max(x.res.Pages, 1))
		r.add(name+" TLS handshakes", float64(x.handshakes), fmt.Sprintf("%d (%.3f a page)", x.handshakes, hs))
	}
	h1, h2 := runs["off"].res, runs["on"].res
	if c1, c2 := perSecond(h1.Pages, h1.CPU), perSecond(h2.Pages, h2.CPU); c1 > 0 {
		r.add("h2/HTTP/1.1 pages/CPU-s", c2/c1, fmt.Sprintf("%.2f", c2/c1))
	}
	if w1, w2 := perSecond(h1.Pages, h1.Wall), perSecond(h2.Pages, h2.Wall); w1 > 0 {
		r.add("h2/HTTP/1.1 pages/s", w2/w1, fmt.Sprintf("%.2f", w2/w1))
	}
	return nil
}
