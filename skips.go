package crawl

import (
	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/storage"
)

// Reasons written in skipped.jsonl. README "What it writes" lists them with what each
// line holds; keep the two in step.
const (
	skipRobots            = "robots"             // robots.txt disallows the URL
	skipRobotsUnreachable = "robots-unreachable" // robots.txt could not be fetched: the host is set aside for this run
	skipContentSignal     = "content-signal"     // the site's Content-Signal says no to robots.content_signal_use
	skipOptOut            = "opt-out"            // TDMRep, noai or Content-Usage reserves the page against robots.content_signal_use
	skipDeferred          = "deferred"           // the host asks for a longer wait than politeness.max_delay: tried again later
	skipFailed            = "failed"             // the fetch failed for good (network error, or 429/5xx, after the last attempt)
	skipPolicy            = "policy"             // the address is refused by policy (private or loopback without allow_private)
	skipScope             = "scope"              // a link refused by a scope rule or trap defence (detail: which)
	skipLinkLimit         = "link-limit"         // a page's links past scope.max_links_per_page (one line per page)
	skipRedirectLimit     = "redirect-limit"     // a redirect target past fetch.max_redirects
	skipRequisiteLimit    = "requisite-limit"    // a document's requisites past requisites.max_per_page (a line each)
)

// recordedScope reports whether a link refused by the scope check gets a line in
// skipped.jsonl. Links off the crawl's hosts, domains or prefixes, and links that are
// not http(s) URLs, are only counted: a page has hundreds of them (every site links to
// the same social networks), and a line for each on every page would bury the lines a
// user looks for. The traps, depth and include/exclude rules are about the site's own
// pages and are written, one line per link.
func recordedScope(r extract.Reason) bool {
	switch r {
	case extract.ReasonOffHost, extract.ReasonOffDomain, extract.ReasonOffPrefix,
		extract.ReasonScheme, extract.ReasonMalformed:
		return false
	}
	return true
}

// skip makes a skipped.jsonl line for rawURL, found on foundOn at depth.
func (c *Crawler) skip(rawURL, reason, detail, foundOn string, depth int) *storage.Skip {
	return &storage.Skip{URL: rawURL, Reason: reason, Detail: detail, Time: c.now().UTC(), FoundOn: foundOn, Depth: depth}
}

// leaseSkip makes a skipped.jsonl line for a leased URL; a requisite's names its kind.
func (c *Crawler) leaseSkip(l *frontier.Lease, reason, detail string) *storage.Skip {
	s := c.skip(l.URL, reason, detail, l.FoundOn, l.Depth)
	if k, _, ok := requisiteOf(l.Kind); ok {
		s.Requisite = k.String()
	}
	return s
}

// writeSkips queues skips for skipped.jsonl, with a debug line in crawl.log for each.
// Call it before the lease is done: the frontier's commit of the Done makes them
// durable first (Crawler.syncDones), so a crash cannot finish the lease without its
// lines.
func (c *Crawler) writeSkips(skips ...*storage.Skip) error {
	if len(skips) == 0 {
		return nil
	}
	c.logSkips(skips)
	if err := c.commit.Queue(nil, skips...); err != nil {
		return fmtErr("recording URLs not fetched", err)
	}
	return nil
}

// writePage queues a page's pages.jsonl line and the skipped.jsonl lines of the
// links it did not queue, after its WARC records (written by Append). It does not
// wait: the frontier's commit of the page's Done makes records and lines durable
// first, in one wait (Crawler.syncDones), and a line reaches pages.jsonl only once
// the records it points at are on disk (storage.Group).
func (c *Crawler) writePage(page *storage.Page, skips []*storage.Skip) error {
	c.logSkips(skips)
	if err := c.commit.Queue(page, skips...); err != nil {
		return fmtErr("writing the pages.jsonl line of "+page.URL, err)
	}
	return nil
}

// logSkips writes a debug line in crawl.log for each skip.
func (c *Crawler) logSkips(skips []*storage.Skip) {
	for _, s := range skips {
		c.log.Debug("not fetched", "url", s.URL, "reason", s.Reason, "detail", s.Detail, "found_on", s.FoundOn)
	}
}

// lastAttempt reports whether a Retry outcome for l turns into Failed in the frontier
// (its attempts are used up), so that the skip can be written now.
func (c *Crawler) lastAttempt(l *frontier.Lease) bool {
	return l.Attempt >= c.cfg.Fetch.MaxAttempts
}
