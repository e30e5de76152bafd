package politeness

import "time"

// Rules are what a host's robots.txt says about pacing for our agent. The zero value
// asks for nothing beyond the scheduler's own delays.
type Rules struct {
	// CrawlDelay is the robots.txt Crawl-delay: the least time between two requests.
	// Zero or negative means none.
	CrawlDelay time.Duration

	// RequestRate is the robots.txt Request-rate, honoured as one request every
	// Period/Requests. The zero value means none.
	RequestRate RequestRate

	// VisitTime are the robots.txt Visit-time windows: when the list is not empty, a
	// request may start only inside one of them. Invalid windows are ignored.
	VisitTime []Window
}

// RequestRate is a number of requests per period, as in "Request-rate: 1/5s". It is
// honoured with burst 1: one request every Period/Requests.
type RequestRate struct {
	Requests int           // requests allowed per Period; zero or negative means no rate
	Period   time.Duration // the period; zero or negative means no rate
}

// Interval returns the spacing the rate asks for, Period/Requests, or 0 when the rate is
// not set.
func (r RequestRate) Interval() time.Duration {
	if r.Requests <= 0 || r.Period <= 0 {
		return 0
	}
	return r.Period / time.Duration(r.Requests)
}

// MinutesPerDay is the number of minutes in a UTC day, the upper bound of Window.End.
const MinutesPerDay = 24 * 60

// Window is a time of day, in minutes after midnight UTC, during which a host may be
// visited: [Start, End). A window whose Start is after its End wraps past midnight
// ("Visit-time: 2200-0600" is Window{1320, 360}). A window is valid when Start is in
// [0, 1440), End is in [0, 1440] and they differ.
type Window struct {
	Start, End int
}

// Valid reports whether w is a usable window.
func (w Window) Valid() bool {
	return w.Start >= 0 && w.Start < MinutesPerDay && w.End >= 0 && w.End <= MinutesPerDay && w.Start != w.End
}

// NextOpen returns the earliest time at or after t that lies inside one of the windows:
// t itself when it is inside one, or when ws holds no valid window.
func NextOpen(t time.Time, ws []Window) time.Time {
	u := t.UTC()
	midnight := time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
	since := u.Sub(midnight)
	var best time.Time
	for _, w := range ws {
		if !w.Valid() {
			continue
		}
		start := time.Duration(w.Start) * time.Minute
		end := time.Duration(w.End) * time.Minute
		var open bool
		if w.Start < w.End {
			open = since >= start && since < end
		} else {
			open = since >= start || since < end
		}
		if open {
			return t
		}
		next := midnight.Add(start)
		if since >= start {
			next = next.Add(24 * time.Hour) // UTC days are all 24 h long
		}
		if best.IsZero() || next.Before(best) {
			best = next
		}
	}
	if best.IsZero() {
		return t
	}
	return best
}

// hostRules is the compiled form of Rules kept per host; nil means none.
type hostRules struct {
	delay   time.Duration // max(CrawlDelay, RequestRate.Interval())
	why     Reason        // ReasonCrawlDelay or ReasonRequestRate, whichever set delay
	windows []Window      // valid windows only
}

func compileRules(r Rules) *hostRules {
	h := hostRules{delay: max(r.CrawlDelay, 0), why: ReasonCrawlDelay}
	if i := r.RequestRate.Interval(); i > h.delay {
		h.delay, h.why = i, ReasonRequestRate
	}
	for _, w := range r.VisitTime {
		if w.Valid() {
			h.windows = append(h.windows, w)
		}
	}
	if h.delay == 0 && len(h.windows) == 0 {
		return nil
	}
	return &h
}
