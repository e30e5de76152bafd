package crawl

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/storage"
)

// A page requisite is a frontier entry whose Kind has kindRequisite set: its low four
// bits are the extract.Kind, the next three the hop count from the page (1 for what
// the page names, 2 for what a stylesheet it names names, ...). So a requisite needs
// no field of its own in the frontier's encoding, and survives a restart as any URL.
const kindRequisite uint8 = 0x80

// requisiteHops is the most hops from a page a requisite's Kind holds.
const requisiteHops = 7

// priorityRequisite puts a page's requisites at the head of their hosts' queues,
// before any page: they are due right after the page that needs them, so that a
// crawl cut short holds whole pages.
const priorityRequisite = 1000

// requisiteEntryKind is the frontier Kind of a requisite of kind k, hop steps from
// its page.
func requisiteEntryKind(k extract.Kind, hop int) uint8 {
	return kindRequisite | uint8(min(max(hop, 1), requisiteHops))<<4 | uint8(k)&0x0f
}

// requisiteOf returns the kind and hop count of a frontier Kind; ok is false for a
// page or a sitemap.
func requisiteOf(kind uint8) (k extract.Kind, hop int, ok bool) {
	if kind&kindRequisite == 0 {
		return 0, 0, false
	}
	return extract.Kind(kind & 0x0f), int(kind>>4) & requisiteHops, true
}

// requisitePolicy is what the requisites section of the configuration lets in.
type requisitePolicy struct {
	enabled    bool
	maxHops    int
	perPage    int // the most queued for one document; 0: unlimited
	kinds      map[extract.Kind]bool
	otherHosts bool
}

// newRequisitePolicy reads the requisites section, which Validate has checked.
func newRequisitePolicy(r config.Requisites) requisitePolicy {
	p := requisitePolicy{enabled: r.Enabled, maxHops: min(r.MaxHops, requisiteHops), perPage: r.MaxPerPage, otherHosts: r.OtherHosts, kinds: map[extract.Kind]bool{}}
	for _, name := range r.Kinds {
		if k, err := extract.ParseKind(name); err == nil {
			p.kinds[k] = true
		}
	}
	return p
}

// An @import costs no hop (extract.MaxImportNesting): its nesting rides in the
// frontier Priority of the imported stylesheet, one below its importer's.

// importNesting returns how many @import steps led to the requisite leased as l.
func importNesting(l *frontier.Lease) int {
	if _, _, ok := requisiteOf(l.Kind); !ok {
		return 0
	}
	return min(max(priorityRequisite-l.Priority, 0), extract.MaxImportNesting)
}

// requisites returns the frontier entries of what a fetched document needs to be
// shown: a page's requisites (hop 1), or those of a requisite that is itself a
// document (a stylesheet, a frame) one hop further, up to requisites.max_hops; a
// stylesheet's @import is at its importer's hop (see importNesting). They keep
// the page's depth, go to the head of their hosts' queues, and are fetched as the
// URL the document names (no parameter stripped: replay looks that URL up). What
// the configuration leaves out is counted by reason, and what the document names
// and what became of each name go into its pages.jsonl line (page.Requisites).
//
// inPage holds the requisites of an HTML document, found with its links (pageLinks);
// nil when the document is not HTML, and then they are looked for here.
func (c *Crawler) requisites(l *frontier.Lease, resp *fetch.Response, inPage *extract.Requisites, page *storage.Page, skips *[]*storage.Skip) []frontier.Entry {
	p := &c.reqPolicy
	if !p.enabled || resp.Status < 200 || resp.Status > 299 || l.Kind == kindSitemap {
		return nil
	}
	kind, hop, isReq := requisiteOf(l.Kind)
	nesting := importNesting(l)
	atLimit := hop+1 > p.maxHops
	ct := resp.Header.Get("Content-Type")
	html := isHTML(ct, resp.Body)
	css := !html && (isCSS(ct) || isReq && kind == extract.KindStylesheet && !strings.Contains(strings.ToLower(ct), "html"))
	if atLimit && (!css || nesting >= extract.MaxImportNesting) {
		return nil
	}
	base, err := url.Parse(resp.FinalURL)
	if err != nil {
		base, _ = url.Parse(l.URL)
	}
	opts := extract.RequisiteOptions{MaxHTMLBytes: int(c.cfg.Extract.MaxHTMLBytes)}
	var found *extract.Requisites
	document := true // read for what it names, not only its Link header
	switch {
	case inPage != nil:
		found = inPage
	case html:
		found, err = extract.HTMLRequisites(base, resp.Header, resp.Body, opts)
	case css:
		found, err = extract.CSSRequisites(base, resp.Header, resp.Body, opts)
	default:
		found, err = extract.LinkHeaderRequisites(base, resp.Header)
		document = !isReq
	}
	if err != nil {
		return nil
	}
	for reason, n := range found.Skipped {
		c.counters.skip("requisite-"+reason, int64(n))
	}
	entries := make([]frontier.Entry, 0, len(found.Found))
	// Past extract's own bound (DefaultMaxRequisites) a name is counted, not kept;
	// a stylesheet at the hop limit is read for its imports alone.
	rc := &storage.RequisiteCounts{}
	if !atLimit {
		rc.Found, rc.Limit = found.Skipped["limit"], found.Skipped["limit"]
	}
	for _, q := range c.withHostIcon(found.Found, base.String(), html && !isReq) {
		e := frontier.Entry{URL: q.URL, Depth: l.Depth, Priority: priorityRequisite,
			FoundOn: l.URL, Kind: requisiteEntryKind(q.Kind, hop+1)}
		switch imported := css && q.Kind == extract.KindStylesheet; {
		case imported && nesting >= extract.MaxImportNesting:
			c.counters.skip("requisite-import-nesting", 1)
			rc.Found++
			rc.Limit++
			continue
		case imported:
			e.Priority, e.Kind = priorityRequisite-nesting-1, requisiteEntryKind(q.Kind, hop)
		case atLimit:
			continue
		}
		rc.Found++
		if !p.kinds[q.Kind] {
			c.counters.skip("requisite-kind", 1)
			rc.Excluded++
			continue
		}
		if !p.otherHosts && !c.inScope(q.URL, l.Depth, l.URL, skips) {
			rc.Scope++
			continue
		}
		if p.perPage > 0 && len(entries) == p.perPage {
			c.counters.skip(skipRequisiteLimit, 1)
			s := c.skip(q.URL, skipRequisiteLimit, fmt.Sprintf("past requisites.max_per_page %d", p.perPage), l.URL, l.Depth)
			s.Requisite = q.Kind.String()
			*skips = append(*skips, s)
			rc.Limit++
			continue
		}
		entries = append(entries, e)
	}
	rc.Queued = len(entries)
	for _, e := range entries {
		// Already archived by this crawl (the page's sync makes that record durable
		// with the page's, being earlier in the files): a shared stylesheet.
		if capt, ok, err := c.warc.LastCapture(e.URL); err == nil && ok && !capt.Imported {
			rc.Archived++
		}
	}
	if document || rc.Found > 0 {
		// Every page has the object; an image or a script only when its Link
		// header names something.
		page.Requisites = rc
	}
	// A stylesheet or script every page names goes to the frontier once in a while,
	// not with every page (linkCache).
	return c.links.keep(entries)
}

