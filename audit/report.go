package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/politecrawl/crawl/storage"
)

// Kind names what a violation breaks.
type Kind string

// The kinds of violation an audit reports.
const (
	// KindRobotsLate: a request to a host before its robots.txt was fetched.
	KindRobotsLate Kind = "robots-late"
	// KindDisallowed: a fetch the robots.txt in force disallowed (or, unreachable,
	// disallowed everything).
	KindDisallowed Kind = "disallowed"
	// KindGap: a request sooner after the previous response's end than the delay in
	// force (min delay, Crawl-delay, Request-rate or Retry-After).
	KindGap Kind = "gap"
	// KindOverlap: more requests in flight at once than allowed.
	KindOverlap Kind = "overlap"
	// KindBackoff: a request too soon after a 429 or 503 without a Retry-After.
	KindBackoff Kind = "backoff"
	// KindVisitTime: a request outside the robots.txt Visit-time windows.
	KindVisitTime Kind = "visit-time"
)

// Millis is a duration written in JSON as a number of milliseconds.
type Millis time.Duration

// String formats m as a time.Duration does.
func (m Millis) String() string { return time.Duration(m).String() }

// MarshalJSON writes m in milliseconds, with up to three decimals.
func (m Millis) MarshalJSON() ([]byte, error) {
	return json.Marshal(float64(time.Duration(m).Microseconds()) / 1000)
}

// Violation is one breach found, or, in Report.Undecided, one the dates cannot decide.
type Violation struct {
	Kind   Kind   `json:"kind"`
	Scope  string `json:"scope"` // "host" or "ip"
	Host   string `json:"host"`
	IP     string `json:"ip,omitempty"`
	URL    string `json:"url"`
	Detail string `json:"detail"`
	// Required and Measured, for gaps: the delay in force and the gap's bounds as
	// the records give them (Measured the lower bound, MeasuredMax the upper).
	Required    Millis `json:"required_ms,omitempty"`
	Source      string `json:"source,omitempty"` // what set Required
	Measured    Millis `json:"measured_ms,omitempty"`
	MeasuredMax Millis `json:"measured_max_ms,omitempty"`
	// Records are the records involved: the request (or response) that broke the
	// rule first, then the one it is measured against (the previous response, the
	// robots.txt response in force).
	Records []*recordRef `json:"records"`
}

// String formats v on one line.
func (v *Violation) String() string {
	s := string(v.Kind) + " " + v.URL
	if v.Scope == "ip" {
		s += " (IP " + v.IP + ")"
	}
	return s + ": " + v.Detail
}

// HostFigures are the figures of one host, or one IP address.
type HostFigures struct {
	Host     string `json:"host,omitempty"`
	IP       string `json:"ip,omitempty"`
	Requests int    `json:"requests"`
	// RobotsFetches counts the requests for robots.txt (and its redirect hops);
	// RobotsVersions the robots.txt results in force at some time.
	RobotsFetches  int `json:"robots_fetches,omitempty"`
	RobotsVersions int `json:"robots_versions,omitempty"`
	// Gaps counts the gaps checked; Undecided those the dates cannot decide.
	Gaps      int `json:"gaps"`
	Undecided int `json:"undecided,omitempty"`
	// SmallestGap is the smallest gap's lower bound, and SmallestRatio the smallest
	// lower bound over the delay in force (gaps with a delay only); below 1 is not
	// necessarily a violation (see Undecided).
	SmallestGap   *Millis  `json:"smallest_gap_ms,omitempty"`
	SmallestRatio *float64 `json:"smallest_ratio,omitempty"`
	MaxInFlight   int      `json:"max_in_flight,omitempty"`
	Violations    int      `json:"violations"`
}

// Unchecked says what could not be checked, and why: Count things (the unit Why starts
// with, such as "gaps") were not checked for Check.
type Unchecked struct {
	Check string `json:"check"`
	Count int    `json:"count"`
	Why   string `json:"why"`
}

// Settings are the options in force, each with where it came from.
type Settings struct {
	Agent          string `json:"agent"`
	AgentFrom      string `json:"agent_from"`
	MinDelay       Millis `json:"min_delay_ms"`
	MinDelayFrom   string `json:"min_delay_from"`
	PerHost        int    `json:"per_host"`
	PerHostFrom    string `json:"per_host_from"`
	Backoff        Millis `json:"backoff_ms"`
	BackoffFrom    string `json:"backoff_from"`
	PerIP          bool   `json:"per_ip"`
	PerIPFrom      string `json:"per_ip_from"`
	CrawlSoftware  string `json:"crawl_software,omitempty"` // the warcinfo record's software
	CrawlUserAgent string `json:"crawl_user_agent,omitempty"`
}

