package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/politecrawl/crawl/cluster"
	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/extract/lang"
	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/optout"
	"github.com/politecrawl/crawl/politeness"
	"github.com/politecrawl/crawl/recrawl"
	"github.com/politecrawl/crawl/storage"
)

// process takes one lease from robots.txt to frontier.Done, following DESIGN.md: robots
// cache → politeness → fetch → storage → extract → frontier, except that extraction runs
// before the WARC write, so that the page's metadata record (its outlinks) is written and
// fsynced with its response. It returns an error only
// when the crawl must stop (the frontier or storage failed); anything a server or a
// document does wrong becomes the lease's outcome.
//
// A page waits once, in frontier.Done: its records and lines are only queued, and the
// frontier's commit of the Done runs the storage round that makes them durable
// before it marks the lease done (Crawler.syncDones). A crash in between leaves the
// records and lines on disk and the lease not done: it is fetched again.
//
// The waits before the fetch (for robots.txt, for the politeness ticket) end with
// leaseCtx, which ends when the crawl stops leasing: a stopping crawl abandons them,
// and the lease is requeued at the next Open. The fetch itself and the writes after it
// run under ctx, so a fetch in flight finishes.
func (c *Crawler) process(ctx, leaseCtx context.Context, l *frontier.Lease) error {
	// In a cluster, only while this process holds its shard's lease (fencing).
	if err := c.member.awaitLease(leaseCtx, l.URL); errors.Is(err, cluster.ErrShardLost) {
		return c.handOffLease(ctx, l)
	} else if err != nil {
		return nil // stopping: the lease is requeued at the next Open
	}
	c.restoreSpacing(l.Host, time.Duration(c.cfg.Politeness.MinDelay))
	rob, err := c.robots.Get(leaseCtx, l.Host)
	if err != nil {
		if leaseCtx.Err() != nil {
			return nil // stopping: the lease is requeued at the next Open
		}
		var notYet *robotsNotYet
		if errors.As(err, &notYet) {
			// The host is not ready for its robots.txt: give the worker back.
			return c.endLease(ctx, l, nil, frontier.Outcome{Kind: frontier.Retry, NoAttempt: true, RetryAt: notYet.until, HostReady: notYet.until})
		}
		// Otherwise the cache fails only when its store (frontier.db) does: an unreachable
		// robots.txt is an entry, not an error. A damaged database is not a network
		// failure to wait out: stop and say so.
		return fmtErr("looking up robots.txt", err)
	}
	if rob.Unreachable && !rob.Stale {
		if why, ok := c.refusedHosts.Load(l.Host); ok {
			// Its robots.txt was not fetched because the host's address is refused by
			// policy (network.allow_private): no retry can change that within this run.
			return c.endLease(ctx, l, c.leaseSkip(l, skipPolicy, why.(string)),
				frontier.Outcome{Kind: frontier.Skipped, Reason: skipPolicy, HostReady: c.now()})
		}
		if rob.GaveUp {
			// Park before Done, so that no other worker leases this host's next URL in
			// between; every worker holding one of its leases comes here, and the
			// warning is logged once per host.
			if err := c.front.Park(ctx, l.Host, "robots-unreachable"); err != nil {
				return fmtErr("setting host "+l.Host+" aside", err)
			}
			if c.firstSetAside(l.Host) {
				c.log.Warn("robots.txt unreachable: host set aside until the next run",
					"host", l.Host, "attempts", rob.Attempts, "status", rob.Status)
			}
			detail := fmt.Sprintf("%s unreachable after %d attempts (status %d): the host's URLs are set aside until the next run",
				rob.URL, rob.Attempts, rob.Status)
			s := c.leaseSkip(l, skipRobotsUnreachable, detail)
			s.RobotsURL = rob.URL
			return c.endLease(ctx, l, s, frontier.Outcome{Kind: frontier.Retry, NoAttempt: true, RetryAt: c.now()})
		}
		return c.endLease(ctx, l, nil, frontier.Outcome{Kind: frontier.Retry, NoAttempt: true, RetryAt: rob.RetryAt, HostReady: rob.RetryAt})
	}
	c.applyRules(l.Host, rob.Robots)
	if err := c.queueSitemaps(ctx, l.Host, rob); err != nil {
		return err
	}
	facts := c.groupFacts(l.Host)
	signal := facts.signal
	if use := c.cfg.Robots.ContentSignalUse; use != "" && signal[use] == "no" {
		s := c.leaseSkip(l, skipContentSignal, fmt.Sprintf("Content-Signal: %s; robots.content_signal_use: %s", formatSignal(signal), use))
		s.RobotsURL = rob.URL
		return c.endLease(ctx, l, s, frontier.Outcome{Kind: frontier.Skipped, Reason: skipContentSignal, HostReady: c.politeness.Ready(l.Host)})
	}
	decision := rob.Robots.Match(c.agent, l.URL)
	if !decision.Allowed {
		c.counters.robotsBlocked.Add(1)
		s := c.leaseSkip(l, skipRobots, ruleString(decision.Rule))
		s.RobotsURL = rob.URL
		return c.endLease(ctx, l, s, frontier.Outcome{Kind: frontier.Skipped, Reason: "robots", HostReady: c.politeness.Ready(l.Host)})
	}
	// The opt-outs known before the fetch: tdmrep.json (once it is known) and
	// robots.txt's Content-Usage rules.
	var optSignals optout.Signals
	tdmKnown := true
	if c.optOutsOn() {
		var tdm optout.TDM
		tdm, tdmKnown = c.tdmFor(l.Host, l.URL)
		optSignals = c.signalsBefore(rob.Robots, tdm, l.URL)
		if s := c.optOutSkip(l, optout.Evaluate(optSignals)); s != nil {
			s.RobotsURL = rob.URL
			return c.endLease(ctx, l, s, frontier.Outcome{Kind: frontier.Skipped, Reason: skipOptOut, HostReady: c.politeness.Ready(l.Host)})
		}
	}

	// A host that is not ready yet (the delay after its robots.txt fetch, or after a
	// restart) goes back to the frontier rather than holding this worker: the URL keeps
	// its place at the head of the host's queue, and the worker takes another host.
	if ready := c.politeness.Ready(l.Host); ready.Sub(c.now()) > maxBlock {
		var s *storage.Skip
		if ready.Sub(c.now()) > time.Duration(c.cfg.Politeness.MaxDelay) {
			// Longer than a worker would ever wait: say so (it happens once per host,
			// when its robots.txt asks for it; later leases come when it is ready).
			s = c.leaseSkip(l, skipDeferred, fmt.Sprintf("the host asks for a wait longer than politeness.max_delay %s: not fetched before %s",
				c.cfg.Politeness.MaxDelay, ready.UTC().Format(time.RFC3339)))
			s.Until, s.Delay, s.RobotsURL = ready.UTC(), facts.delay, rob.URL
		}
		return c.endLease(ctx, l, s, frontier.Outcome{Kind: frontier.Retry, NoAttempt: true, RetryAt: ready, HostReady: ready})
	}
	ticket, err := c.politeness.Acquire(leaseCtx, l.Host)
	if err != nil {
		var deferred *politeness.DeferredError
		if errors.As(err, &deferred) {
			c.log.Info("host deferred", "host", l.Host, "until", deferred.Until, "reason", deferred.Reason)
			s := c.leaseSkip(l, skipDeferred, fmt.Sprintf("%s: the host may not be fetched before %s; tried again then",
				deferred.Reason, deferred.Until.UTC().Format(time.RFC3339)))
			s.Until, s.RobotsURL = deferred.Until.UTC(), rob.URL
			s.Delay = facts.delay
			return c.endLease(ctx, l, s, frontier.Outcome{Kind: frontier.Retry, NoAttempt: true, RetryAt: deferred.Until, HostReady: deferred.Until})
		}
		return nil // stopping: the lease is requeued at the next Open
	}
	if err := c.member.mayFetch(l.URL, false); err != nil {
		// The lease lapsed while the worker waited for the host's turn: no request.
		// The URL goes back to the frontier; leased again, it waits for the lease.
		next := c.politeness.Release(ticket, politeness.Observation{})
		return c.done(ctx, l, frontier.Outcome{Kind: frontier.Retry, NoAttempt: true, HostReady: next})
	}
	if !tdmKnown {
		// The host's first turn goes to its tdmrep.json; the page waits for the next.
		return c.fetchTDMRep(ctx, l, ticket)
	}
	mem := c.mem.claim() // the page's share of max_bytes_in_flight, until it is written
	defer mem.Done()
	req, last, err := c.pageRequest(l, mem)
	if err != nil {
		return fmtErr("looking up the last fetch of "+l.URL, err)
	}
	resp, ferr := c.client.Fetch(ctx, req)
	wait := c.politeness.ReleaseWait(ticket, c.observe(resp, ferr))
	next := wait.Until
	if ferr != nil {
		return c.fetchFailed(ctx, l, ferr, next)
	}
	defer resp.Release()
	c.countResponse(l, resp)
	var verdict optout.Verdict
	if c.optOutsOn() {
		// A signal only the response gives (a header, a meta element) drops it unstored.
		verdict = optout.Evaluate(c.signalsAfter(optSignals, resp))
		if s := c.optOutSkip(l, verdict); s != nil {
			return c.endLease(ctx, l, s, frontier.Outcome{Kind: frontier.Skipped, Reason: skipOptOut, HostReady: next})
		}
	}

	// Extraction comes first so that the page's metadata record goes into the WARC
	// with its response, in one write and one fsync.
	out := frontier.Outcome{Kind: frontier.Finished, HostReady: next}
	page := storage.Page{
		URL:         l.URL,
		FinalURL:    resp.FinalURL,
		Status:      resp.Status,
		ContentType: resp.Header.Get("Content-Type"),
		Length:      int64(len(resp.Body)),
		FetchedAt:   resp.Start.UTC(),
		Depth:       l.Depth,
		FoundOn:     l.FoundOn,
		// ContentSignal is shared with c.groupFor, which replaces maps, never
		// changes them.
		ContentSignal: signal,
		Truncated:     resp.Truncated || errors.Is(resp.DecodeError, fetch.ErrDecodeLimit),
		OptOut:        verdict.String(),
	}
	var (
		outlinks  []string
		languages []lang.Result   // of the main text, when storage.language is on
		skips     []*storage.Skip // written to skipped.jsonl before the lease is done
	)
	reqKind, _, isReq := requisiteOf(l.Kind)
	if isReq {
		page.Requisite = reqKind.String()
	}
	switch {
	case resp.Status >= 300 && resp.Status < 400 && resp.Location != "" && isReq:
		out.Requisites = c.requisiteRedirect(l, resp.Location, &skips)
		outlinks = []string{resp.Location}
	case resp.Status >= 300 && resp.Status < 400 && resp.Location != "":
		out.Links = c.redirect(l, resp.Location, &skips)
		outlinks = []string{resp.Location}
	case resp.Status == http.StatusTooManyRequests || resp.Status >= 500:
		// The scheduler has already pushed the host back (Retry-After or backoff).
		out = frontier.Outcome{Kind: frontier.Retry, RetryAt: next, HostReady: next, Error: true}
		if c.lastAttempt(l) {
			skips = append(skips, c.leaseSkip(l, skipFailed, fmt.Sprintf("HTTP %d on attempt %d of %d", resp.Status, l.Attempt, c.cfg.Fetch.MaxAttempts)))
		}
	case resp.Status >= 200 && resp.Status < 300:
		if l.Kind == kindSitemap {
			var hints map[string]recrawl.Hint
			out.Links, hints = c.sitemapLinks(l, resp, &skips)
			if err := c.saveHints(hints); err != nil {
				return fmtErr("recording the sitemap hints of "+l.URL, err)
			}
		} else {
			parsed, err := c.reserveParse(ctx, mem, resp)
			if err != nil {
				return nil // stopping: the lease is requeued at the next Open
			}
			var found *extract.Requisites
			out.Links, outlinks, languages, found = c.pageLinks(l, resp, &page, &skips)
			out.Requisites = c.requisites(l, resp, found, &page, &skips)
			parsed()
		}
	}
	page.Links = len(outlinks)

	ex := exchange(resp, "page")
	if isReq {
		ex.Kind = "requisite"
	}
	ex.Metadata = &storage.Metadata{
		TargetURI: l.URL,
		Date:      resp.Start,
		Timing:    timing(resp, wait),
		Outlinks:  outlinks,
		Robots:    provenance(rob, decision, signal),
		OptOut:    page.OptOut,
		Languages: storageLanguages(languages),
	}
	if c.cfg.Storage.TextRecords {
		ex.Text = page.Text
		ex.TextLanguages = iso6393(languages)
	}
	if c.cfg.Storage.WET && isHTMLPage(l, resp) {
		ex.Conversion = &storage.Conversion{Text: page.Text, Languages: iso6393(languages)}
	}
	if !c.cfg.Storage.Text {
		page.Text = ""
	}
	// The page's line is complete before its metadata record is built, which
	// carries it (storage.Exchange.Page): Finish fills in what depends on the
	// records. The records are written, not yet durable: writePage queues the
	// page's lines after them, and the frontier's commit of the Done makes both
	// durable first.
	ex.Page = &page
	var schedErr error
	ex.Finish = func(loc *storage.Location) error {
		page.PayloadDigest = loc.PayloadDigest
		if loc.Revisit && !isReq { // Summary.Revisits counts pages
			c.counters.revisits.Add(1)
		}
		if out.Refetch, schedErr = c.reschedule(l, out.Kind, resp, &page, loc, last); schedErr != nil {
			return schedErr
		}
		c.dedupChanged(&page, loc, last)
		return nil
	}
	if _, err := c.warc.Append(ctx, ex); err != nil {
		if schedErr != nil {
			return fmtErr("scheduling the refetch of "+l.URL, err)
		}
		return fmtErr("archiving "+l.URL, err)
	}
	if err := c.writePage(&page, skips); err != nil {
		return err
	}
	if err := c.done(ctx, l, out); err != nil {
		return err
	}
	// The digests and captures of the records, durable now, go into the WARC's
	// digest index with those of other pages (it may lag: it is rebuilt from the
	// WARC files).
	if err := c.commit.PersistIndex(); err != nil {
		return fmtErr("updating the digest index", err)
	}
	return nil
}

