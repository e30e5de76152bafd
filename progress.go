package crawl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/politecrawl/crawl/frontier"
)

// Progress is a snapshot of a running crawl.
type Progress struct {
	Elapsed     time.Duration // since Run started
	Pages       int64         // page and sitemap responses so far
	PagesPerSec float64       // over the last interval
	Queued      int64         // URLs waiting in the frontier
	Staged      int64         // links found and not yet sorted into the queues (frontier.link_batch)
	InFlight    int64         // fetches in progress
	HostsActive int           // hosts with queued URLs whose ready time has come
	HostsWait   int           // hosts with queued URLs waiting for their ready time
	Errors      int64         // network errors
	Bytes       int64         // body bytes received
}

func (p Progress) String() string {
	return fmt.Sprintf("%s elapsed, %d pages, %.1f pages/s, %d queued, %d links to sort in, %d in flight, hosts %d ready / %d waiting, %d errors, %s",
		formatElapsed(p.Elapsed), p.Pages, p.PagesPerSec, p.Queued, p.Staged, p.InFlight, p.HostsActive, p.HostsWait, p.Errors, FormatBytes(p.Bytes))
}

// Line formats the snapshot for a live terminal line of at most width-1 columns (so
// that the cursor never wraps): the elapsed time, pages and rate first, then as many
// of the other figures as fit (queued, in flight, errors, bytes, hosts), large numbers
// shortened (12.3k, 4.5M).
func (p Progress) Line(width int) string {
	fields := []string{
		formatElapsed(p.Elapsed),
		compact(p.Pages) + " pages",
		fmt.Sprintf("%s/s", compactRate(p.PagesPerSec)),
		"queued " + compact(p.Queued),
		"in flight " + compact(p.InFlight),
		"errors " + compact(p.Errors),
		FormatBytes(p.Bytes),
		"hosts " + compact(int64(p.HostsActive)) + " ready " + compact(int64(p.HostsWait)) + " waiting",
	}
	var b strings.Builder
	for i, f := range fields {
		sep := ""
		if i > 0 {
			sep = "  "
		}
		if utf8.RuneCountInString(b.String())+len(sep)+utf8.RuneCountInString(f) > width-1 {
			break
		}
		b.WriteString(sep)
		b.WriteString(f)
	}
	return b.String()
}

// formatElapsed writes d to the second, in at most 8 characters: 42s, 12m05s,
// 3h04m05s, 12d03h.
func formatElapsed(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, sec := int64(d/time.Hour), int64(d/time.Minute)%60, int64(d/time.Second)%60
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", sec)
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", m, sec)
	case h < 100:
		return fmt.Sprintf("%dh%02dm%02ds", h, m, sec)
	default:
		return fmt.Sprintf("%dd%02dh", min(h/24, 99999), h%24)
	}
}

// compact writes n in at most 6 characters: 9999, 12.3k, 123k, 4.5M, 12G.
func compact(n int64) string {
	f := float64(n)
	switch {
	case n < 10000 && n > -10000:
		return strconv.FormatInt(n, 10)
	case f < 1e5:
		return fmt.Sprintf("%.1fk", f/1e3)
	case f < 1e6:
		return fmt.Sprintf("%.0fk", f/1e3)
	case f < 1e8:
		return fmt.Sprintf("%.1fM", f/1e6)
	case f < 1e9:
		return fmt.Sprintf("%.0fM", f/1e6)
	case f < 1e11:
		return fmt.Sprintf("%.1fG", f/1e9)
	default:
		return fmt.Sprintf("%.0fG", min(f/1e9, 999999))
	}
}

// compactRate writes a rate in pages per second: 0.4, 12.3, 1234, 12.3k.
func compactRate(r float64) string {
	if r < 100 {
		return fmt.Sprintf("%.1f", max(r, 0))
	}
	return compact(int64(r))
}

// Progress returns a snapshot of the crawl: the zero Progress before Run has begun
// crawling, the final figures once its workers have stopped. PagesPerSec is the
// average since Run began; a caller showing the rate over its own interval computes
// it from Pages. It may be called from any goroutine while Run runs, and costs one
// pass over the frontier's hosts.
func (c *Crawler) Progress() Progress {
	if !c.began.Load() {
		return Progress{}
	}
	var p Progress
	if st := c.finalStats.Load(); st != nil {
		p = c.progressOf(st, 0, 0)
	} else {
		st := c.frontierStats()
		p = c.progressOf(&st, 0, 0)
	}
	if p.Elapsed > 0 {
		p.PagesPerSec = float64(p.Pages) / p.Elapsed.Seconds()
	}
	return p
}

// progressOf is progress from a snapshot of the frontier's figures.
func (c *Crawler) progressOf(st *frontier.Stats, lastPages int64, since time.Duration) Progress {
	p := Progress{
		Elapsed:     c.now().Sub(c.started),
		Pages:       c.counters.pages.Load(),
		Queued:      st.Queued,
		Staged:      st.Staged,
		InFlight:    c.counters.inFlight.Load(),
		HostsActive: st.HostsReady,
		HostsWait:   st.HostsWaiting,
		Errors:      c.counters.errors.Load(),
		Bytes:       c.counters.bytes.Load(),
	}
	if since > 0 {
		p.PagesPerSec = float64(p.Pages-lastPages) / since.Seconds()
	}
	return p
}

// statusEvery is StatusEvery, or DefaultStatusEvery when it is not positive.
func (c *Crawler) statusEvery() time.Duration {
	if c.StatusEvery <= 0 {
		return DefaultStatusEvery
	}
	return c.StatusEvery
}

// reportProgress logs a progress record in crawl.log every ProgressEvery, when it is
// positive, and rewrites the status file every StatusEvery, until ctx ends.
func (c *Crawler) reportProgress(ctx context.Context) {
	var tick <-chan time.Time
	if c.ProgressEvery > 0 {
		t := time.NewTicker(c.ProgressEvery)
		defer t.Stop()
		tick = t.C
	}
	st := time.NewTicker(c.statusEvery())
	defer st.Stop()
	var last, statusLast int64
	lastAt, statusAt := time.Now(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-st.C:
			statusLast = c.statusTick(statusLast, now.Sub(statusAt))
			statusAt = now
		case now := <-tick:
			fs := c.frontierStats()
			p := c.progressOf(&fs, last, now.Sub(lastAt))
			last, lastAt = p.Pages, now
			c.log.Info("progress", "elapsed", p.Elapsed.Round(time.Second).String(), "pages", p.Pages,
				"pages_per_sec", fmt.Sprintf("%.1f", p.PagesPerSec),
				"queued", p.Queued, "staged", p.Staged, "in_flight", p.InFlight, "hosts_ready", p.HostsActive,
				"hosts_waiting", p.HostsWait, "errors", p.Errors, "bytes", p.Bytes)
		}
	}
}

// statusTick rewrites the status file of a running crawl, its rate over since
// from lastPages, and returns the pages now. It takes one snapshot of the
// frontier's figures for the rate and the file (see counters.statsPasses).
func (c *Crawler) statusTick(lastPages int64, since time.Duration) int64 {
	fs := c.frontierStats()
	p := c.progressOf(&fs, lastPages, since)
	if err := c.writeStatusOf(StateRunning, p.PagesPerSec, nil, &fs); err != nil {
		c.log.Warn("status file not written", "err", err)
	}
	return p.Pages
}
