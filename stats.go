package crawl

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/politecrawl/crawl/frontier"
)

// counters are the crawl's running figures, updated by every worker.
type counters struct {
	fetched       atomic.Int64 // responses received (pages, robots.txt and sitemaps)
	pages         atomic.Int64 // page and sitemap responses received
	requisites    atomic.Int64 // page requisite responses received (stylesheets, images, ...)
	bytes         atomic.Int64 // body bytes received, as sent on the wire
	errors        atomic.Int64 // fetches that got no response (network, TLS, DNS, policy), robots.txt included
	warnings      atomic.Int64 // warnings and errors written to Stderr, or handed to OnPermanent
	robotsBlocked atomic.Int64 // URLs not fetched because robots.txt disallows them
	robotsFetched atomic.Int64 // robots.txt fetches
	revisits      atomic.Int64 // pages archived as revisit records (payload stored before, or 304)
	inFlight      atomic.Int64 // fetches in progress
	// frontierWait sums the time workers waited for the frontier's Done commit of a
	// lease, a page's one wait; storageWait the time those commits spent on the
	// storage round that makes the pages' records and lines durable first, once per
	// lease (Crawler.syncDones). Nanoseconds of the system clock.
	storageWait  atomic.Int64
	frontierWait atomic.Int64
	// statsPasses counts frontier.Stats calls (frontierStats): each is a pass over
	// the hosts holding the frontier's lock, which stops every Next and commit for
	// its length (about 10 ms at 100,000 hosts).
	statsPasses atomic.Int64

	mu      sync.Mutex
	status  map[string]int64 // responses by class: 2xx, 3xx, 4xx, 5xx
	skipped map[string]int64 // URLs not queued or not fetched, by reason
}

func newCounters() *counters {
	return &counters{status: map[string]int64{}, skipped: map[string]int64{}}
}

func (c *counters) statusClass(code int) {
	class := "other"
	if code >= 100 && code < 600 {
		class = fmt.Sprintf("%dxx", code/100)
	}
	c.mu.Lock()
	c.status[class]++
	c.mu.Unlock()
}

func (c *counters) skip(reason string, n int64) {
	if n == 0 {
		return
	}
	c.mu.Lock()
	c.skipped[reason] += n
	c.mu.Unlock()
}

// Summary is what a crawl did, for the final report.
type Summary struct {
	Pages         int64            `json:"pages"`          // page and sitemap responses received in this run
	Revisits      int64            `json:"revisits"`       // of Pages, those archived as revisit records: a payload stored before (dedup), or a 304
	Requisites    int64            `json:"requisites"`     // page requisite responses received in this run (stylesheets, images, fonts, ...)
	ByStatus      map[string]int64 `json:"by_status"`      // responses by status class ("2xx", "3xx", ...)
	Bytes         int64            `json:"bytes"`          // body bytes received
	Errors        int64            `json:"errors"`         // fetches (robots.txt included) that got no response: network, TLS, DNS, refused address
	RobotsBlocked int64            `json:"robots_blocked"` // URLs robots.txt disallowed
	RobotsFetched int64            `json:"robots_fetched"` // robots.txt fetches
	Skipped       map[string]int64 `json:"skipped"`        // URLs skipped by reason (scope, traps, limits, ...)
	Queued        int64            `json:"queued"`         // URLs still queued when the run ended (parked ones excluded)
	Staged        int64            `json:"staged"`         // links found and not yet sorted into the queues
	Parked        int64            `json:"parked"`         // URLs set aside for this run (robots.txt unreachable)
	Warnings      int64            `json:"warnings"`       // warnings and errors written to Stderr, or handed to OnPermanent
	Duration      time.Duration    `json:"duration_ns"`    // how long Run ran
	// FrontierWait is the time workers waited for the frontier's commit of a lease's
	// Done (its outcome and links), summed over the leases done: a page's one wait,
	// since that commit first makes the page's WARC records and lines durable.
	// StorageWait is the part of it the commits spent on that storage round (which
	// runs while the commit's transaction is written), counted once per lease in the
	// commit. Both are measured with the system clock; a concurrent wait counts once
	// per worker. Divided by Pages, the wait per page.
	StorageWait  time.Duration `json:"storage_wait_ns"`
	FrontierWait time.Duration `json:"frontier_wait_ns"`
	Complete     bool          `json:"complete"`      // the frontier is empty: nothing is left to fetch
	LimitReached bool          `json:"limit_reached"` // scope.max_pages pages are fetched and URLs remain queued
	// TimeLimitReached is true when scope.max_duration stopped the run with URLs still
	// queued: the next run goes on.
	TimeLimitReached bool `json:"time_limit_reached"`
	// WasComplete is true when the data directory already held a complete crawl as the
	// run began: nothing was queued, so a run with no new seeds fetches nothing.
	WasComplete bool   `json:"was_complete"`
	DataDir     string `json:"data_dir"` // where the results are
	// Started is false when Run failed before crawling (the data directory could not be
	// opened or was in use, a setup step failed): the other figures are then empty.
	Started bool `json:"started"`
	// Failed is true when an error stopped the crawl (Run returned it): running again
	// does not help until its cause is fixed.
	Failed bool `json:"failed"`
}

// ErrTimeLimit is the cause of the context that stops a run when scope.max_duration has
// passed; Run itself returns nil then, and Summary.TimeLimitReached says so.
var ErrTimeLimit = errors.New("the run's time limit (scope.max_duration) is reached")

