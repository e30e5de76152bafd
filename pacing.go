package crawl

import (
	"time"

	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/politeness"
	"github.com/politecrawl/crawl/robots"
)

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
		End:        endMillisecond(resp.End),
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

// applyRules hands the scheduler the pacing rules of a host's robots.txt for our agent,
// when that robots.txt is new to it.
func (c *Crawler) applyRules(host string, r *robots.Robots) {
	c.rulesMu.Lock()
	same := c.rulesFor[host] == r
	c.rulesMu.Unlock()
	if same || r == nil {
		return
	}
	g := r.Group(c.agent)
	c.rulesMu.Lock()
	c.rulesFor[host] = r
	c.groupFor[host] = groupFacts{signal: g.ContentSignal, delay: max(g.CrawlDelay, g.RequestRate.Interval())}
	c.rulesMu.Unlock()
	c.politeness.SetRules(host, pacing(g))
	c.restoreSpacing(host, max(g.CrawlDelay, g.RequestRate.Interval()))
}

// groupFacts is what a host's robots.txt asks of our agent, beside its rules.
type groupFacts struct {
	signal map[string]string // Content-Signal; nil: none
	delay  time.Duration     // the wait asked between requests (Crawl-delay, Request-rate); 0: none
}

// groupFacts returns what host's robots.txt asks of our agent. applyRules must have
// seen that robots.txt.
func (c *Crawler) groupFacts(host string) groupFacts {
	c.rulesMu.Lock()
	defer c.rulesMu.Unlock()
	return c.groupFor[host]
}

// maxBlock is the longest politeness wait a worker sits through; a host whose wait is
// longer is handed back to the frontier until it is ready.
const maxBlock = 10 * time.Millisecond

// restoreSpacing keeps a host's spacing across a restart. The previous process may have
// sent host a request just before it died, which no record holds; so in a resumed crawl
// the first request of this run to each host waits delay from when the run started, as
// if one had been sent then. Later calls change nothing once that time has passed.
func (c *Crawler) restoreSpacing(host string, delay time.Duration) {
	if c.resumed && delay > 0 {
		c.politeness.Restore(host, c.started.Add(delay))
	}
}

// adaptiveFactor maps the configuration's factor, where 0 means off, onto the
// scheduler's, where 0 means the default and a negative value means off.
func adaptiveFactor(k float64) float64 {
	if k == 0 {
		return -1
	}
	return k
}

// minDelay maps the configuration's min_delay, where 0 means no minimum (only
// robots.txt pacing, backoff and the adaptive delay space requests), onto the
// scheduler's, where 0 means its 1 s default and a negative value means none.
func minDelay(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// endMillisecond rounds a response's end up to the millisecond, as its metadata record
// writes it (storage.Timing): the next request to the host is spaced from that time, and
// its own WARC-Date is truncated to the millisecond, so the gap the records show is
// never shorter than the delay that was in force.
func endMillisecond(t time.Time) time.Time {
	if r := t.Truncate(time.Millisecond); r.Before(t) {
		return r.Add(time.Millisecond)
	}
	return t
}

// backoffMin is the shortest backoff the scheduler can draw after a failure.
func backoffMin(o politeness.Options) time.Duration {
	return o.BackoffBase - time.Duration(float64(o.BackoffBase)*o.Jitter)
}
