package crawl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/politeness"
	"github.com/politecrawl/crawl/robots"
	"github.com/politecrawl/crawl/storage"
)

// This file converts between the packages' own types: each leaf package defines what it
// consumes, and only the engine knows them all.

type timeT = time.Time

// fmtErr says what the engine was doing when err, from another package, stopped it.
// It adds no "crawl:": err names its own package, and the command names the program,
// so that the chain reads "crawl: finishing URL: frontier: commit: ..." with each
// name once.
func fmtErr(doing string, err error) error { return fmt.Errorf("%s: %w", doing, err) }

// observe describes a fetch for the politeness scheduler. fetch stamps its times
// with the system clock; the scheduler runs on the crawler's (Crawler.Now), so they
// are moved onto it, or a clock set ahead would see every response as long past and
// space nothing.
func (c *Crawler) observe(resp *fetch.Response, err error) politeness.Observation {
	if resp == nil {
		return politeness.Observation{Failed: true}
	}
	o := politeness.Observation{
		Written:    resp.RequestWritten,
		End:        resp.End,
		Status:     resp.Status,
		RetryAfter: resp.Header.Get("Retry-After"),
		Failed:     err != nil,
		Duration:   resp.Timings.FirstByte,
	}
	if c.Now != nil {
		// The system clock is read first, so that the skew errs on the late side:
		// the scheduler sees the response end no earlier than it did.
		sys := time.Now()
		skew := c.Now().Sub(sys)
		if !o.Written.IsZero() {
			o.Written = o.Written.Add(skew)
		}
		if !o.End.IsZero() {
			o.End = o.End.Add(skew)
		}
	}
	return o
}

// exchange describes a fetch for the WARC writer.
func exchange(resp *fetch.Response, kind string) *storage.Exchange {
	return &storage.Exchange{
		TargetURI:      resp.FinalURL,
		IP:             resp.RemoteIP,
		Date:           resp.Start,
		Request:        resp.RawRequest,
		ResponseHeader: resp.RawHeader,
		Body:           resp.RawBody,
		Truncated:      resp.Truncated,
		Kind:           kind,
	}
}

// pacing turns a robots.txt group's pacing records into scheduler rules.
func pacing(g robots.Group) politeness.Rules {
	r := politeness.Rules{
		CrawlDelay:  g.CrawlDelay,
		RequestRate: politeness.RequestRate{Requests: g.RequestRate.Requests, Period: g.RequestRate.Per},
	}
	for _, v := range g.VisitTimes {
		r.VisitTime = append(r.VisitTime, politeness.Window{Start: v.Start, End: v.End})
	}
	return r
}

// provenance records which robots.txt and which rule allowed a fetch.
func provenance(e *robots.Entry, d robots.Decision, signal map[string]string) *storage.RobotsDecision {
	return &storage.RobotsDecision{
		URL:           e.URL,
		FetchedAt:     e.FetchedAt,
		Status:        e.Status,
		Digest:        e.Digest,
		Rule:          ruleString(d.Rule),
		Allowed:       d.Allowed,
		ContentSignal: formatSignal(signal),
	}
}

// robotsFetcher fetches robots.txt for the robots cache: through politeness, following
// up to 5 redirects (RFC 9309 §2.3.1.2), archiving every hop.
type robotsFetcher struct{ c *Crawler }

// robotsMaxRedirects is RFC 9309's minimum number of redirects to follow.
const robotsMaxRedirects = 5

// FetchRobots follows the redirects itself, hop by hop, rather than letting the client
// follow them: every hop is a request to its own authority and waits for that
// authority's ticket and spacing, as any other request to it does, so a robots.txt
// that redirects to another host cannot hit that host while it is busy or too soon.
// Only one ticket is held at a time, released before the next hop asks for its own,
// so hops to the same host, or two hosts redirecting to each other, cannot deadlock;
// every wait ends with ctx.
func (f *robotsFetcher) FetchRobots(ctx context.Context, robotsURL string) (*robots.FetchResult, error) {
	c := f.c
	target := robotsURL
	seen := map[string]bool{target: true}
	for hops := 0; ; hops++ {
		resp, err := f.hop(ctx, target, hops == 0)
		if err != nil {
			var notYet *robotsNotYet
			if ctx.Err() != nil || errors.As(err, &notYet) {
				return nil, err // stopping, or not begun: not the host's failure
			}
			c.counters.errors.Add(1)
			if !c.reportPermanent(target, err) {
				c.log.Info("robots.txt unreachable", "url", robotsURL, "fetching", target, "err", err)
			}
			return nil, err
		}
		if hops == 0 {
			c.counters.robotsFetched.Add(1)
		}
		next := resp.Location
		redirect := resp.Status >= 300 && resp.Status < 400 && next != ""
		switch {
		case !redirect:
			c.log.Debug("robots.txt fetched", "url", robotsURL, "status", resp.Status, "final", resp.FinalURL)
			return &robots.FetchResult{Status: resp.Status, Body: resp.Body, Header: resp.Header, FinalURL: resp.FinalURL}, nil
		case hops >= robotsMaxRedirects, seen[next]:
			// A 3xx result: the redirects were not all followed, so robots.txt is
			// unreachable (robots.FetchResult).
			c.log.Info("robots.txt unreachable: redirects not followed", "url", robotsURL,
				"hops", hops+1, "loop", seen[next], "last", next)
			return &robots.FetchResult{Status: resp.Status, Header: resp.Header, FinalURL: resp.FinalURL}, nil
		}
		seen[next] = true
		target = next
	}
}

