package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/politecrawl/crawl/crawltest"
)

// resumeLimit is the resume scenario's goal for the second run's wall time: the full
// crawl takes about 17 s on 2 cores, and a host the kill left held back for max_delay
// (60 s) would take it past; a host whose robots.txt request the kill cut waits the
// backoff after a connection error (backoff_base, 5 s).
const resumeLimit = 50 * time.Second

// resume crawls the cpu farm in a child process, kills it with SIGKILL once it has
// made a share of its requests, runs the same crawl again and audits the two runs'
// record as one crawl: every page fetched, politeness kept across the restart, and no
// more pages fetched twice than there were workers in flight at the kill.
func (b *bench) resume(ctx context.Context, r *result) error {
	cf, err := b.cpuFarm()
	if err != nil {
		return err
	}
	s := b.opts.size
	workers := b.opts.workers
	delay := b.opts.resumeDelay
	if delay <= 0 {
		delay = noDelay
	}
	killAfter := b.opts.resumeKillAfter
	if killAfter > 0 {
		b.logf("resume: the cpu crawl (min_delay %v), killed %v after its start, then run again", delay, killAfter)
	} else {
		b.logf("resume: the cpu crawl (min_delay %v), killed after %.0f%% of its requests, then run again",
			delay, 100*s.resumeKillAt)
	}
	cj := crawlJobFor(cf.farm, filepath.Join(b.dir, "resume"), workers, delay)

	started := time.Now()
	first, err := b.startChild(ctx, &job{Kind: "crawl", Crawl: cj})
	if err != nil {
		return err
	}
	killAt := max(int(float64(cf.requests)*s.resumeKillAt), 1)
	due := func(served int) bool {
		if killAfter > 0 {
			return time.Since(started) >= killAfter
		}
		return served >= killAt
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for served := 0; !due(served); served = len(cf.farm.Requests()) {
		select {
		case <-first.done:
			if _, err := first.wait(); err != nil {
				return err
			}
			return fmt.Errorf("the crawl ended after %d of %d requests, before the kill; make the farm bigger", served, cf.requests)
		case <-ctx.Done():
			first.kill()
			return ctx.Err()
		case <-tick.C:
		}
	}
	if err := first.kill(); err != nil {
		return fmt.Errorf("kill: %w", err)
	}

	restart := time.Now()
	second, err := b.runChildJob(ctx, &job{Kind: "crawl", Crawl: cj})
	if err != nil {
		return err
	}
	if !second.Complete {
		r.problem("crawl not complete after the restart: %s", second.Summary)
	}

	reqs := cf.farm.Requests()
	before, firstAfter := 0, time.Time{}
	robotsBefore := map[string]bool{}
	robotsAgain := 0
	for _, q := range reqs {
		if q.Start.Before(restart) {
			before++
			if q.Path == "/robots.txt" {
				robotsBefore[q.Host] = true
			}
			continue
		}
		if firstAfter.IsZero() {
			firstAfter = q.Start
		}
		if q.Path == "/robots.txt" && robotsBefore[q.Host] {
			robotsAgain++
		}
	}
	rep := crawltest.AuditRequests(cf.farm, reqs, crawltest.AuditOptions{
		Agent: agent, MinDelay: b.opts.resumeDelay, Tolerance: time.Millisecond,
		MaxDuplicates: workers, MinCoverage: 1,
	})
	if err := rep.Err(); err != nil {
		r.problem("audit: %v", err)
	}
	judge := !b.opts.short
	r.add("killed after", float64(before), fmt.Sprintf("%s of %s requests", fmtCount(int64(before)), fmtCount(int64(len(reqs)))))
	r.goal("extra fetches", float64(rep.Duplicates), fmt.Sprint(rep.Duplicates),
		fmt.Sprintf("≤ %d (workers)", workers), rep.Duplicates <= workers, judge)
	r.add("robots.txt fetched again", float64(robotsAgain), fmt.Sprint(robotsAgain))
	held, err := heldHosts(filepath.Join(cj.DataDir, "crawl.log"))
	if err != nil {
		return err
	}
	// A cut request that reached the farm is one of two robots.txt requests of its
	// host, whenever the farm got round to answering it (perhaps after the restart).
	robotsOf := map[string]int{}
	for _, q := range reqs {
		if q.Path == "/robots.txt" {
			robotsOf[q.Host]++
		}
	}
	sent := 0
	for _, h := range held {
		if robotsOf[strings.TrimPrefix(h, "http://")] > 1 {
			sent++
		}
	}
	r.add("hosts whose robots.txt the kill cut", float64(len(held)),
		fmt.Sprintf("%d (waiting the connection-error backoff; %d of their cut requests reached the farm)", len(held), sent))
	if firstAfter.IsZero() {
		r.problem("no request after the restart")
		return nil
	}
	wait := firstAfter.Sub(restart)
	r.goal("restart to first request", wait.Seconds(), fmtDuration(wait)+fmt.Sprintf(" at %s URLs", fmtCount(int64(cf.pages))),
		"< 2s (at 1M URLs: see scale Open)", wait < 2*time.Second, judge)
	r.goal("second run", second.Wall.Seconds(), fmtDuration(second.Wall),
		fmt.Sprintf("≤ %s", resumeLimit), second.Wall <= resumeLimit, judge)
	r.add("coverage", rep.Coverage, fmt.Sprintf("%.4f", rep.Coverage))
	return nil
}

// heldHosts returns the hosts that the crawl whose log is at path held back at a
// restart, their robots.txt fetch cut by the kill before its answer was stored (the
// engine logs "robots.txt fetch cut by the last stop").
func heldHosts(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var hosts []string
	for line := range strings.Lines(string(data)) {
		var e struct{ Msg, Host string }
		if json.Unmarshal([]byte(line), &e) == nil && strings.HasPrefix(e.Msg, "robots.txt fetch cut by the last stop") {
			hosts = append(hosts, e.Host)
		}
	}
	return hosts, nil
}