// firstSetAside reports whether host is set aside for the first time in this run.
func (c *Crawler) firstSetAside(host string) bool {
	c.setAsideMu.Lock()
	defer c.setAsideMu.Unlock()
	if c.setAside[host] {
		return false
	}
	c.setAside[host] = true
	return true
}

// pageRequest is the request for a leased URL. A sitemap may be as large as the
// sitemaps.org protocol allows (extract.DefaultSitemapMaxBytes uncompressed), whatever
// the limits for pages: cutting one would lose the URLs it lists. Its bytes still
// count against max_bytes_in_flight through mem.
//
// With recrawl on, a page or a page requisite is asked for with a conditional GET from
// the validators of its fetch before (see lastFetch.validators), and what is known of
// that fetch is returned for reschedule (nil for a sitemap, or with recrawl off). Without recrawl a
// page is fetched again only when its record was lost or its lease cut by a crash,
// and then it is fetched whole (with dedup_from, see dedupRequest).
func (c *Crawler) pageRequest(l *frontier.Lease, mem *memClaim) (*fetch.Request, *lastFetch, error) {
	req := &fetch.Request{URL: l.URL, Budget: mem}
	_, _, isReq := requisiteOf(l.Kind)
	if isReq {
		// A requisite has its own size limit (an image or a font may be larger than a
		// page).
		req.MaxBodySize = int64(c.cfg.Requisites.MaxBodySize)
		req.MaxDecodedSize = max(int64(c.cfg.Fetch.MaxDecodedSize), 2*int64(c.cfg.Requisites.MaxBodySize))
	}
	switch {
	case (l.Kind == kindPage || isReq) && c.cfg.Recrawl.Interval > 0:
		// A refetch, of a page or of a requisite (a 304 leaves what a stylesheet
		// names unread, but each of those is refetched on its own schedule).
		last, err := c.lastFetch(l)
		if err != nil {
			return req, nil, err
		}
		req.ETag, req.LastModified = last.validators()
		return req, last, nil
	case isReq:
		return req, nil, nil
	case l.Kind == kindSitemap:
		req.MaxBodySize = max(int64(c.cfg.Fetch.MaxBodySize), extract.DefaultSitemapMaxBytes)
		req.MaxDecodedSize = max(int64(c.cfg.Fetch.MaxDecodedSize), extract.DefaultSitemapMaxBytes)
	case l.Kind == kindPage && len(c.cfg.DedupFrom) > 0:
		return c.dedupRequest(req)
	}
	return req, nil, nil
}

