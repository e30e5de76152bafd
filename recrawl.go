package crawl

import (
	"time"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/recrawl"
	"github.com/politecrawl/crawl/storage"
)

// lastFetch is what a refetch of a page knows of the fetch before it.
type lastFetch struct {
	// base is the fetch this one follows: the page's schedule.db record's cur, or its
	// prev when cur is that of this very lease, cut by a crash before its Done (see
	// package recrawl).
	base    recrawl.Fetch
	hasBase bool
	hint    recrawl.Hint     // what a sitemap said of the page
	capture *storage.Capture // the page's last 2xx capture, if the archive knows one
}

// lastFetch reads what schedule.db and the archive know of l's page before its fetch.
func (c *Crawler) lastFetch(l *frontier.Lease) (*lastFetch, error) {
	lf, err := c.scheduled(l)
	if err != nil {
		return nil, err
	}
	last, ok, err := c.warc.LastCapture(l.URL)
	if err != nil {
		return nil, err
	}
	if ok {
		lf.capture = &last
	}
	return lf, nil
}

// scheduled reads what schedule.db knows of l's page.
func (c *Crawler) scheduled(l *frontier.Lease) (*lastFetch, error) {
	rec, ok, hint, err := c.recrawl.Get(l.URL)
	if err != nil {
		return nil, err
	}
	lf := &lastFetch{base: rec.Cur, hasBase: ok, hint: hint}
	if ok && rec.Cur.Due == unixNano(l.Due) {
		lf.base, lf.hasBase = rec.Prev, rec.HasPrev
	}
	return lf, nil
}

// validators returns the ETag and Last-Modified a refetch sends: those of the fetch
// before it, provided the archive holds a capture a 304 can refer to. A first fetch
// after a capture of a dedup_from crawl (Imported) is not conditional: a 304 would
// leave the page's links unknown to this crawl.
func (lf *lastFetch) validators() (etag, lastMod string) {
	switch {
	case lf.capture == nil, lf.capture.Imported && !lf.hasBase:
		return "", ""
	case lf.hasBase:
		return lf.base.ETag, lf.base.LastModified
	}
	return lf.capture.ETag, lf.capture.LastModified
}

// unixNano is t in Unix nanoseconds, 0 for the zero Time.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// reschedule decides, with recrawl on, when a URL whose lease ends with kind is
// fetched again, and returns that time (zero: never). A finished page's decision is
// written to schedule.db before its pages.jsonl line and its Done; it sets
// page.Changed and page.PreviousFetch for a refetch. last is what lastFetch read
// before the fetch (nil for a sitemap).
//
// A page's interval is recrawl.interval in fixed mode; in adaptive mode its first
// interval comes from its sitemap hint (recrawl.Policy.First) and each refetch shrinks
// or grows it (Policy.Next). Whether the page changed is decided against the fetch
// before it in schedule.db: a 304 did not change it; otherwise a different status or
// payload digest did. Sitemaps are read again every recrawl.interval in either mode,
// so the URLs they add are found; robots.txt is not a queued URL (its cache refreshes
// it, at least every 24 hours).
func (c *Crawler) reschedule(l *frontier.Lease, kind frontier.OutcomeKind, resp *fetch.Response, page *storage.Page, loc *storage.Location, last *lastFetch) (time.Time, error) {
	if c.cfg.Recrawl.Interval <= 0 || kind != frontier.Finished {
		return time.Time{}, nil
	}
	now := c.now()
	if last == nil { // a sitemap
		return now.Add(time.Duration(c.cfg.Recrawl.Interval)), nil
	}
	cur := recrawl.Fetch{Due: unixNano(l.Due), Fetched: page.FetchedAt, Status: page.Status, Digest: page.PayloadDigest}
	if page.Status >= 200 && page.Status < 300 && !page.Truncated {
		cur.ETag, cur.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	}
	switch {
	case last.hasBase:
		base := &last.base
		if loc.NotModified {
			cur.Status, cur.Digest, cur.ETag, cur.LastModified = base.Status, base.Digest, base.ETag, base.LastModified
		}
		changed := !loc.NotModified && (cur.Status != base.Status || cur.Digest != base.Digest)
		page.Changed, page.PreviousFetch = &changed, base.Fetched.UTC()
		cur.Interval = c.refetch.Next(base.Interval, changed, last.hint)
	default:
		if prev := last.capture; prev != nil {
			// Archived before schedule.db knew the page (by an older version): its
			// last capture says whether it changed.
			changed := !loc.NotModified && !(loc.Revisit && loc.RefersTo == prev.RecordID)
			page.Changed, page.PreviousFetch = &changed, prev.Fetched.UTC()
			if loc.NotModified {
				cur.Status, cur.Digest, cur.ETag, cur.LastModified = 200, "", prev.ETag, prev.LastModified
			}
		}
		cur.Interval = c.refetch.First(last.hint, now)
	}
	rec := &recrawl.Record{Cur: cur, Prev: last.base, HasPrev: last.hasBase}
	if err := c.recrawl.Put(l.URL, rec); err != nil {
		return time.Time{}, err
	}
	return now.Add(cur.Interval), nil
}

// refetchUnfinished gives o, with recrawl on, a refetch time if it ends its URL other
// than Finished: a URL robots.txt or a Content-Signal kept us from, or refused by
// policy, or whose fetch failed for good (a Retry on its last attempt becomes Failed)
// is tried again recrawl.interval from now, so that a robots.txt that opens up, a
// server that comes back or a configuration that changes is noticed. The check costs
// no request until the URL may be fetched.
func (c *Crawler) refetchUnfinished(o *frontier.Outcome) {
	if c.cfg.Recrawl.Interval <= 0 || o.Kind == frontier.Finished || !o.Refetch.IsZero() {
		return
	}
	o.Refetch = c.now().Add(time.Duration(c.cfg.Recrawl.Interval))
}

// sitemapHint adds to hints (made when nil) what a sitemap says of how often the page
// at canonical URL u changes, for the adaptive schedule; in other modes, or when the
// sitemap says nothing, it returns hints as they are.
func (c *Crawler) sitemapHint(hints map[string]recrawl.Hint, u string, su *extract.SitemapURL) map[string]recrawl.Hint {
	if c.cfg.Recrawl.Interval <= 0 || c.cfg.Recrawl.Mode != config.RecrawlAdaptive || su.ChangeFreq == "" && su.LastMod.IsZero() {
		return hints
	}
	if hints == nil {
		hints = make(map[string]recrawl.Hint)
	}
	hints[u] = recrawl.Hint{ChangeFreq: su.ChangeFreq, LastMod: su.LastMod}
	return hints
}

// saveHints records sitemap hints in schedule.db.
func (c *Crawler) saveHints(hints map[string]recrawl.Hint) error {
	if len(hints) == 0 {
		return nil
	}
	return c.recrawl.PutHints(hints)
}
