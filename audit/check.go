package audit

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/politecrawl/crawl/politeness"
	"github.com/politecrawl/crawl/robots"
)

// endPrecision is the precision of politecrawl's response-end field, which is rounded
// up: the response ended at most this long before the time written.
const endPrecision = time.Millisecond

// version is one robots.txt result for an authority, in force from a time on.
type version struct {
	from   time.Time // when the crawler had it: the final hop's end, or start if unknown
	robots *robots.Robots
	ex     *exchange // the final hop, whose response record names the version
	first  *exchange // the request for /robots.txt that began it
}

// audit holds the state of one Report.
type audit struct {
	a        *Auditor
	set      Settings
	rep      *Report
	versions map[string][]*version // by authority, in order of from
	noEnd    int                   // gaps measured start to start
	noEndOv  int                   // exchanges whose overlaps could not be seen
	noRobots int                   // requests to hosts with no robots.txt ever fetched
	noDate   int
}

// Report checks everything read so far and returns the report.
func (a *Auditor) Report() *Report {
	x := &audit{a: a, versions: make(map[string][]*version)}
	x.set = a.settings()
	x.rep = &Report{Software: a.opts.Software, Settings: x.set, Files: a.files, Records: a.records,
		Counts: map[Kind]int{}, Violations: []*Violation{}, Undecided: []*Violation{}, Unchecked: []Unchecked{},
		Hosts: []*HostFigures{}, IPs: []*HostFigures{}}

	exs := make([]*exchange, 0, len(a.exchanges))
	for _, ex := range a.exchanges {
		if ex.start.IsZero() {
			x.noDate++
			continue
		}
		exs = append(exs, ex)
	}
	sort.SliceStable(exs, func(i, j int) bool {
		if !exs[i].start.Equal(exs[j].start) {
			return exs[i].start.Before(exs[j].start)
		}
		return exs[i].seq < exs[j].seq
	})
	x.rep.Exchanges = len(exs)
	x.robotsVersions(exs)

	byHost := map[string][]*exchange{}
	byIP := map[string][]*exchange{}
	var hosts, ips []string
	for _, ex := range exs {
		if _, ok := byHost[ex.host]; !ok {
			hosts = append(hosts, ex.host)
		}
		byHost[ex.host] = append(byHost[ex.host], ex)
		if ex.ip != "" {
			if _, ok := byIP[ex.ip]; !ok {
				ips = append(ips, ex.ip)
			}
			byIP[ex.ip] = append(byIP[ex.ip], ex)
		}
	}
	sort.Strings(hosts)
	sort.Strings(ips)
	for _, h := range hosts {
		fig := &HostFigures{Host: h}
		x.robotsChecks(fig, byHost[h])
		x.pacing(fig, "host", byHost[h], true)
		x.rep.Hosts = append(x.rep.Hosts, fig)
	}
	for _, ip := range ips {
		fig := &HostFigures{IP: ip}
		x.pacing(fig, "ip", byIP[ip], x.set.PerIP)
		x.rep.IPs = append(x.rep.IPs, fig)
	}
	x.unchecked()
	return x.rep
}

// settings resolves the options against the warcinfo record.
func (a *Auditor) settings() Settings {
	info := a.info
	s := Settings{CrawlSoftware: info["software"], CrawlUserAgent: info["user-agent"]}
	switch {
	case a.opts.Agent != "":
		s.Agent, s.AgentFrom = a.opts.Agent, "option"
	case info["user-agent"] != "":
		s.Agent, s.AgentFrom = robots.AgentToken(info["user-agent"]), "warcinfo"
	default:
		s.AgentFrom = "each request's User-Agent"
	}
	s.MinDelayFrom = "default"
	switch d, err := time.ParseDuration(info["min-delay"]); {
	case a.opts.MinDelay < 0:
		s.MinDelayFrom = "option"
	case a.opts.MinDelay > 0:
		s.MinDelay, s.MinDelayFrom = Millis(a.opts.MinDelay), "option"
	case err == nil && d >= 0:
		s.MinDelay, s.MinDelayFrom = Millis(d), "warcinfo"
	}
	s.PerHost, s.PerHostFrom = 1, "default"
	if a.opts.PerHost > 0 {
		s.PerHost, s.PerHostFrom = a.opts.PerHost, "option"
	} else if n, err := strconv.Atoi(info["per-host"]); err == nil && n > 0 {
		s.PerHost, s.PerHostFrom = n, "warcinfo"
	}
	s.Backoff, s.BackoffFrom = Millis(DefaultBackoff), "default"
	if a.opts.Backoff > 0 {
		s.Backoff, s.BackoffFrom = Millis(a.opts.Backoff), "option"
	} else if d, err := time.ParseDuration(info["backoff-min"]); err == nil && d > 0 {
		s.Backoff, s.BackoffFrom = Millis(d), "warcinfo"
	}
	s.PerIPFrom = "default"
	if a.opts.PerIP {
		s.PerIP, s.PerIPFrom = true, "option"
	} else if info["group-by-ip"] == "true" {
		s.PerIP, s.PerIPFrom = true, "warcinfo"
	}
	return s
}