// NothingFetched reports a run that fetched no page and met errors, such as one whose
// every seed failed (a refused address, a certificate error, a name that does not
// exist): the command then exits non-zero.
func (s Summary) NothingFetched() bool { return s.Started && s.Pages == 0 && s.Errors > 0 }

// String formats the summary as a few lines for people.
func (s Summary) String() string {
	var b strings.Builder
	state := "stopped before the end (run again to resume)"
	switch {
	case s.Failed:
		state = "stopped by an error"
	case s.NothingFetched() && s.Warnings > 0:
		state = "failed: no page fetched (the warnings above say why)"
	case s.NothingFetched():
		state = "failed: no page fetched (crawl.log says why: each failed fetch is logged there)"
	case s.Complete && s.Parked > 0:
		state = fmt.Sprintf("ended with %d URLs set aside (their hosts' robots.txt was unreachable: run again to try them)", s.Parked)
	case s.Complete:
		state = "complete"
	case s.LimitReached:
		state = fmt.Sprintf("stopped at max_pages with %d URLs queued (a larger scope.max_pages goes on)", s.Queued)
	case s.TimeLimitReached:
		state = fmt.Sprintf("stopped at its time limit with %d URLs queued (run again to go on)", s.Queued)
	}
	rate := 0.0
	if s.Duration > 0 {
		rate = float64(s.Pages) / s.Duration.Seconds()
	}
	fmt.Fprintf(&b, "crawl %s: %d pages in %s (%.1f pages/s), %s received\n",
		state, s.Pages, s.Duration.Round(time.Millisecond), rate, FormatBytes(s.Bytes))
	if s.Requisites > 0 {
		fmt.Fprintf(&b, "  requisites: %d fetched (stylesheets, images, fonts, scripts, frames the pages need)\n", s.Requisites)
	}
	fmt.Fprintf(&b, "  status:  %s\n", formatCounts(s.ByStatus))
	if s.Revisits > 0 {
		fmt.Fprintf(&b, "  revisits: %d of the pages archived as revisit records (unchanged since a capture already stored)\n", s.Revisits)
	}
	fmt.Fprintf(&b, "  robots:  %d robots.txt fetched, %d URLs disallowed\n", s.RobotsFetched, s.RobotsBlocked)
	fmt.Fprintf(&b, "  skipped: %s\n", formatCounts(s.Skipped))
	fmt.Fprintf(&b, "  errors:  %d failed fetches; %d URLs still queued, %d set aside until the next run\n", s.Errors, s.Queued, s.Parked)
	if s.Staged > 0 {
		fmt.Fprintf(&b, "  links:   %d found and not yet sorted into the queues (the next run does)\n", s.Staged)
	}
	fmt.Fprintf(&b, "  output:  %s", s.DataDir)
	return b.String()
}

func formatCounts(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// FormatBytes writes a byte count for people, in binary units: "512 B", "1.5 MiB".
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func copyCounts(mu *sync.Mutex, m map[string]int64) map[string]int64 {
	mu.Lock()
	defer mu.Unlock()
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Summary reports what the crawl has done so far; after Run returns, what it did.
func (c *Crawler) Summary() Summary { return c.summary(nil) }

// frontierStats returns the frontier's figures, counting the pass over its hosts.
func (c *Crawler) frontierStats() frontier.Stats {
	c.counters.statsPasses.Add(1)
	return c.front.Stats()
}

// summary is Summary with the frontier's figures taken from live when the crawl
// is running and live is not nil, so that a caller holding a snapshot does not
// pay for another pass over the hosts.
func (c *Crawler) summary(live *frontier.Stats) Summary {
	s := Summary{
		Pages:         c.counters.pages.Load(),
		Revisits:      c.counters.revisits.Load(),
		Requisites:    c.counters.requisites.Load(),
		ByStatus:      copyCounts(&c.counters.mu, c.counters.status),
		Bytes:         c.counters.bytes.Load(),
		Errors:        c.counters.errors.Load(),
		Warnings:      c.counters.warnings.Load(),
		RobotsBlocked: c.counters.robotsBlocked.Load(),
		RobotsFetched: c.counters.robotsFetched.Load(),
		Skipped:       copyCounts(&c.counters.mu, c.counters.skipped),
		DataDir:       c.cfg.DataDir,
		Started:       c.began.Load(),
		Failed:        c.failed.Load(),
		StorageWait:   time.Duration(c.counters.storageWait.Load()),
		FrontierWait:  time.Duration(c.counters.frontierWait.Load()),
	}
	switch {
	case c.started.IsZero():
	case c.ended.IsZero():
		s.Duration = c.now().Sub(c.started)
	default:
		s.Duration = c.ended.Sub(c.started)
	}
	st := c.finalStats.Load()
	if st == nil && c.front != nil && c.ended.IsZero() {
		if live == nil {
			now := c.frontierStats()
			live = &now
		}
		st = live
	}
	if st != nil {
		s.Queued, s.Parked, s.Staged = st.Queued, st.Parked, st.Staged
		s.Complete = st.Queued == 0 && st.Leased == 0 && st.Staged == 0
		s.LimitReached = !s.Complete && c.cfg.Scope.MaxPages > 0 && st.Done-st.DoneUncounted >= int64(c.cfg.Scope.MaxPages)
		s.TimeLimitReached = !s.Complete && c.timeLimit.Load()
	}
	s.WasComplete = c.wasComplete
	return s
}
