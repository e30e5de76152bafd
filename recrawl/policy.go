package recrawl

import (
	"math"
	"time"
)

// The adaptive schedule's rates, Nutch's AdaptiveFetchSchedule defaults
// (db.fetch.schedule.adaptive.inc_rate and dec_rate): an unchanged page's interval
// grows by 40%, a changed page's shrinks by 20%.
const (
	adaptiveGrow   = 1.4
	adaptiveShrink = 0.8
)

// Options are the recrawl settings a Policy applies.
type Options struct {
	// Interval is the interval of every page in fixed mode, and the first interval of
	// a page without a sitemap hint in adaptive mode. Zero: no page is fetched again.
	Interval time.Duration
	// Adaptive makes each page's interval follow its changes; false is fixed mode.
	Adaptive bool
	// MinInterval and MaxInterval bound a page's interval in adaptive mode; fixed mode
	// ignores them.
	MinInterval, MaxInterval time.Duration
}

// Policy computes pages' intervals from Options. The zero Policy has Interval 0.
type Policy struct{ o Options }

// NewPolicy returns the policy of o.
func NewPolicy(o Options) Policy { return Policy{o: o} }

// changeFreqInterval is the interval a sitemap changefreq stands for, before bounds;
// always and never are the bounds themselves (see First).
var changeFreqInterval = map[string]time.Duration{
	"hourly":  time.Hour,
	"daily":   24 * time.Hour,
	"weekly":  7 * 24 * time.Hour,
	"monthly": 30 * 24 * time.Hour,
	"yearly":  365 * 24 * time.Hour,
}

// clamp keeps d within the adaptive bounds.
func (p Policy) clamp(d time.Duration) time.Duration {
	return min(max(d, p.o.MinInterval), p.o.MaxInterval)
}

// First is the interval of a page after its first fetch at fetched: Interval, or in
// adaptive mode what its sitemap entry says: changefreq always is MinInterval, never is
// MaxInterval, the others their own length; without a changefreq, a lastmod older than
// Interval says the page has been stable that long, and that long is its first
// interval (Nutch's adaptive schedule syncs the same way with a page's age). Always
// within the bounds.
func (p Policy) First(hint Hint, fetched time.Time) time.Duration {
	if !p.o.Adaptive {
		return p.o.Interval
	}
	switch hint.ChangeFreq {
	case "always":
		return p.o.MinInterval
	case "never":
		return p.o.MaxInterval
	case "":
		if age := fetched.Sub(hint.LastMod); !hint.LastMod.IsZero() && age > p.o.Interval {
			return p.clamp(age)
		}
		return p.clamp(p.o.Interval)
	}
	return p.clamp(changeFreqInterval[hint.ChangeFreq])
}

// Next is the interval of a page after a refetch whose interval before was last:
// Interval in fixed mode; in adaptive mode last shrunk when the page changed and grown
// when it did not, within the bounds. A sitemap's changefreq always or never keeps the
// page at the bound it names.
func (p Policy) Next(last time.Duration, changed bool, hint Hint) time.Duration {
	if !p.o.Adaptive {
		return p.o.Interval
	}
	switch hint.ChangeFreq {
	case "always":
		return p.o.MinInterval
	case "never":
		return p.o.MaxInterval
	}
	f := adaptiveGrow
	if changed {
		f = adaptiveShrink
	}
	next := float64(last) * f
	if next >= math.MaxInt64 {
		return p.o.MaxInterval
	}
	return p.clamp(time.Duration(next))
}