// robotsVersions finds every robots.txt fetch, follows its redirects (up to five hops,
// as RFC 9309 §2.3.1.2 asks) and records the result in force for its authority. A hop
// is the first later fetch of the redirect's target.
func (x *audit) robotsVersions(exs []*exchange) {
	byURI := map[string][]*exchange{}
	for _, ex := range exs {
		byURI[ex.uri] = append(byURI[ex.uri], ex)
	}
	for _, ex := range exs {
		if !ex.robots {
			continue
		}
		final := ex
		for hops := 0; hops < 5 && final.status >= 300 && final.status < 400 && final.location != ""; hops++ {
			var next *exchange
			for _, t := range byURI[final.location] {
				if t != final && !t.start.Before(final.start) && (t.hopOf == "" || t.hopOf == ex.authority) {
					next = t
					break
				}
			}
			if next == nil {
				break // not followed: the result is the 3xx, which leaves the authority unreachable
			}
			if next.authority != ex.authority || next.target != "/robots.txt" {
				next.hopOf = ex.authority
			}
			final = next
		}
		from := final.end
		if from.IsZero() {
			from = final.start
		}
		v := &version{from: from, robots: robots.FromStatus(final.status, final.body), ex: final, first: ex}
		x.versions[ex.authority] = append(x.versions[ex.authority], v)
	}
	for _, vs := range x.versions {
		sort.SliceStable(vs, func(i, j int) bool { return vs[i].from.Before(vs[j].from) })
	}
}

// versionAt returns the robots.txt version in force for ex: the last one the crawler
// had by ex's start (at the same time, written before ex). before reports that none
// was: the first one is returned then (nil when the authority has none), to judge the
// request by what the site said.
func (x *audit) versionAt(ex *exchange) (v *version, before bool) {
	vs := x.versions[ex.authority]
	t := ex.start
	i := sort.Search(len(vs), func(i int) bool {
		return vs[i].from.After(t) || vs[i].from.Equal(t) && vs[i].ex.seq > ex.seq
	})
	if i == 0 {
		if len(vs) == 0 {
			return nil, true
		}
		return vs[0], true
	}
	return vs[i-1], false
}

// agent returns the product token robots.txt is evaluated for in ex.
func (x *audit) agent(ex *exchange) string {
	if x.set.Agent != "" {
		return x.set.Agent
	}
	return robots.AgentToken(ex.agent)
}

