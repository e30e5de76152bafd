package crawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/politeness"
	"github.com/politecrawl/crawl/robots"
	"github.com/politecrawl/crawl/storage"
)

// RobotsMaxRedirects is how many redirects a robots.txt fetch follows: RFC 9309
// §2.3.1.2 asks for at least five.
const RobotsMaxRedirects = 5

// robotsHop fetches one URL of a robots.txt redirect chain and does not follow its
// redirect; first is true for the robots.txt URL itself.
type robotsHop func(ctx context.Context, target string, first bool) (*fetch.Response, error)

// robotsTrail says how a robots.txt fetch ended: the redirects followed, and whether
// the last response is a redirect left unfollowed (a sixth, or back to a URL of the
// chain).
type robotsTrail struct {
	hops       int    // redirects followed
	unfollowed string // the Location not followed; "" when the last response is not a redirect
	loop       bool   // unfollowed is a URL of the chain
}

// followRobots is the crawl's one robots.txt redirect rule (RFC 9309 §2.3.1.2): it
// fetches robotsURL through hop and follows redirects itself, one request per hop, up
// to RobotsMaxRedirects, even to another host, and stops at a URL it has fetched
// already. It returns the last response with how the chain ended. A last response
// that is a redirect (3xx with a Location) was not followed, which robots.FromStatus
// reads as unreachable.
func followRobots(ctx context.Context, robotsURL string, hop robotsHop) (*fetch.Response, robotsTrail, error) {
	target := robotsURL
	seen := map[string]bool{target: true}
	for hops := 0; ; hops++ {
		resp, err := hop(ctx, target, hops == 0)
		if err != nil {
			return nil, robotsTrail{hops: hops}, err
		}
		next := resp.Location
		if resp.Status < 300 || resp.Status >= 400 || next == "" {
			return resp, robotsTrail{hops: hops}, nil
		}
		if hops >= RobotsMaxRedirects || seen[next] {
			return resp, robotsTrail{hops: hops, unfollowed: next, loop: seen[next]}, nil
		}
		seen[next] = true
		target = next
	}
}

// robotsResult is what the robots cache is told of a fetch that followRobots ended:
// a redirect not followed carries no body.
func robotsResult(resp *fetch.Response, t robotsTrail) *robots.FetchResult {
	res := &robots.FetchResult{Status: resp.Status, Header: resp.Header, FinalURL: resp.FinalURL}
	if t.unfollowed == "" {
		res.Body = resp.Body
	}
	return res
}

// robotsRequest is the request of one hop: only the first robots.MaxSize bytes count,
// compressed or not, so a robots.txt bomb decodes no further.
func robotsRequest(target string) *fetch.Request {
	return &fetch.Request{
		URL:            target,
		AcceptTypes:    []string{},
		MaxBodySize:    robots.MaxSize + 1,
		MaxDecodedSize: robots.MaxSize + 1,
	}
}

// RobotsClient fetches robots.txt files outside a crawl, for tools such as crawl
// robots: with the client a crawl of the same configuration uses (user agent,
// timeouts, TLS, the addresses it may reach) and the crawl's redirect rule, but
// without pacing and without archiving. It is safe for concurrent use.
type RobotsClient struct{ client *fetch.Client }

// NewRobotsClient builds a RobotsClient from cfg's user_agent, fetch and network
// sections. A bad value is reported as a *config.Error.
func NewRobotsClient(cfg config.Config) (*RobotsClient, error) {
	client, err := newClient(cfg, nil)
	if err != nil {
		return nil, err
	}
	return &RobotsClient{client: client}, nil
}

// Fetch fetches robotsURL and follows its redirects as a crawl does. The result's
// Status is that of the last hop; a 3xx means a redirect was not followed (robots.txt
// unreachable, RFC 9309). An error is a failure with no HTTP status (DNS, connection,
// an address refused: see AddressRefusedError).
func (rc *RobotsClient) Fetch(ctx context.Context, robotsURL string) (*robots.FetchResult, error) {
	resp, trail, err := followRobots(ctx, robotsURL, func(ctx context.Context, target string, _ bool) (*fetch.Response, error) {
		return rc.client.Fetch(ctx, robotsRequest(target))
	})
	if err != nil {
		return nil, err
	}
	defer resp.Release()
	res := robotsResult(resp, trail)
	res.Body = bytes.Clone(res.Body)
	return res, nil
}