// endLease records the skip s, when not nil, in skipped.jsonl and then finishes the lease
// with o: every way out of process before a response is archived goes through it.
func (c *Crawler) endLease(ctx context.Context, l *frontier.Lease, s *storage.Skip, o frontier.Outcome) error {
	if s != nil {
		if err := c.writeSkips(s); err != nil {
			return err
		}
	}
	return c.done(ctx, l, o)
}

// done finishes a lease, counting what the frontier accepted of its links.
func (c *Crawler) done(ctx context.Context, l *frontier.Lease, o frontier.Outcome) error {
	// In a cluster, links of other shards are handed to their owners, acknowledged
	// before the lease is done; stopping first leaves the lease to the next start.
	var err error
	if o.Links, err = c.handOff(ctx, o.Links); err != nil {
		return nil
	}
	if o.Requisites, err = c.handOff(ctx, o.Requisites); err != nil {
		return nil
	}
	c.refetchUnfinished(&o)
	if o.Kind == frontier.Skipped {
		c.counters.skip(o.Reason, 1)
	}
	start := time.Now()
	err = c.front.Done(ctx, l, o)
	c.counters.frontierWait.Add(int64(time.Since(start)))
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmtErr("finishing "+l.URL, err)
	}
	return nil
}

// fetchFailed turns a fetch error into the lease's outcome.
func (c *Crawler) fetchFailed(ctx context.Context, l *frontier.Lease, err error, next time.Time) error {
	if ctx.Err() != nil {
		return nil // stopping at once: the lease is requeued at the next Open
	}
	c.counters.errors.Add(1)
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		c.log.Warn("fetch failed", "url", l.URL, "err", err)
		return c.endLease(ctx, l, c.leaseSkip(l, skipFailed, err.Error()), frontier.Outcome{Kind: frontier.Failed, Reason: "fetch", HostReady: next, Error: true})
	}
	retry := fe.Temporary() && !c.lastAttempt(l)
	if !c.reportPermanent(l.URL, err) {
		c.log.Info("fetch failed", "url", l.URL, "phase", fe.Phase, "attempt", l.Attempt, "retry", retry, "err", err)
	}
	var out frontier.Outcome
	var s *storage.Skip
	switch {
	case fe.Phase == "policy":
		out = frontier.Outcome{Kind: frontier.Skipped, Reason: "policy", HostReady: next}
		s = c.leaseSkip(l, skipPolicy, err.Error())
	case fe.Temporary():
		out = frontier.Outcome{Kind: frontier.Retry, RetryAt: next, HostReady: next, Error: true}
		if !retry {
			s = c.leaseSkip(l, skipFailed, fmt.Sprintf("%v (attempt %d of %d)", err, l.Attempt, c.cfg.Fetch.MaxAttempts))
		}
	default:
		out = frontier.Outcome{Kind: frontier.Failed, Reason: fe.Phase, HostReady: next, Error: true}
		s = c.leaseSkip(l, skipFailed, err.Error())
	}
	return c.endLease(ctx, l, s, out)
}

func (c *Crawler) countResponse(l *frontier.Lease, resp *fetch.Response) {
	c.counters.fetched.Add(1)
	if _, _, ok := requisiteOf(l.Kind); ok {
		c.counters.requisites.Add(1)
	} else {
		c.counters.pages.Add(1)
	}
	c.counters.bytes.Add(int64(len(resp.RawBody)))
	c.counters.statusClass(resp.Status)
}