// robotsChecks checks one host's requests against robots.txt: fetched first, the path
// allowed, inside the Visit-time windows.
func (x *audit) robotsChecks(fig *HostFigures, exs []*exchange) {
	late := false
	for _, ex := range exs {
		fig.Requests++
		if ex.robots || ex.hopOf != "" {
			fig.RobotsFetches++
			x.rep.Robots++
			continue
		}
		v, before := x.versionAt(ex)
		if before && !late {
			late = true
			detail := "no robots.txt of " + ex.authority + " was ever fetched"
			recs := []*recordRef{ex.request()}
			if v != nil {
				detail = fmt.Sprintf("requested %v before robots.txt of %s was fetched", v.from.Sub(ex.start).Round(time.Millisecond), ex.authority)
				if !v.from.After(ex.start) {
					detail = fmt.Sprintf("requested before robots.txt of %s was fetched (the same date, written first)", ex.authority)
				}
				recs = append(recs, v.first.request())
			}
			x.violation(fig, &Violation{Kind: KindRobotsLate, Scope: "host", Host: ex.host, URL: ex.uri, Detail: detail, Records: recs})
		}
		if v == nil {
			x.noRobots++
			continue
		}
		agent := x.agent(ex)
		if d := v.robots.Match(agent, ex.uri); !d.Allowed {
			why := d.String()
			if v.robots.Unreachable() {
				why = fmt.Sprintf("robots.txt unreachable (status %d): everything disallowed", v.ex.status)
			}
			x.violation(fig, &Violation{Kind: KindDisallowed, Scope: "host", Host: ex.host, URL: ex.uri,
				Detail: fmt.Sprintf("disallowed for %q by %s", agent, why), Records: []*recordRef{ex.request(), v.ex.response()}})
		}
		if ws := v.robots.Group(agent).VisitTimes; len(ws) > 0 && !inWindows(ex.start, ws) && !inWindows(ex.start.Add(ex.startPrec-1), ws) {
			var names []string
			for _, w := range ws {
				names = append(names, w.String())
			}
			x.violation(fig, &Violation{Kind: KindVisitTime, Scope: "host", Host: ex.host, URL: ex.uri,
				Detail:  fmt.Sprintf("started at %s UTC, outside Visit-time %s", ex.start.UTC().Format("15:04:05"), strings.Join(names, ", ")),
				Records: []*recordRef{ex.request(), v.ex.response()}})
		}
	}
	fig.RobotsVersions = len(x.versions[exs[0].authority])
}

func inWindows(t time.Time, ws []robots.VisitTime) bool {
	for _, w := range ws {
		if w.Contains(t) {
			return true
		}
	}
	return false
}

// required returns the delay in force between prev's end and cur's start, what set
// it, and the kind of violation a shorter gap is.
func (x *audit) required(prev, cur *exchange) (time.Duration, string, Kind) {
	d, source, kind := time.Duration(x.set.MinDelay), "min-delay", KindGap
	if v, _ := x.versionAt(cur); v != nil {
		g := v.robots.Group(x.agent(cur))
		if g.CrawlDelay > d {
			d, source = g.CrawlDelay, "crawl-delay"
		}
		if i := g.RequestRate.Interval(); i > d {
			d, source = i, "request-rate"
		}
	}
	if prev.status == 429 || prev.status == 503 {
		from := prev.end
		if from.IsZero() {
			from = prev.start
		}
		if at, ok := politeness.ParseRetryAfter(prev.retry, from); ok {
			if w := at.Sub(from); w > d {
				d, source = w, "retry-after"
			}
		} else if b := time.Duration(x.set.Backoff); b > d {
			d, source, kind = b, "backoff", KindBackoff
		}
	}
	return d, source, kind
}

