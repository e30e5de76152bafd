package crawl

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/extract/lang"
	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/recrawl"
	"github.com/politecrawl/crawl/robots"
	"github.com/politecrawl/crawl/storage"
)

// redirect queues a redirect's target as a new URL, one hop further.
func (c *Crawler) redirect(l *frontier.Lease, location string, skips *[]*storage.Skip) []frontier.Entry {
	if l.Hops+1 > c.cfg.Fetch.MaxRedirects {
		c.counters.skip("redirect-limit", 1)
		*skips = append(*skips, c.skip(location, skipRedirectLimit,
			fmt.Sprintf("redirect %d from a seed or link, past fetch.max_redirects %d", l.Hops+1, c.cfg.Fetch.MaxRedirects), l.URL, l.Depth))
		return nil
	}
	u, err := c.urls.Canonical(location)
	if err != nil {
		c.counters.skip("bad-url", 1)
		return nil
	}
	if !c.inScope(u, l.Depth, l.URL, skips) {
		return nil
	}
	foundOn := l.URL
	if l.Kind == kindSitemap {
		foundOn = l.FoundOn // a sitemap that robots.txt lists stays listed when it moves
	}
	return []frontier.Entry{{URL: u, Depth: l.Depth, Priority: l.Priority, FoundOn: foundOn, Kind: l.Kind, Hops: l.Hops + 1}}
}

// pageLinks extracts a document's facts into page and returns the links to queue,
// every outlink found, the languages of its main text (for the WARC metadata and
// conversion records) and, for an HTML document whose requisites are wanted
// (seeksRequisites), its requisites, found in the same pass as its links.
func (c *Crawler) pageLinks(l *frontier.Lease, resp *fetch.Response, page *storage.Page, skips *[]*storage.Skip) ([]frontier.Entry, []string, []lang.Result, *extract.Requisites) {
	if !isHTML(resp.Header.Get("Content-Type"), resp.Body) {
		d := extract.RobotsTag(resp.Header, c.agent)
		page.NoIndex, page.NoFollow = d.NoIndex, d.NoFollow
		return nil, nil, nil, nil
	}
	base, err := url.Parse(resp.FinalURL)
	if err != nil {
		base, _ = url.Parse(l.URL)
	}
	withText := c.cfg.Storage.Text || c.cfg.Storage.TextRecords || c.cfg.Storage.WET || c.cfg.Extract.SkipNearDuplicates
	doc, err := readHTML(c.cfg, c.agent, base, resp.Header, resp.Body, withText, c.seeksRequisites(l, resp))
	if err != nil {
		c.counters.skip("unparsable-html", 1)
		c.log.Debug("html not parsed", "url", l.URL, "err", err)
		return nil, nil, nil, nil
	}
	page.Title, page.Lang, page.Canonical = doc.Title, doc.Lang, doc.Canonical
	page.NoIndex, page.NoFollow = doc.Robots.NoIndex, doc.Robots.NoFollow
	page.Text = doc.Text // dropped after the WARC write unless storage.text is on
	if withText {
		page.SimHash = doc.SimHash.String()
	}
	if len(doc.Languages) > 0 {
		page.Language = storageLanguage(doc.Languages[0])
	}
	page.Truncated = page.Truncated || doc.Truncated
	for reason, n := range doc.Skipped {
		c.counters.skip("link-"+reason, int64(n))
	}
	if n := doc.Skipped["limit"]; n > 0 {
		*skips = append(*skips, c.skip(l.URL, skipLinkLimit,
			fmt.Sprintf("URLs left out: %d, past scope.max_links_per_page %d", n, c.cfg.Scope.MaxLinksPerPage), l.FoundOn, l.Depth))
	}
	outlinks := make([]string, 0, len(doc.Links))
	for _, ln := range doc.Links {
		outlinks = append(outlinks, ln.URL)
	}
	if doc.Robots.NoFollow {
		c.counters.skip("nofollow-page", int64(len(doc.Links)))
		return nil, outlinks, doc.Languages, doc.Requisites
	}
	if c.cfg.Extract.SkipNearDuplicates && len(doc.Text) >= nearDupsMinText && c.nearDups.seen(base.Hostname(), doc.SimHash) {
		c.counters.skip("near-duplicate", int64(len(doc.Links)))
		return nil, outlinks, doc.Languages, doc.Requisites
	}
	entries := make([]frontier.Entry, 0, len(doc.Links))
	seen := make(map[string]struct{}, len(doc.Links))
	for _, ln := range doc.Links {
		if ln.NoFollow && !c.cfg.Scope.FollowNofollow {
			c.counters.skip("nofollow-link", 1)
			continue
		}
		u, err := c.urls.Canonical(ln.URL)
		if err != nil {
			c.counters.skip("bad-url", 1)
			continue
		}
		if _, dup := seen[u]; dup {
			continue
		}
		seen[u] = struct{}{}
		if !c.inScope(u, l.Depth+1, l.URL, skips) {
			continue
		}
		entries = append(entries, frontier.Entry{URL: u, Depth: l.Depth + 1, Priority: priorityLink, FoundOn: l.URL, Kind: kindPage})
	}
	// Links handed over by an earlier page need not go again (linkCache).
	return c.links.keep(entries), outlinks, doc.Languages, doc.Requisites
}

