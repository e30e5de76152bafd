package crawltest

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Kind names what a violation breaks.
type Kind string

// The kinds of violation the auditors report.
const (
	// KindRobotsFirst: the first request to a host was not /robots.txt.
	KindRobotsFirst Kind = "robots-first"
	// KindDisallowed: a page marked Disallowed was fetched.
	KindDisallowed Kind = "disallowed"
	// KindUnreachable: something other than robots.txt was fetched from a
	// host whose robots.txt is unreachable (429, 5xx, out of the farm).
	KindUnreachable Kind = "robots-unreachable"
	// KindGap: two request starts on one host closer than its allowed gap.
	KindGap Kind = "gap"
	// KindOverlap: a request to a host started before an earlier one ended.
	KindOverlap Kind = "overlap"
	// KindNoFollow: a URL reachable only through nofollow was fetched.
	KindNoFollow Kind = "nofollow"
	// KindDuplicate: URLs fetched more than once, beyond MaxDuplicates.
	KindDuplicate Kind = "duplicate"
	// KindCoverage: coverage below AuditOptions.MinCoverage.
	KindCoverage Kind = "coverage"
	// KindUserAgent: a User-Agent without the audited product token.
	KindUserAgent Kind = "user-agent"
	// KindUnknownHost: a request for a host the farm does not serve.
	KindUnknownHost Kind = "unknown-host"
	// KindIcon: a host icon of [Farm.ExpectedIcons] not fetched, when
	// AuditOptions.Icons is set.
	KindIcon Kind = "icon"
)

// AuditOptions says what the audited crawler was asked to do. The zero value
// checks everything but the User-Agent and coverage, with no minimum delay
// and no tolerance.
type AuditOptions struct {
	// Agent is the product token the crawler sends, such as "politecrawl";
	// every User-Agent must start with it (case-insensitively). "" skips the
	// check.
	Agent string

	// MinDelay is the crawler's own minimum delay per host (min_delay); a
	// host's allowed gap is max(Site.Delay, MinDelay).
	MinDelay time.Duration

	// Tolerance is subtracted from every allowed gap and overlap bound, for
	// clock granularity; 1ms is ample on loopback. Zero compares exactly.
	Tolerance time.Duration

	// MaxDuplicates is how many repeated fetches (beyond the first of each
	// URL, robots.txt excluded) are allowed, such as the workers in flight
	// at a kill. Zero allows none.
	MaxDuplicates int

	// MinCoverage, when above zero, makes a coverage below it a violation.
	MinCoverage float64

	// Icons says the crawler fetches host icons as a browser does (a
	// browser-like archive crawler): every URL of [Farm.ExpectedIcons] it did
	// not fetch is then a violation, and IdealTime counts them. Whatever it
	// says, a host icon fetched is neither a page nor unexpected (Report.Icons
	// counts them), and is held to every other check like any request.
	Icons bool
}

// Violation is one breach of politeness or correctness in a record.
type Violation struct {
	Kind   Kind
	Host   string
	Path   string // request target, "" when the violation is not about one request
	Detail string
}

// String formats the violation on one line.
func (v Violation) String() string {
	s := string(v.Kind)
	if v.Host != "" || v.Path != "" {
		s += " " + v.Host + v.Path
	}
	if v.Detail != "" {
		s += ": " + v.Detail
	}
	return s
}

// Report is the result of an audit.
type Report struct {
	// Violations in the order found: by host, then by request start.
	Violations []Violation

	// Coverage is the fraction of [Farm.Expected] fetched at least once (1
	// when nothing is expected). Missing lists the rest, sorted.
	Coverage float64
	Missing  []string

	// Unexpected lists URLs fetched that are neither expected, host icons nor
	// robots.txt (such as pages found only through 404 bodies), sorted. They
	// are not violations by themselves.
	Unexpected []string

	// Icons counts the requests for host icons ([Farm.ExpectedIcons]);
	// MissingIcons lists those not fetched, sorted.
	Icons        int
	MissingIcons []string

	// Duplicates counts repeated fetches: for every URL other than
	// robots.txt and its redirect targets (host icons included), its fetches
	// minus one.
	Duplicates int

	// Requests counts every request recorded; RobotsRequests those for
	// robots.txt and its redirect targets.
	Requests, RobotsRequests int

	// SmallestGapRatio is the smallest observed start-to-start gap divided
	// by the allowed gap, over all hosts with a nonzero allowed gap; 0 when
	// no host had two such requests. Below 1 (beyond Tolerance) is a gap
	// violation.
	SmallestGapRatio float64

	// IdealTime is the least time a perfectly polite crawler needs: over
	// all hosts, the largest (expected requests - 1) × allowed gap, counting
	// robots.txt, and host icons with AuditOptions.Icons. ActualTime is from the first request's start to the last
	// one's start.
	IdealTime, ActualTime time.Duration
}