// pacing checks the gaps and overlaps between the requests of one host or one IP
// address (scope "host" or "ip"), in start order, and fills in fig. Violations are
// reported when report is set; otherwise only the figures are.
func (x *audit) pacing(fig *HostFigures, scope string, exs []*exchange, report bool) {
	perHost := x.set.PerHost
	if scope == "ip" {
		fig.Requests = len(exs)
	}
	var active []*exchange // in flight at the current start, as far as the records say
	for i, cur := range exs {
		// Overlaps: the requests whose recorded end is after cur's start.
		if cur.end.IsZero() {
			if scope == "host" {
				x.noEndOv++
			}
		}
		kept := active[:0]
		certain := 0
		var overlapped *exchange
		for _, p := range active {
			if p.end.After(cur.start) {
				kept = append(kept, p)
				if !p.end.Add(-endPrecision).Before(cur.start.Add(cur.startPrec)) {
					certain++
					overlapped = p
				}
			}
		}
		active = kept
		fig.MaxInFlight = max(fig.MaxInFlight, len(active)+1)
		if certain+1 > perHost && report {
			x.violation(fig, &Violation{Kind: KindOverlap, Scope: scope, Host: cur.host, IP: cur.ip, URL: cur.uri,
				Detail:  fmt.Sprintf("started while %d other requests were in flight (%d allowed at once), %v before %s ended", certain, perHost, overlapped.end.Sub(cur.start), overlapped.uri),
				Records: []*recordRef{cur.request(), overlapped.response()}})
		} else if len(active)+1 > perHost && report {
			x.undecided(&Violation{Kind: KindOverlap, Scope: scope, Host: cur.host, IP: cur.ip, URL: cur.uri,
				Detail: "may have started before an earlier response ended: the dates are too coarse to tell", Records: []*recordRef{cur.request(), active[len(active)-1].response()}})
		}
		if !cur.end.IsZero() {
			active = append(active, cur)
		}
		if i == 0 {
			continue
		}
		prev := exs[i-1]
		if perHost == 1 && !prev.end.IsZero() && prev.end.After(cur.start) {
			continue // an overlap, checked above
		}
		req, source, kind := x.required(prev, cur)
		var lo, hi time.Duration
		fromEnd := perHost == 1 && !prev.end.IsZero()
		switch {
		case fromEnd:
			lo = cur.start.Sub(prev.end)
			hi = lo + cur.startPrec + endPrecision
		default:
			s2s := cur.start.Sub(prev.start)
			lo, hi = s2s-prev.startPrec, s2s+cur.startPrec
		}
		fig.Gaps++
		if fromEnd || perHost > 1 {
			if fig.SmallestGap == nil || Millis(lo) < *fig.SmallestGap {
				m := Millis(lo)
				fig.SmallestGap = &m
			}
			if req > 0 {
				r := float64(lo) / float64(req)
				if fig.SmallestRatio == nil || r < *fig.SmallestRatio {
					fig.SmallestRatio = &r
				}
			}
		}
		if req <= 0 || !report {
			continue
		}
		what := "after the end of"
		if !fromEnd {
			what = "after the start of"
		}
		v := &Violation{Kind: kind, Scope: scope, Host: cur.host, IP: cur.ip, URL: cur.uri, Required: Millis(req), Source: source,
			Measured: Millis(max(lo, 0)), MeasuredMax: Millis(hi), Records: []*recordRef{cur.request(), prev.response()}}
		switch {
		case hi <= req:
			v.Detail = fmt.Sprintf("started at most %v %s %s (status %d); %s asks for %v", hi, what, prev.uri, prev.status, source, req)
			if prev.delaySource != "" {
				v.Detail += fmt.Sprintf(" (the crawler recorded a delay of %v, %s)", prev.delay, prev.delaySource)
			}
			x.violation(fig, v)
		case lo >= req && (fromEnd || perHost > 1):
			// Complies.
		case lo >= req:
			// Without the previous response's end, only a violation can be proven.
			if scope == "host" {
				x.noEnd++
			}
		default:
			fig.Undecided++
			v.Detail = fmt.Sprintf("started between %v and %v %s %s; %s asks for %v: the dates cannot tell", max(lo, 0), hi, what, prev.uri, source, req)
			if !fromEnd && perHost == 1 {
				v.Detail += " (no response end recorded)"
			}
			x.undecided(v)
		}
	}
}

func (x *audit) violation(fig *HostFigures, v *Violation) {
	fig.Violations++
	x.rep.Counts[v.Kind]++
	x.rep.Violations = append(x.rep.Violations, v)
}

func (x *audit) undecided(v *Violation) {
	x.rep.Undecided = append(x.rep.Undecided, v)
}

// unchecked lists what the records did not allow to check.
func (x *audit) unchecked() {
	add := func(check string, n int, why string) {
		if n > 0 {
			x.rep.Unchecked = append(x.rep.Unchecked, Unchecked{Check: check, Count: n, Why: why})
		}
	}
	add("gap", x.noEnd, "gaps without a recorded response end: each is known only to be shorter than the time between the two requests' starts, which proves violations, never compliance")
	add("overlap", x.noEndOv, "requests without a recorded response end: overlapping requests cannot be seen")
	add("robots", x.noRobots, "requests to hosts whose robots.txt is not in the records: their paths could not be checked")
	add("date", x.noDate, "exchanges without a readable WARC-Date")
	if n := len(x.rep.Undecided); n > 0 {
		coarse := 0
		for _, v := range x.rep.Undecided {
			if v.Kind != KindOverlap {
				coarse++
			}
		}
		add("precision", coarse, "gaps within the dates' precision of the delay in force (listed as undecided)")
		add("precision", n-coarse, "possible overlaps within the dates' precision (listed as undecided)")
	}
}

// request returns the record that says when ex started: its request record, or its
// response when it has none.
func (ex *exchange) request() *recordRef {
	if ex.req != nil {
		return ex.req
	}
	return ex.resp
}

// response returns ex's response (or revisit) record, or its request when it has none.
func (ex *exchange) response() *recordRef {
	if ex.resp != nil {
		return ex.resp
	}
	return ex.req
}