// hop fetches one URL of a robots.txt redirect chain, without following redirects,
// holding its authority's politeness ticket, and archives the exchange. The first hop,
// to the leased host's own robots.txt, does not hold the worker while that host is not
// ready for longer than maxBlock (after a restart, see robotsInterrupted): it returns a
// *robotsNotYet and the lease goes back to the frontier until then. Later hops wait for
// their host's turn, since going back would mean asking the first host again.
func (f *robotsFetcher) hop(ctx context.Context, target string, first bool) (*fetch.Response, error) {
	c := f.c
	host := extract.Authority(target)
	if ready := c.politeness.Ready(host); first && ready.Sub(c.now()) > maxBlock {
		return nil, &robotsNotYet{host: host, until: ready}
	}
	ticket, err := f.acquire(ctx, host)
	if err != nil {
		return nil, err
	}
	resp, ferr := c.client.Fetch(ctx, &fetch.Request{
		URL:         target,
		AcceptTypes: []string{},
		MaxBodySize: robots.MaxSize + 1,
		// Only the first MaxSize bytes count, compressed or not: a robots.txt bomb
		// decodes no further.
		MaxDecodedSize: robots.MaxSize + 1,
	})
	c.politeness.Release(ticket, c.observe(resp, ferr))
	if resp != nil {
		if _, err := c.warc.WriteExchange(ctx, exchange(resp, "robots")); err != nil {
			c.log.Error("archiving robots.txt", "url", resp.FinalURL, "err", err)
		}
		c.counters.bytes.Add(int64(len(resp.RawBody)))
	}
	return resp, ferr
}

// acquire waits for host's politeness ticket. A host deferred beyond the scheduler's
// longest wait (a Crawl-delay above max_delay, a Visit-time window) is waited for too,
// up to robotsMaxDefer, until ctx ends: robots.txt is needed before anything of the
// host can be fetched. A longer deferral is returned as the error, and robots.txt is
// tried again later as for any failed fetch.
func (f *robotsFetcher) acquire(ctx context.Context, host string) (*politeness.Ticket, error) {
	for {
		ticket, err := f.c.politeness.Acquire(ctx, host)
		var deferred *politeness.DeferredError
		if !errors.As(err, &deferred) {
			return ticket, err
		}
		wait := deferred.Until.Sub(f.c.now())
		if wait > robotsMaxDefer {
			return nil, err
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
}

// robotsNotYet says a robots.txt fetch did not begin: its host may not be contacted
// before until. Its Until method tells the robots cache to record nothing.
type robotsNotYet struct {
	host  string
	until time.Time
}

func (e *robotsNotYet) Error() string {
	return fmt.Sprintf("robots.txt of %s not fetched before %s (politeness)", e.host, e.until.UTC().Format(time.RFC3339Nano))
}

// Until returns when the host may be contacted.
func (e *robotsNotYet) Until() time.Time { return e.until }

// robotsMaxDefer is the longest a robots.txt fetch waits for a deferred host's turn.
const robotsMaxDefer = 5 * time.Minute

// robotsInterrupted spaces the first request of this run to a host whose robots.txt
// fetch began at `at` in an earlier run that died (or stopped) before storing the
// result. The host may have answered, and asked in its lost rules for a Crawl-delay we
// cannot know; so the spacing assumes the strictest one we honour by waiting,
// politeness.max_delay, counted from the latest moment that answer can have ended: the
// start of this run, or the longest a robots.txt fetch can take after `at` if that is
// earlier (a crawl resumed long after its kill does not wait). Persisting the rules in
// the same commit as the WARC record is not possible (two files), and the last known
// Crawl-delay does not exist for a first fetch, hence this rule.
func (c *Crawler) robotsInterrupted(authority string, at time.Time) {
	longest := (robotsMaxRedirects + 1) * (time.Duration(c.cfg.Fetch.Timeout) + robotsMaxDefer)
	end := c.started
	if e := at.Add(longest); e.Before(end) {
		end = e
	}
	maxDelay := c.politeness.Options().MaxDelay
	ready := end.Add(maxDelay)
	if !ready.After(c.now()) {
		return
	}
	c.politeness.Restore(authority, ready)
	c.log.Info("robots.txt fetch cut by the last stop: first request waits max_delay",
		"host", authority, "fetch_began", at, "until", ready, "max_delay", maxDelay.String())
}