// Efficiency returns IdealTime / ActualTime, the politeness efficiency (1
// is a crawler that keeps its slowest host exactly at its allowed pace); 0
// when ActualTime is zero.
func (r *Report) Efficiency() float64 {
	if r.ActualTime <= 0 {
		return 0
	}
	return float64(r.IdealTime) / float64(r.ActualTime)
}

// Err returns nil when the report has no violation and an *AuditError
// otherwise.
func (r *Report) Err() error {
	if len(r.Violations) == 0 {
		return nil
	}
	return &AuditError{Violations: r.Violations}
}

// AuditError is the error of a report with violations.
type AuditError struct {
	Violations []Violation
}

// Error lists the first violations.
func (e *AuditError) Error() string {
	const show = 5
	var b strings.Builder
	fmt.Fprintf(&b, "crawltest: %d violation(s)", len(e.Violations))
	for i, v := range e.Violations {
		if i == show {
			fmt.Fprintf(&b, "; and %d more", len(e.Violations)-show)
			break
		}
		b.WriteString("; ")
		b.WriteString(v.String())
	}
	return b.String()
}

// Audit checks the farm's record against its description; see
// [AuditRequests].
func Audit(f *Farm, opts AuditOptions) *Report {
	return AuditRequests(f, f.Requests(), opts)
}