// Report is the result of an audit.
type Report struct {
	Software string        `json:"software,omitempty"` // the auditing program
	Settings Settings      `json:"settings"`
	Files    []FileSummary `json:"files"`
	// Records counts the records read; Exchanges the requests with their responses;
	// Robots those for robots.txt and its redirect hops.
	Records   int `json:"records"`
	Exchanges int `json:"exchanges"`
	Robots    int `json:"robots_fetches"`
	// Counts is the number of violations of each kind.
	Counts     map[Kind]int   `json:"counts"`
	Violations []*Violation   `json:"violations"`
	Undecided  []*Violation   `json:"undecided"`
	Unchecked  []Unchecked    `json:"unchecked"`
	Hosts      []*HostFigures `json:"hosts"`
	IPs        []*HostFigures `json:"ips"`
}

// OK reports whether the audit found no violation.
func (r *Report) OK() bool { return len(r.Violations) == 0 }

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes a short report for a reader: the settings, the totals, the first
// violations of each kind, and what could not be checked.
func (r *Report) WriteText(w io.Writer, show int) error {
	var b strings.Builder
	s := r.Settings
	if r.Software != "" {
		fmt.Fprintf(&b, "politeness audit by %s\n", r.Software)
	}
	switch {
	case s.CrawlSoftware != "" && s.CrawlUserAgent != "":
		fmt.Fprintf(&b, "crawl by %s, user-agent %q\n", s.CrawlSoftware, s.CrawlUserAgent)
	case s.CrawlSoftware != "":
		fmt.Fprintf(&b, "crawl by %s\n", s.CrawlSoftware)
	}
	fmt.Fprintf(&b, "audit of %d records in %d files: %d exchanges on %d hosts, %d robots.txt fetches\n",
		r.Records, len(r.Files), r.Exchanges, len(r.Hosts), r.Robots)
	fmt.Fprintf(&b, "agent %q (%s), min delay %v (%s), %d per host (%s), backoff %v (%s), per IP %v (%s)\n",
		s.Agent, s.AgentFrom, time.Duration(s.MinDelay), s.MinDelayFrom, s.PerHost, s.PerHostFrom,
		time.Duration(s.Backoff), s.BackoffFrom, s.PerIP, s.PerIPFrom)
	for _, f := range r.Files {
		if f.Damage != "" {
			fmt.Fprintf(&b, "%s: read %d records, then stopped: %s\n", f.Name, f.Records, f.Damage)
		}
	}
	if r.OK() {
		b.WriteString("no violation found\n")
	} else {
		fmt.Fprintf(&b, "%d violations:", len(r.Violations))
		for _, k := range []Kind{KindRobotsLate, KindDisallowed, KindGap, KindOverlap, KindBackoff, KindVisitTime} {
			if n := r.Counts[k]; n > 0 {
				fmt.Fprintf(&b, " %s %d", k, n)
			}
		}
		b.WriteString("\n")
		shown := map[Kind]int{}
		for _, v := range r.Violations {
			if shown[v.Kind] < show {
				shown[v.Kind]++
				fmt.Fprintf(&b, "  %s\n", v)
			}
		}
	}
	for _, u := range r.Unchecked {
		fmt.Fprintf(&b, "not checked (%s): %d %s\n", u.Check, u.Count, u.Why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Where a WACZ package holds the audit report of its crawl.
const (
	WACZJSONPath = "audit/politeness.json"
	WACZTextPath = "audit/politeness.txt"
)

// WACZFiles returns the report as the files a WACZ package holds: the JSON report and
// the text one (every violation shown).
func (r *Report) WACZFiles() ([]storage.WACZFile, error) {
	var js, txt bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		return nil, err
	}
	if err := r.WriteText(&txt, len(r.Violations)); err != nil {
		return nil, err
	}
	return []storage.WACZFile{{Path: WACZJSONPath, Data: js.Bytes()}, {Path: WACZTextPath, Data: txt.Bytes()}}, nil
}
