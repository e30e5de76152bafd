package crawl

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/optout"
	"github.com/politecrawl/crawl/politeness"
	"github.com/politecrawl/crawl/robots"
	"github.com/politecrawl/crawl/storage"
)

// tdmrepPath is where TDMRep puts a site's file.
const tdmrepPath = "/.well-known/tdmrep.json"

// tdmFiles caches each origin's tdmrep.json for the run, as TDMRep asks an agent to:
// fetched once per host (authority), before its first page, through the host's
// pacing, archived, and kept for robots.max_age. Safe for concurrent use.
type tdmFiles struct {
	mu sync.Mutex
	m  map[string]*tdmFile
}

type tdmFile struct {
	rep      *optout.TDMRep // nil: none (not 2xx, or not a valid file): every URL unset
	fetched  time.Time
	fetching bool
}

// optOutsOn reports whether the crawl reads the opt-outs beyond robots.txt:
// robots.opt_outs, or a use to obey in robots.content_signal_use.
func (c *Crawler) optOutsOn() bool {
	return c.cfg.Robots.OptOuts || c.cfg.Robots.ContentSignalUse != ""
}

// tdmFor returns what host's tdmrep.json says of rawURL, and whether the file is known
// (fetched within robots.max_age).
func (c *Crawler) tdmFor(host, rawURL string) (optout.TDM, bool) {
	c.tdm.mu.Lock()
	f := c.tdm.m[host]
	known := f != nil && !f.fetching && c.now().Sub(f.fetched) < time.Duration(c.cfg.Robots.MaxAge)
	c.tdm.mu.Unlock()
	if !known {
		return optout.TDM{}, false
	}
	t, _, _ := f.rep.Match(rawURL)
	return t, true
}

// fetchTDMRep fetches host's tdmrep.json with the lease's politeness ticket, archives
// it, caches it and gives the lease back to the frontier: the page is fetched at the
// host's next turn, with the file known. A response other than 2xx, a redirect (not
// followed) or a file that is not valid JSON leave every URL of the host unset, as the
// report says of a protocol error.
func (c *Crawler) fetchTDMRep(ctx context.Context, l *frontier.Lease, ticket *politeness.Ticket) error {
	c.tdm.mu.Lock()
	if c.tdm.m == nil {
		c.tdm.m = make(map[string]*tdmFile)
	}
	if f := c.tdm.m[l.Host]; f != nil && f.fetching {
		c.tdm.mu.Unlock()
		next := c.politeness.Release(ticket, politeness.Observation{})
		return c.endLease(ctx, l, nil, frontier.Outcome{Kind: frontier.Retry, NoAttempt: true, RetryAt: next, HostReady: next})
	}
	c.tdm.m[l.Host] = &tdmFile{fetching: true}
	c.tdm.mu.Unlock()

	target := l.URL[:len(l.URL)-len(requestPathOf(l.URL))] + tdmrepPath
	resp, ferr := c.client.Fetch(ctx, &fetch.Request{URL: target, AcceptTypes: []string{"application/json"},
		MaxBodySize: optout.MaxTDMRepSize + 1, MaxDecodedSize: optout.MaxTDMRepSize + 1})
	next := c.politeness.Release(ticket, c.observe(resp, ferr))
	f := &tdmFile{fetched: c.now()}
	if resp != nil {
		if _, err := c.warc.WriteExchange(ctx, exchange(resp, "tdmrep")); err != nil {
			c.log.Error("archiving tdmrep.json", "url", resp.FinalURL, "err", err)
		}
		c.counters.bytes.Add(int64(len(resp.RawBody)))
		if resp.Status >= 200 && resp.Status < 300 && !resp.Truncated {
			rep, err := optout.ParseTDMRep(resp.Body)
			if err != nil {
				c.log.Info("tdmrep.json not used", "url", target, "err", err)
			}
			f.rep = rep
		}
		resp.Release()
	}
	c.tdm.mu.Lock()
	c.tdm.m[l.Host] = f
	c.tdm.mu.Unlock()
	return c.endLease(ctx, l, nil, frontier.Outcome{Kind: frontier.Retry, NoAttempt: true, RetryAt: next, HostReady: next})
}

// requestPathOf returns the part of an absolute URL from its path on.
func requestPathOf(rawURL string) string {
	rest := rawURL
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		return rest[i:]
	}
	return ""
}

// signalsBefore gathers the opt-outs known before a page is fetched: its origin's
// tdmrep.json rule and its robots.txt Content-Usage rules.
func (c *Crawler) signalsBefore(rob *robots.Robots, tdm optout.TDM, rawURL string) optout.Signals {
	return optout.Signals{TDMFile: tdm, Usage: rob.ContentUsage(c.agent, rawURL)}
}

// signalsAfter adds what the response says: the tdm-* and Content-Usage header fields,
// noai in X-Robots-Tag, and for HTML the meta elements.
func (c *Crawler) signalsAfter(s optout.Signals, resp *fetch.Response) optout.Signals {
	s.TDMHeader = optout.TDMHeader(resp.Header)
	s.NoAI = optout.RobotsTag(resp.Header, c.agent)
	ct := resp.Header.Get("Content-Type")
	s.Image = strings.HasPrefix(strings.ToLower(ct), "image/")
	if v := resp.Header.Values("Content-Usage"); len(v) > 0 {
		s.Usage = append([]string{strings.Join(v, ", ")}, s.Usage...)
	}
	if isHTML(ct, resp.Body) {
		h := optout.ParseHTML(resp.Body, c.agent)
		s.TDMMeta = h.TDM
		s.NoAI = s.NoAI.Or(h.NoAI)
	}
	return s
}

// optOutSkip returns the skipped.jsonl line of a page v reserves against the crawl's
// use, or nil.
func (c *Crawler) optOutSkip(l *frontier.Lease, v optout.Verdict) *storage.Skip {
	use := c.cfg.Robots.ContentSignalUse
	by, ok := v.Reserves(use)
	if use == "" || !ok {
		return nil
	}
	return c.leaseSkip(l, skipOptOut, fmt.Sprintf("%s reserves %s; robots.content_signal_use: %s (%s)", by, use, use, v))
}