// AuditRequests checks a record of requests to f (such as the union of
// several runs) against f's description:
//
//   - robots-first: on every host the first request (by start) is
//     /robots.txt;
//   - disallowed: no page marked Disallowed is fetched;
//   - robots-unreachable: nothing but /robots.txt is fetched from a host
//     whose robots.txt is unreachable;
//   - gap: on every host each request starts at least the allowed gap
//     (max(Site.Delay, MinDelay)) minus Tolerance after the previous
//     request's start. The times are the server's: when its handler began.
//     A crawler that counts its delay from the end of the previous response
//     passes too, its starts being further apart;
//   - overlap: on every host no request starts (plus Tolerance) before an
//     earlier request's handler ended: one request in flight at a time;
//   - nofollow: nothing in [Farm.NoFollowOnly] is fetched;
//   - duplicate: the repeated fetches number at most MaxDuplicates;
//   - coverage, user-agent, unknown-host, icon: see [Kind].
//
// Requests for robots.txt and for host icons count for robots-first, gap
// and overlap; host icons for disallowed, robots-unreachable and duplicate
// too.
// Requests for another host's robots.txt redirect target are robots
// fetches of that other host: they count for none of the per-host checks.
func AuditRequests(f *Farm, reqs []Request, opts AuditOptions) *Report {
	e := f.expectation()
	sorted := make([]Request, len(reqs))
	copy(sorted, reqs)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start.Before(sorted[j].Start) })

	rep := &Report{Requests: len(sorted)}
	byHost := make(map[string][]Request)
	var hostOrder []string
	badAgents := make(map[string]bool)
	for _, r := range sorted {
		if opts.Agent != "" && !hasAgent(r.UserAgent, opts.Agent) && !badAgents[r.UserAgent] {
			badAgents[r.UserAgent] = true
			rep.Violations = append(rep.Violations, Violation{Kind: KindUserAgent, Host: r.Host, Path: r.Path,
				Detail: fmt.Sprintf("User-Agent %q lacks product token %q", r.UserAgent, opts.Agent)})
		}
		if f.hosts[r.Host] == nil {
			rep.Violations = append(rep.Violations, Violation{Kind: KindUnknownHost, Host: r.Host, Path: r.Path})
			continue
		}
		if _, ok := byHost[r.Host]; !ok {
			hostOrder = append(hostOrder, r.Host)
		}
		byHost[r.Host] = append(byHost[r.Host], r)
	}

	fetched := make(map[string]int)
	var first, last time.Time
	minRatio := -1.0
	for _, h := range hostOrder {
		s := f.hosts[h]
		allowed := max(s.Delay, opts.MinDelay)
		var prev *Request
		var maxEnd time.Time
		checkedFirst, robotsSeen := false, false
		for i := range byHost[h] {
			r := &byHost[h][i]
			u := r.URL()
			isRobots := r.Path == "/robots.txt"
			if e.exempt[u] {
				robotsSeen = robotsSeen || isRobots
				rep.RobotsRequests++
				continue
			}
			if first.IsZero() || r.Start.Before(first) {
				first = r.Start
			}
			if r.Start.After(last) {
				last = r.Start
			}
			if !checkedFirst {
				checkedFirst = true
				if !isRobots && !robotsSeen {
					rep.Violations = append(rep.Violations, Violation{Kind: KindRobotsFirst, Host: h, Path: r.Path,
						Detail: "first request to the host"})
				}
			}
			if isRobots {
				rep.RobotsRequests++
			} else {
				fetched[u]++
				if e.icons[u] {
					rep.Icons++
				}
				if e.state[h] == robotsUnreachable {
					rep.Violations = append(rep.Violations, Violation{Kind: KindUnreachable, Host: h, Path: r.Path})
				}
				if p := s.pages[normPath(r.Path)]; p != nil && p.Disallowed {
					rep.Violations = append(rep.Violations, Violation{Kind: KindDisallowed, Host: h, Path: r.Path})
				}
				if e.nofollowOnly[u] {
					rep.Violations = append(rep.Violations, Violation{Kind: KindNoFollow, Host: h, Path: r.Path})
				}
			}
			if prev != nil {
				gap := r.Start.Sub(prev.Start)
				if allowed > 0 {
					if ratio := float64(gap) / float64(allowed); minRatio < 0 || ratio < minRatio {
						minRatio = ratio
					}
					if gap+opts.Tolerance < allowed {
						rep.Violations = append(rep.Violations, Violation{Kind: KindGap, Host: h, Path: r.Path,
							Detail: fmt.Sprintf("started %v after %s, allowed gap %v", gap, prev.Path, allowed)})
					}
				}
				if r.Start.Add(opts.Tolerance).Before(maxEnd) {
					rep.Violations = append(rep.Violations, Violation{Kind: KindOverlap, Host: h, Path: r.Path,
						Detail: fmt.Sprintf("started %v before an earlier request ended", maxEnd.Sub(r.Start))})
				}
			}
			prev = r
			if r.End.After(maxEnd) {
				maxEnd = r.End
			}
		}
	}
	if minRatio > 0 {
		rep.SmallestGapRatio = minRatio
	}
	if !first.IsZero() {
		rep.ActualTime = last.Sub(first)
	}

	// Duplicates, in URL order so the report is deterministic.
	urls := make([]string, 0, len(fetched))
	for u, n := range fetched {
		rep.Duplicates += n - 1
		urls = append(urls, u)
	}
	sort.Strings(urls)
	if rep.Duplicates > opts.MaxDuplicates {
		for _, u := range urls {
			if n := fetched[u]; n > 1 {
				h, p := splitKey(u)
				rep.Violations = append(rep.Violations, Violation{Kind: KindDuplicate, Host: h, Path: p,
					Detail: fmt.Sprintf("fetched %d times (%d repeated fetches in all, %d allowed)", n, rep.Duplicates, opts.MaxDuplicates)})
			}
		}
	}
	for _, u := range urls {
		if !e.pages[u] && !e.icons[u] {
			rep.Unexpected = append(rep.Unexpected, u)
		}
	}

	// Coverage.
	got := 0
	for u := range e.pages {
		if fetched[u] > 0 {
			got++
		} else {
			rep.Missing = append(rep.Missing, u)
		}
	}
	sort.Strings(rep.Missing)
	rep.Coverage = 1
	if len(e.pages) > 0 {
		rep.Coverage = float64(got) / float64(len(e.pages))
	}
	if opts.MinCoverage > 0 && rep.Coverage < opts.MinCoverage {
		rep.Violations = append(rep.Violations, Violation{Kind: KindCoverage,
			Detail: fmt.Sprintf("coverage %.4f below %.4f: %d of %d expected URLs missing", rep.Coverage, opts.MinCoverage, len(rep.Missing), len(e.pages))})
	}

	// Host icons.
	for u := range e.icons {
		if fetched[u] == 0 {
			rep.MissingIcons = append(rep.MissingIcons, u)
		}
	}
	sort.Strings(rep.MissingIcons)
	if opts.Icons {
		for _, u := range rep.MissingIcons {
			h, p := splitKey(u)
			rep.Violations = append(rep.Violations, Violation{Kind: KindIcon, Host: h, Path: p, Detail: "host icon not fetched"})
		}
	}

	// Ideal time.
	icons := make(map[string]int)
	if opts.Icons {
		for u := range e.icons {
			h, _ := splitKey(u)
			icons[h]++
		}
	}
	for _, s := range f.sites {
		if n := e.perHost[s.host] + icons[s.host]; n > 1 {
			rep.IdealTime = max(rep.IdealTime, time.Duration(n-1)*max(s.Delay, opts.MinDelay))
		}
	}
	return rep
}

// hasAgent reports whether the User-Agent's leading product token is agent.
func hasAgent(ua, agent string) bool {
	tok := ua
	if i := strings.IndexAny(tok, "/ ;("); i >= 0 {
		tok = tok[:i]
	}
	return strings.EqualFold(tok, agent)
}

// splitKey splits a canonical URL into host and path.
func splitKey(u string) (host, path string) {
	rest := strings.TrimPrefix(u, "http://")
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return rest, "/"
	}
	return rest[:i], rest[i:]
}
