package extract

import "strings"

// The calendar window, in years either side of now (see ScopeOptions.CalendarTrap).
// A calendar's "next" and "previous" links walk one month or day at a time, so
// refusing dates outside the window ends the walk in both directions.
const (
	scopeCalendarAhead  = 3
	scopeCalendarBehind = 30
)

// scopeSegments counts the segments of an absolute path: "/" has 0, "/a" and "/a/"
// have 1, "/a//b" has 3 (an empty segment counts, a trailing slash does not).
func scopeSegments(path string) int {
	if path == "" || path == "/" {
		return 0
	}
	n := strings.Count(path, "/")
	if !strings.HasPrefix(path, "/") {
		n++
	}
	if strings.HasSuffix(path, "/") {
		n--
	}
	return n
}

// scopeRepeated reports whether one non-empty segment occurs more than max times
// in path, anywhere: /a/b/a/b/a/b repeats "a" three times. Segments are compared as
// written (percent-encoded).
func scopeRepeated(path string, max int) bool {
	var buf [64]string
	segs := buf[:0]
	for rest := path; rest != ""; {
		seg := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seg, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if seg != "" {
			segs = append(segs, seg)
		}
	}
	if len(segs) <= max {
		return false
	}
	if len(segs) > len(buf) {
		counts := make(map[string]int, len(segs))
		for _, seg := range segs {
			if counts[seg]++; counts[seg] > max {
				return true
			}
		}
		return false
	}
	for i, seg := range segs {
		n := 1
		for _, other := range segs[i+1:] {
			if other == seg {
				if n++; n > max {
					return true
				}
			}
		}
	}
	return false
}

// scopeParams counts the non-empty &-separated pieces of a query.
func scopeParams(query string) int {
	n := 0
	for query != "" {
		piece := query
		if i := strings.IndexByte(query, '&'); i >= 0 {
			piece, query = query[:i], query[i+1:]
		} else {
			query = ""
		}
		if piece != "" {
			n++
		}
	}
	return n
}

// scopeCalendarYear finds the year of a calendar-like date: at the end of the path
// (/2031/05, /2031/05/17, /2031-05, /2031-05-17, a trailing slash allowed) or in a
// query parameter (a value 2031-05 or 2031-05-17, possibly followed by a time, or
// year=2031 / yr=2031). Months and days in the path must have two digits, so that
// /thread/2031/2 (a page number) is not a date. Years run from 1000 to 2999.
func scopeCalendarYear(path, query string) (int, bool) {
	p := strings.TrimSuffix(path, "/")
	last, p := scopeLastSegment(p)
	if y, ok := scopeDashDate(last, false); ok {
		return y, true
	}
	if len(last) == 2 && scopeNum(last, 1, 31) {
		prev, before := scopeLastSegment(p)
		if len(prev) == 4 && scopeNum(last, 1, 12) {
			if y, ok := scopeYear(prev); ok {
				return y, true // /YYYY/MM
			}
		}
		if len(prev) == 2 && scopeNum(prev, 1, 12) {
			year, _ := scopeLastSegment(before)
			if y, ok := scopeYear(year); ok {
				return y, true // /YYYY/MM/DD
			}
		}
	}
	for query != "" {
		param := query
		if i := strings.IndexByte(query, '&'); i >= 0 {
			param, query = query[:i], query[i+1:]
		} else {
			query = ""
		}
		key, value, _ := strings.Cut(param, "=")
		if y, ok := scopeDashDate(value, true); ok {
			return y, true
		}
		if strings.EqualFold(key, "year") || strings.EqualFold(key, "yr") {
			if y, ok := scopeYear(value); ok {
				return y, true
			}
		}
	}
	return 0, false
}

// scopeLastSegment splits p at its last '/': the segment after it and the path
// before it.
func scopeLastSegment(p string) (last, before string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return p, ""
	}
	return p[i+1:], p[:i]
}

// scopeDashDate reads YYYY-MM or YYYY-MM-DD; with tail, anything may follow a
// complete YYYY-MM-DD (a time, in a query value).
func scopeDashDate(s string, tail bool) (int, bool) {
	if len(s) < 7 || s[4] != '-' || !scopeNum(s[5:7], 1, 12) {
		return 0, false
	}
	switch {
	case len(s) == 7:
	case len(s) >= 10 && s[7] == '-' && scopeNum(s[8:10], 1, 31) && (len(s) == 10 || tail):
	default:
		return 0, false
	}
	return scopeYear(s[:4])
}

// scopeYear reads a four-digit year from 1000 to 2999.
func scopeYear(s string) (int, bool) {
	if len(s) != 4 || !scopeNum(s, 1000, 2999) {
		return 0, false
	}
	return int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0'), true
}

// scopeNum reports whether s is all digits (at most 4) with a value in [lo, hi].
func scopeNum(s string, lo, hi int) bool {
	if s == "" || len(s) > 4 {
		return false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
		v = v*10 + int(s[i]-'0')
	}
	return lo <= v && v <= hi
}
