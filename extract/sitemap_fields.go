package extract

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// smW3CLayouts are the W3C Datetime forms sitemaps.org allows, then forms seen in
// the wild (no time zone, a space for the T, a zone without a colon). time.Parse
// accepts fractional seconds after the seconds field of any of them.
var smW3CLayouts = []string{
	time.RFC3339,
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04:05 -0700",
}

// smFeedLayouts are the RFC 822 / RFC 1123 dates of RSS pubDate, with and without
// the day name and seconds.
var smFeedLayouts = []string{
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04 -0700",
	"Mon, 2 Jan 2006 15:04 MST",
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 06 15:04:05 -0700",
	"Mon, 2 Jan 06 15:04:05 MST",
	"Mon, 2 January 2006 15:04:05 -0700",
	"Mon, 2 January 2006 15:04:05 MST",
}

// smParseTime reads a sitemap lastmod or a feed date, returned in UTC.
func smParseTime(s string) (time.Time, bool) {
	if len(s) < 4 || len(s) > 64 {
		return time.Time{}, false
	}
	var layouts []string
	switch {
	case len(s) == 4 && smDigits(s):
		layouts = []string{"2006"}
	case len(s) == 7 && s[4] == '-':
		layouts = []string{"2006-01"}
	case len(s) == 10 && s[4] == '-':
		layouts = []string{"2006-01-02"}
	case len(s) > 10 && s[4] == '-' && smDigits(s[:4]):
		layouts = smW3CLayouts
	default:
		layouts = smFeedLayouts
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// smDigits reports whether s is all ASCII digits.
func smDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

// smChangeFreq returns the protocol's change frequency named by s, lower-cased.
func smChangeFreq(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "always", "hourly", "daily", "weekly", "monthly", "yearly", "never":
		return s, true
	}
	return "", false
}

// smPriority reads a priority between 0 and 1.
func smPriority(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
		return 0, false
	}
	return v, true
}