// robotsFetcher fetches robots.txt for the robots cache: through politeness, by
// followRobots, archiving every hop.
type robotsFetcher struct{ c *Crawler }

// FetchRobots follows the redirects itself, hop by hop, rather than letting the client
// follow them: every hop is a request to its own authority and waits for that
// authority's ticket and spacing, as any other request to it does, so a robots.txt
// that redirects to another host cannot hit that host while it is busy or too soon.
// Only one ticket is held at a time, released before the next hop asks for its own,
// so hops to the same host, or two hosts redirecting to each other, cannot deadlock;
// every wait ends with ctx.
func (f *robotsFetcher) FetchRobots(ctx context.Context, robotsURL string) (*robots.FetchResult, error) {
	c := f.c
	var target string
	resp, trail, err := followRobots(ctx, robotsURL, func(ctx context.Context, t string, first bool) (*fetch.Response, error) {
		target = t
		resp, err := f.hop(ctx, t, first)
		if first && err == nil {
			c.counters.robotsFetched.Add(1)
		}
		var fe *fetch.Error
		if first && errors.As(err, &fe) && fe.Phase == fetch.PhasePolicy {
			// The host's own address is refused: every URL of it is, for the same
			// reason (process skips them as policy), not for an unreachable robots.txt.
			c.refusedHosts.Store(extract.Authority(t), err.Error())
		}
		return resp, err
	})
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
	if trail.unfollowed != "" {
		// A 3xx result: the redirects were not all followed, so robots.txt is
		// unreachable (robots.FetchResult).
		c.log.Info("robots.txt unreachable: redirects not followed", "url", robotsURL,
			"hops", trail.hops+1, "loop", trail.loop, "last", trail.unfollowed)
	} else {
		c.log.Debug("robots.txt fetched", "url", robotsURL, "status", resp.Status, "final", resp.FinalURL)
	}
	return robotsResult(resp, trail), nil
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
	if err := c.member.mayFetch(target, !first); err != nil {
		// In a cluster, the lease lapsed during the wait (fencing): not begun.
		c.politeness.Release(ticket, politeness.Observation{})
		return nil, &robotsNotYet{host: host, until: c.now()}
	}
	fctx, began := ctx, (*robotsBegin)(nil)
	if first {
		fctx, began = beginOnConnect(ctx, robotsStopGrace)
		defer began.end()
	}
	resp, ferr := c.client.Fetch(fctx, robotsRequest(target))
	if err := began.err(); err != nil {
		c.politeness.Release(ticket, politeness.Observation{})
		return nil, err
	}
	wait := c.politeness.ReleaseWait(ticket, c.observe(resp, ferr))
	if resp != nil {
		ex := exchange(resp, "robots")
		ex.Metadata = &storage.Metadata{TargetURI: resp.FinalURL, Timing: timing(resp, wait)}
		// An answer that came in a stop's grace is archived all the same, as its
		// result is stored.
		if _, err := c.warc.WriteExchange(context.WithoutCancel(ctx), ex); err != nil {
			c.log.Error("archiving robots.txt", "url", resp.FinalURL, "err", err)
		}
		c.counters.bytes.Add(int64(len(resp.RawBody)))
	}
	return resp, ferr
}