// withHostIcon returns named, and when page is true and icons are fetched, the
// icon at extract.HostIconPath of pageURL's host after them unless named already:
// a browser asks for it when a page names no icon, and ReplayWeb.page asks the
// archive for it for a replayed page's tab whatever the page names, so every page
// counts it (capture.Reader does the same). It costs one request per host: the
// frontier keeps each URL once, and the linkCache keeps it out of most pages'
// batches. A frame's document is not a page: no tab shows its icon.
func (c *Crawler) withHostIcon(named []extract.Requisite, pageURL string, page bool) []extract.Requisite {
	if !page || !c.reqPolicy.kinds[extract.KindIcon] {
		return named
	}
	icon, ok := extract.HostIcon(pageURL)
	if !ok || slices.ContainsFunc(named, func(q extract.Requisite) bool { return q.URL == icon.URL }) {
		return named
	}
	return append(slices.Clip(named), icon)
}

// seeksRequisites reports whether the requisites of the document fetched for l are
// wanted: requisites are on, the response is a success, the lease is not a sitemap's,
// and one more hop is within requisites.max_hops.
func (c *Crawler) seeksRequisites(l *frontier.Lease, resp *fetch.Response) bool {
	p := &c.reqPolicy
	if !p.enabled || resp.Status < 200 || resp.Status > 299 || l.Kind == kindSitemap {
		return false
	}
	_, hop, _ := requisiteOf(l.Kind)
	return hop+1 <= p.maxHops
}

// isCSS reports whether a Content-Type is a stylesheet's.
func isCSS(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "text/css")
}

// requisiteRedirect queues a requisite's redirect target as the same requisite, one
// redirect further, as the browser follows it: at the head of its host's queue,
// whatever scope.mode says when requisites.other_hosts is on.
func (c *Crawler) requisiteRedirect(l *frontier.Lease, location string, skips *[]*storage.Skip) []frontier.Entry {
	if l.Hops+1 > c.cfg.Fetch.MaxRedirects {
		c.counters.skip("redirect-limit", 1)
		*skips = append(*skips, c.skip(location, skipRedirectLimit,
			fmt.Sprintf("redirect %d from a page requisite, past fetch.max_redirects %d", l.Hops+1, c.cfg.Fetch.MaxRedirects), l.URL, l.Depth))
		return nil
	}
	u, err := extract.Canonical(location)
	if err != nil {
		c.counters.skip("bad-url", 1)
		return nil
	}
	if !c.reqPolicy.otherHosts && !c.inScope(u, l.Depth, l.URL, skips) {
		return nil
	}
	return []frontier.Entry{{URL: u, Depth: l.Depth, Priority: l.Priority, FoundOn: l.FoundOn, Kind: l.Kind, Hops: l.Hops + 1}}
}
