package politeness

import (
	"strings"
	"time"
)

// maxRetryAfterSeconds bounds a Retry-After given in seconds (about 31 years) so that
// adding it to a time cannot overflow.
const maxRetryAfterSeconds = 1_000_000_000

// httpDateLayouts are the three HTTP-date forms of RFC 9110 §5.6.7: IMF-fixdate, then
// the obsolete RFC 850 and asctime forms that recipients must still accept.
var httpDateLayouts = [...]string{
	"Mon, 02 Jan 2006 15:04:05 GMT",
	"Monday, 02-Jan-06 15:04:05 GMT",
	"Mon Jan _2 15:04:05 2006",
}

// ParseRetryAfter parses a Retry-After header value (RFC 9110 §10.2.3): either a number
// of seconds, counted from now (the time the response was received), or an HTTP date.
// It reports false when the value is neither. A date in the past is returned as is; the
// caller's own delay still applies. Seconds above about 31 years are clamped.
func ParseRetryAfter(value string, now time.Time) (time.Time, bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return time.Time{}, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		var n int64
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c < '0' || c > '9' {
				return parseHTTPDate(v)
			}
			if n < maxRetryAfterSeconds {
				n = n*10 + int64(c-'0')
			}
		}
		n = min(n, maxRetryAfterSeconds)
		return now.Add(time.Duration(n) * time.Second), true
	}
	return parseHTTPDate(v)
}

func parseHTTPDate(v string) (time.Time, bool) {
	for _, layout := range httpDateLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