// robotsBegin marks a robots.txt fetch in frontier.db (robots.Begin) once its
// connection is up, just before its request is written: not before the wait for the
// host's turn, nor before the dial and the TLS handshake. A process killed before then
// sent no request, and its next run need not hold the host back (robotsInterrupted).
// The mark is durable before the first byte of the request goes out.
//
// A graceful stop (the end of ctx) abandons the fetch at once until it is marked, and
// afterwards gives its request, already with the server, a short grace to be answered
// (robotsStopGrace), so that the answer is stored and the mark cleared, as a page's
// fetch in flight finishes; a server that does not answer within it does not hold the
// stop, and the mark stays for the next run.
type robotsBegin struct {
	cancel context.CancelCauseFunc
	stop   func() bool // unregisters the stop's hook
	mu     sync.Mutex
	sent   bool        // the mark was asked for: the request is about to go out
	grace  *time.Timer // the end of the stop's grace; nil until ctx ends after sent
	failed error       // the mark could not be stored: the request was abandoned
}

// robotsStopGrace is how long a graceful stop waits for the answer to a robots.txt
// request already written: a few round trips, short enough that Ctrl-C stays prompt
// when a server stalls (the default fetch.timeout is 30 s).
var robotsStopGrace = 2 * time.Second

// beginOnConnect returns the context of the fetch, with the httptrace hook that marks
// it, and its robotsBegin. The context ends with ctx until the mark is asked for, and
// grace after ctx ends once it was.
func beginOnConnect(ctx context.Context, grace time.Duration) (context.Context, *robotsBegin) {
	b := new(robotsBegin)
	cctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	b.cancel = cancel
	b.stop = context.AfterFunc(ctx, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if !b.sent {
			cancel(context.Cause(ctx))
			return
		}
		b.grace = time.AfterFunc(grace, func() { cancel(context.Cause(ctx)) })
	})
	var once sync.Once
	fctx := httptrace.WithClientTrace(cctx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) {
			once.Do(func() {
				b.mu.Lock()
				if cctx.Err() != nil {
					b.mu.Unlock()
					return // abandoned by a stop: the request does not go out
				}
				b.sent = true
				b.mu.Unlock()
				if err := robots.Begin(ctx); err != nil {
					b.mu.Lock()
					b.failed = err
					b.mu.Unlock()
					cancel(err)
				}
			})
		},
	})
	return fctx, b
}

// end releases the fetch's context and its stop's hook; nothing for a nil b.
func (b *robotsBegin) end() {
	if b == nil {
		return
	}
	b.stop()
	b.mu.Lock()
	if b.grace != nil {
		b.grace.Stop()
	}
	b.mu.Unlock()
	b.cancel(nil)
}

// err is the error of a mark that could not be stored; nil for a nil b.
func (b *robotsBegin) err() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failed
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
// request went out at `at` in an earlier run that died (or stopped) before storing the
// result. The server saw a connection cut, perhaps after it had answered: the host
// waits what a connection error makes it wait in a live crawl (politeness.Scheduler.Cut:
// the backoff of one failure, with jitter, at least min_delay and the Crawl-delay of
// the host's earlier robots.txt, last, if one is stored), and the robots.txt is fetched
// again then. The wait counts from the latest moment the cut request can have ended:
// the start of this run, or of the first run that saw the mark (`seen`: restarts do not
// hold the host back again), or the longest a robots.txt fetch can take after `at` if
// that is earlier. The cut is not recorded as robots.txt unreachable, which is for a
// server that fails to answer.
func (c *Crawler) robotsInterrupted(authority string, at, seen time.Time, last *robots.Robots) {
	longest := (RobotsMaxRedirects + 1) * (time.Duration(c.cfg.Fetch.Timeout) + robotsMaxDefer)
	end := c.started
	if e := at.Add(longest); e.Before(end) {
		end = e
	}
	if !seen.IsZero() && seen.Before(end) {
		end = seen // an earlier run saw the mark: the answer had ended by then
	}
	var known politeness.Rules
	if last != nil {
		known = pacing(last.Group(c.agent))
	}
	wait := c.politeness.Cut(authority, end, known)
	if !wait.Until.After(c.now()) {
		return
	}
	c.log.Info("robots.txt fetch cut by the last stop: retried after the connection-error backoff",
		"host", authority, "fetch_began", at, "counted_from", end, "until", wait.Until,
		"wait", wait.Delay().String(), "reason", wait.Reason.String())
}