// sitemapLinks parses a sitemap, index or feed and returns its URLs: pages at sitemap
// priority, and nested sitemaps (bounded depth) as sitemap fetches; and, for the
// adaptive recrawl schedule, what it says of how often its pages change.
func (c *Crawler) sitemapLinks(l *frontier.Lease, resp *fetch.Response, skips *[]*storage.Skip) ([]frontier.Entry, map[string]recrawl.Hint) {
	// A sitemap that a robots.txt lists, directly or through an index, may name any URL
	// of that robots.txt's site, whatever its own directory or host (sitemaps.org,
	// "Sitemaps & Cross Submits"); l.FoundOn is that robots.txt. Other sitemaps cover
	// their own directory only. extract applies both rules.
	res, err := extract.Sitemap(bytes.NewReader(resp.Body), l.URL, extract.SitemapOptions{
		Depth:     l.Depth,
		RobotsURL: robotsLister(l.FoundOn),
	})
	if err != nil && res == nil {
		c.counters.skip("unparsable-sitemap", 1)
		c.log.Info("sitemap not parsed", "url", l.URL, "err", err)
		return nil, nil
	}
	switch {
	case resp.Truncated || res.Truncated:
		// The URLs past the cut are lost to this crawl: say so where a user looks.
		c.counters.skip("sitemap-truncated", 1)
		c.log.Warn("sitemap cut at a size limit: the URLs it lists past the cut are not queued",
			"url", l.URL, "bytes", len(resp.Body), "urls_read", len(res.URLs), "err", err)
	case err != nil:
		c.log.Info("sitemap read in part", "url", l.URL, "err", err)
	}
	for reason, n := range res.Skipped {
		c.counters.skip("sitemap-"+reason, int64(n))
	}
	var entries []frontier.Entry
	for _, child := range res.Sitemaps {
		u, err := c.urls.Canonical(child)
		if err != nil {
			c.counters.skip("bad-url", 1)
			continue
		}
		entries = append(entries, frontier.Entry{URL: u, Depth: l.Depth + 1, Priority: prioritySitemap, FoundOn: l.FoundOn, Kind: kindSitemap})
	}
	var hints map[string]recrawl.Hint
	for _, su := range res.URLs {
		u, err := c.urls.Canonical(su.Loc)
		if err != nil {
			c.counters.skip("bad-url", 1)
			continue
		}
		if !c.inScope(u, 1, l.URL, skips) {
			continue
		}
		entries = append(entries, frontier.Entry{URL: u, Depth: 1, Priority: prioritySitemapURL, FoundOn: l.URL, Kind: kindPage})
		hints = c.sitemapHint(hints, u, &su)
	}
	return entries, hints
}

// robotsLister returns foundOn when it is a robots.txt URL (the sitemap was listed
// there), and "" otherwise.
func robotsLister(foundOn string) string {
	u, err := url.Parse(foundOn)
	if err != nil || u.Path != "/robots.txt" {
		return ""
	}
	return foundOn
}

// inScope checks a link to u, found on foundOn, against the crawl's scope at depth. A
// link out of scope is counted, logged at debug level and, when recordedScope says so,
// added to skips.
func (c *Crawler) inScope(u string, depth int, foundOn string, skips *[]*storage.Skip) bool {
	reason := c.scope.Check(u, depth)
	if reason == extract.ReasonNone {
		return true
	}
	c.counters.skip(string(reason), 1)
	if recordedScope(reason) {
		*skips = append(*skips, c.skip(u, skipScope, string(reason), foundOn, depth))
	} else {
		c.log.Debug("link not followed", "url", u, "reason", string(reason), "found_on", foundOn)
	}
	return false
}

// queueSitemaps queues, once per host and run, the sitemaps its robots.txt lists (or
// /sitemap.xml when configured to guess).
func (c *Crawler) queueSitemaps(ctx context.Context, host string, rob *robots.Entry) error {
	if !c.cfg.Sitemaps.FromRobots && !c.cfg.Sitemaps.Guess {
		return nil
	}
	c.sitemapsMu.Lock()
	if c.sitemapsQueued[host] {
		c.sitemapsMu.Unlock()
		return nil
	}
	c.sitemapsQueued[host] = true
	c.sitemapsMu.Unlock()

	var urls []string
	if c.cfg.Sitemaps.FromRobots && rob.Robots != nil {
		urls = rob.Robots.Sitemaps()
	}
	if len(urls) == 0 && c.cfg.Sitemaps.Guess {
		urls = []string{host + "/sitemap.xml"}
	}
	var entries []frontier.Entry
	for _, s := range urls {
		u, err := c.urls.Canonical(s)
		if err != nil {
			c.counters.skip("bad-url", 1)
			continue
		}
		entries = append(entries, frontier.Entry{URL: u, Priority: prioritySitemap, FoundOn: rob.URL, Kind: kindSitemap})
	}
	entries, err := c.handOff(ctx, entries)
	if err != nil || len(entries) == 0 {
		return nil // stopping, or every sitemap handed to another process
	}
	if _, err := c.front.Add(ctx, entries...); err != nil && ctx.Err() == nil {
		return fmtErr("queueing the sitemaps of "+host, err)
	}
	return nil
}

// isHTML reports whether a response is an HTML document, from its Content-Type or, when
// that is missing, from its first bytes.
func isHTML(contentType string, body []byte) bool {
	if contentType == "" {
		contentType = http.DetectContentType(body)
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0]))
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}
