package crawl

import (
	"context"
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

func (d Duration) d() time.Duration { return time.Duration(d) }

// fmtErr says what the engine was doing when err, from another package, stopped it.
// It adds no "crawl:": err names its own package, and the command names the program,
// so that the chain reads "crawl: finishing URL: frontier: commit: ..." with each
// name once.
func fmtErr(doing string, err error) error { return fmt.Errorf("%s: %w", doing, err) }

// observe describes a fetch for the politeness scheduler.
func observe(resp *fetch.Response, err error) politeness.Observation {
	if resp == nil {
		return politeness.Observation{Failed: true}
	}
	return politeness.Observation{
		Written:    resp.RequestWritten,
		End:        resp.End,
		Status:     resp.Status,
		RetryAfter: resp.Header.Get("Retry-After"),
		Failed:     err != nil,
		Duration:   resp.Timings.FirstByte,
	}
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

func (f *robotsFetcher) FetchRobots(ctx context.Context, robotsURL string) (*robots.FetchResult, error) {
	c := f.c
	host := extract.Authority(robotsURL)
	ticket, err := c.sched.Acquire(ctx, host)
	if err != nil {
		return nil, err
	}
	resp, ferr := c.client.Fetch(ctx, &fetch.Request{
		URL:             robotsURL,
		FollowRedirects: robotsMaxRedirects,
		AcceptTypes:     []string{},
		MaxBodySize:     robots.MaxSize + 1,
	})
	c.sched.Release(ticket, observe(resp, ferr))
	c.counters.robotsFetched.Add(1)
	if resp != nil {
		for _, hop := range append(resp.Redirects, resp) {
			if _, err := c.warc.WriteExchange(ctx, exchange(hop, "robots")); err != nil {
				c.log.Error("archiving robots.txt", "url", hop.FinalURL, "err", err)
			}
			c.counters.bytes.Add(int64(len(hop.RawBody)))
		}
	}
	if ferr != nil {
		c.log.Info("robots.txt unreachable", "url", robotsURL, "err", ferr)
		return nil, ferr
	}
	c.log.Debug("robots.txt fetched", "url", robotsURL, "status", resp.Status, "final", resp.FinalURL)
	return &robots.FetchResult{Status: resp.Status, Body: resp.Body, Header: resp.Header, FinalURL: resp.FinalURL}, nil
}
