package frontier

import (
	"cmp"
	"iter"
	"slices"
	"strings"
	"time"
)

// Stats is a snapshot of the frontier's figures. Counts of URLs are over the whole
// crawl, across runs, except Leased, Parked and Recovered, which are about this run.
type Stats struct {
	// Queued is the number of URLs waiting to be leased, on hosts not parked.
	Queued int64
	// Scheduled is the number of those Queued URLs that were given back for a later
	// time by Outcome.Refetch, whether or not that time has come.
	Scheduled int64
	// Staged is the number of links found by Done and not yet folded into the
	// queues (see Options.LinkBatch): not yet known to be new or duplicates.
	Staged int64
	// Leased is the number of URLs leased and not yet done. With ReadOnly it is the
	// number of leases the running crawl had recorded at its last commit.
	Leased int
	// Parked is the number of URLs set aside by Park; they are also in Skipped.
	Parked int64
	// Added is the number of URLs ever accepted; Duplicates the number of entries
	// refused because their URL was already seen.
	Added, Duplicates int64
	// Done is the number of URLs finished.
	Done int64
	// DoneUncounted counts, of Done, the URLs of Options.Uncounted kinds.
	DoneUncounted int64
	// Failed and Skipped count URLs by reason; Skipped includes the URLs of parked
	// hosts under their park reason.
	Failed, Skipped map[string]int64
	// Refused counts the entries Add refused, by reason (RefusedURL, RefusedDepth,
	// RefusedTotal, RefusedHostQueue).
	Refused map[string]int64
	// Hosts is the number of hosts ever seen. Of those with URLs waiting, HostsReady
	// may be leased now and HostsWaiting not yet; HostsParked are parked.
	Hosts, HostsReady, HostsWaiting, HostsParked int
	// Recovered is the number of leases of a dead process that Open requeued.
	Recovered int
	// SeenRuns is the number of sorted runs of the seen set (each URL looked up
	// probes each of them) and SeenLevel0 the number of URLs in its level 0, not yet
	// written out as a run (see The seen set in the package documentation).
	SeenRuns   int
	SeenLevel0 int64
}

// FailedTotal returns the number of failed URLs, all reasons together.
func (s Stats) FailedTotal() int64 { return sum(s.Failed) }

// SkippedTotal returns the number of skipped URLs, all reasons together, parked ones
// included.
func (s Stats) SkippedTotal() int64 { return sum(s.Skipped) }

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// HostStats are the figures of one host.
type HostStats struct {
	// Host is the authority, scheme://host[:port].
	Host string
	// Queued counts URLs waiting, leased ones excluded; Leased those leased now.
	Queued int64
	// Scheduled is the number of those Queued URLs given back for a later time by
	// Outcome.Refetch; NextDue is the earliest due time among the host's URLs with one
	// (leased ones included), zero if there is none.
	Scheduled int64
	NextDue   time.Time
	Leased    int
	// Done, Failed and Skipped count the host's URLs so far, across runs.
	Done, Failed, Skipped int64
	// ConsecutiveErrors counts outcomes with Error set since the last Finished one.
	ConsecutiveErrors int64
	// Ready is when the host may be leased next; zero means at once.
	Ready time.Time
	// Parked is the park reason, empty if the host is not parked.
	Parked string
}

// Stats returns a snapshot of the frontier's figures. It costs one pass over the
// hosts.
func (f *Frontier) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := Stats{
		Leased:        f.leased,
		Added:         f.counters[cAdded],
		Duplicates:    f.counters[cDuplicate],
		Done:          f.counters[cDone],
		DoneUncounted: f.counters[cDoneUnc],
		Staged:        f.counters[cStaged],
		Failed:        make(map[string]int64),
		Skipped:       make(map[string]int64),
		Refused:       make(map[string]int64),
		Hosts:         len(f.hosts),
		Recovered:     f.recovered,
	}
	s.SeenRuns, s.SeenLevel0 = f.seen.figures()
	if f.opts.ReadOnly {
		s.Leased = f.roLeases
	}
	for k, v := range f.counters {
		for _, c := range [...]struct {
			prefix string
			m      map[string]int64
		}{{pFailed, s.Failed}, {pSkipped, s.Skipped}, {pRefused, s.Refused}} {
			if name, ok := strings.CutPrefix(k, c.prefix); ok {
				c.m[name] += v
			}
		}
	}
	now := f.now().UnixNano()
	for _, h := range f.hosts {
		avail := h.available()
		switch {
		case h.parked:
			s.Parked += avail
			s.Skipped[f.parked[h.name]] += avail
			if avail > 0 {
				s.HostsParked++
			}
		case avail > 0:
			s.Queued += avail
			s.Scheduled += h.availableLater()
			if h.at <= now && !h.capped && len(h.leaseList()) < f.maxInFlight {
				s.HostsReady++
			} else {
				s.HostsWaiting++
			}
		}
	}
	return s
}

func (f *Frontier) hostStats(h *host) HostStats {
	return HostStats{
		Host:              h.name,
		Queued:            h.available(),
		Scheduled:         h.availableLater(),
		NextDue:           unixTime(h.rec.laterDue),
		Leased:            len(h.leaseList()),
		Done:              h.rec.done,
		Failed:            h.rec.failed,
		Skipped:           h.rec.skipped,
		ConsecutiveErrors: h.rec.errors,
		Ready:             unixTime(h.rec.ready),
		Parked:            f.parked[h.name],
	}
}

// HostStats returns the figures of host, and false if no URL of it was ever queued.
func (f *Frontier) HostStats(host string) (HostStats, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.hosts[host]
	if h == nil {
		return HostStats{}, false
	}
	return f.hostStats(h), true
}

// Hosts returns the figures of every host, sorted by authority, as of the call.
func (f *Frontier) Hosts() iter.Seq[HostStats] {
	f.mu.Lock()
	all := make([]HostStats, 0, len(f.hosts))
	for _, h := range f.hosts {
		all = append(all, f.hostStats(h))
	}
	f.mu.Unlock()
	slices.SortFunc(all, func(a, b HostStats) int { return cmp.Compare(a.Host, b.Host) })
	return slices.Values(all)
}

// unixTime is time.Unix(0, ns), or the zero Time for 0.
func unixTime(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}
