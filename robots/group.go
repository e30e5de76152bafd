package robots

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Group is the merged view of every group of a robots.txt file that applies to one
// agent (RFC 9309 §2.2.1), with the non-standard records that slow a crawler down. The
// zero value means no group applies: no rules, no delay, no windows.
type Group struct {
	// Agents lists the user-agent values of the merged groups as written.
	Agents []string
	// Rules lists the allow and disallow rules of the merged groups in file order.
	Rules []Rule
	// CrawlDelay is the Crawl-delay asked for: the time to wait between two requests.
	// When several groups or lines give one, the longest wins. 0 means none.
	CrawlDelay time.Duration
	// RequestRate is the Request-rate asked for; when several are given the slowest
	// wins. The zero Rate means none.
	RequestRate Rate
	// VisitTimes lists the Visit-time windows in UTC. Empty means any time.
	VisitTimes []VisitTime
	// ContentSignal holds the Content-Signal preferences, such as "ai-train" → "no",
	// keys and values lower-case. When a key repeats, its first value wins. Nil means
	// none.
	ContentSignal map[string]string
}

// Rate is a Request-rate: at most Requests requests every Per. The zero value means no
// rate was given.
type Rate struct {
	Requests int
	Per      time.Duration
}

// IsZero reports whether r is the zero Rate (no Request-rate).
func (r Rate) IsZero() bool { return r.Requests == 0 || r.Per == 0 }

// Interval returns the time a crawler should leave between requests to honour r:
// Per / Requests. It returns 0 for the zero Rate.
func (r Rate) Interval() time.Duration {
	if r.IsZero() {
		return 0
	}
	return r.Per / time.Duration(r.Requests)
}

// String formats r as it appears in robots.txt, such as "1/5s"; "" for the zero Rate.
func (r Rate) String() string {
	if r.IsZero() {
		return ""
	}
	return strconv.Itoa(r.Requests) + "/" + r.Per.String()
}

// VisitTime is a Visit-time window, in minutes after midnight UTC: visits may start at
// Start and must end before End. End < Start means the window wraps past midnight;
// Start == End means the whole day.
type VisitTime struct {
	Start, End int
}

// Contains reports whether t (in any time zone) falls inside the window.
func (v VisitTime) Contains(t time.Time) bool {
	t = t.UTC()
	m := t.Hour()*60 + t.Minute()
	switch {
	case v.Start == v.End:
		return true
	case v.Start < v.End:
		return v.Start <= m && m < v.End
	default:
		return m >= v.Start || m < v.End
	}
}

// String formats v as in robots.txt: "HHMM-HHMM".
func (v VisitTime) String() string {
	return hhmm(v.Start) + "-" + hhmm(v.End)
}

func hhmm(m int) string {
	b := []byte{byte('0' + m/600), byte('0' + m/60%10), byte('0' + m%60/10), byte('0' + m%10)}
	return string(b)
}

// parseRate reads a Request-rate value "n/m" where m may carry a unit: s (default), m
// or h, such as "1/5", "1/10s", "30/1m". A time window may follow and is ignored.
func parseRate(v string) (Rate, bool) {
	if i := strings.IndexAny(v, " \t"); i >= 0 {
		v = v[:i]
	}
	n, per, ok := strings.Cut(v, "/")
	if !ok {
		return Rate{}, false
	}
	req, err := strconv.Atoi(n)
	if err != nil || req <= 0 || req > 1e6 {
		return Rate{}, false
	}
	unit := time.Second
	if per != "" {
		switch per[len(per)-1] {
		case 's', 'S':
			per = per[:len(per)-1]
		case 'm', 'M':
			unit, per = time.Minute, per[:len(per)-1]
		case 'h', 'H':
			unit, per = time.Hour, per[:len(per)-1]
		}
	}
	if per == "" {
		per = "1"
	}
	num, err := strconv.Atoi(per)
	if err != nil || num <= 0 {
		return Rate{}, false
	}
	d := time.Duration(num) * unit
	if num > int(maxDelay/unit) {
		d = maxDelay
	}
	return Rate{Requests: req, Per: d}, true
}

// parseVisitTime reads "HHMM-HHMM" (UTC); "HH:MM-HH:MM" is also accepted.
func parseVisitTime(v string) (VisitTime, bool) {
	a, b, ok := strings.Cut(strings.ReplaceAll(v, " ", ""), "-")
	if !ok {
		return VisitTime{}, false
	}
	s, ok1 := parseHHMM(a)
	e, ok2 := parseHHMM(b)
	if !ok1 || !ok2 {
		return VisitTime{}, false
	}
	return VisitTime{Start: s, End: e}, true
}

func parseHHMM(s string) (int, bool) {
	s = strings.Replace(s, ":", "", 1)
	if len(s) != 4 {
		return 0, false
	}
	for i := 0; i < 4; i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	h := int(s[0]-'0')*10 + int(s[1]-'0')
	m := int(s[2]-'0')*10 + int(s[3]-'0')
	if h > 24 || m > 59 || h == 24 && m != 0 {
		return 0, false
	}
	return (h*60 + m) % (24 * 60), true
}

// parseSignal reads a Content-Signal value: comma-separated key=value pairs, such as
// "ai-train=no, search=yes". Pairs without "=" or with an empty key are skipped.
func parseSignal(v string) [][2]string {
	var out [][2]string
	for part := range strings.SplitSeq(v, ",") {
		k, val, ok := strings.Cut(part, "=")
		k, val = strings.ToLower(trimSpace(k)), strings.ToLower(trimSpace(val))
		if !ok || k == "" || val == "" {
			continue
		}
		out = append(out, [2]string{k, val})
	}
	return out
}

// Group returns the merged view of the groups that apply to agent, a product token or a
// whole User-Agent value (see AgentToken). It returns the zero Group when none applies.
// The Group is a copy the caller owns.
func (r *Robots) Group(agent string) Group {
	var out Group
	for _, i := range r.groupsFor(agent) {
		g := &r.groups[i]
		out.Agents = append(out.Agents, g.agents...)
		for j := range g.rules {
			out.Rules = append(out.Rules, g.rules[j].Rule)
		}
		out.CrawlDelay = max(out.CrawlDelay, g.crawlDelay)
		if !g.rate.IsZero() && (out.RequestRate.IsZero() || g.rate.Interval() > out.RequestRate.Interval()) {
			out.RequestRate = g.rate
		}
		out.VisitTimes = append(out.VisitTimes, g.visit...)
		if len(g.signal) > 0 && out.ContentSignal == nil {
			out.ContentSignal = make(map[string]string)
		}
		for k, v := range g.signal {
			if _, dup := out.ContentSignal[k]; !dup {
				out.ContentSignal[k] = v
			}
		}
	}
	slices.SortStableFunc(out.Rules, func(a, b Rule) int { return a.Line - b.Line })
	return out
}

// Sitemaps returns the absolute URLs of the file's Sitemap lines, in file order. The
// slice is a copy.
func (r *Robots) Sitemaps() []string { return slices.Clone(r.sitemaps) }

// Records returns the lines this package does not interpret, in file order: unknown
// keys, and known ones whose value it could not use or that came before any group. The
// slice is a copy.
func (r *Robots) Records() []Record { return slices.Clone(r.records) }

// Agents returns the distinct lower-case product tokens that have a group of their own,
// sorted; "*" groups are not included.
func (r *Robots) Agents() []string {
	return slices.Sorted(maps.Keys(r.byAgent))
}
