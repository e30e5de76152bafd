package crawl

import (
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestProgressLine: the live line fits an 80-column terminal whatever the figures,
// and shows the elapsed time and the rate first.
func TestProgressLine(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    Progress
		want []string // all present, in this order
	}{
		{"start", Progress{}, []string{"0s", "0 pages", "0.0/s", "queued 0", "in flight 0", "errors 0", "0 B"}},
		{"typical", Progress{Elapsed: 83 * time.Second, Pages: 12345, PagesPerSec: 45.67, Queued: 1234567, InFlight: 64,
			HostsActive: 123, HostsWait: 4567, Errors: 89, Bytes: 1 << 30},
			[]string{"1m23s", "12.3k pages", "45.7/s", "queued 1.2M", "in flight 64", "errors 89", "1.0 GiB"}},
		{"long crawl", Progress{Elapsed: 30*time.Hour + 4*time.Minute, Pages: 98765432, PagesPerSec: 1234.5, Queued: 123456789012,
			InFlight: 10000, HostsActive: 99999, HostsWait: 999999, Errors: 123456, Bytes: 5 << 40},
			[]string{"30h04m00s", "98.8M pages", "1234/s", "queued 123G"}},
		{"extreme", Progress{Elapsed: math.MaxInt64, Pages: math.MaxInt64, PagesPerSec: math.MaxFloat64, Queued: math.MaxInt64,
			InFlight: math.MaxInt64, HostsActive: math.MaxInt, HostsWait: math.MaxInt, Errors: math.MaxInt64, Bytes: math.MaxInt64},
			[]string{"d", "pages", "/s"}},
	} {
		line := tt.p.Line(80)
		if n := utf8.RuneCountInString(line); n > 79 {
			t.Errorf("%s: line of %d columns, want at most 79: %q", tt.name, n, line)
		}
		rest := line
		for _, w := range tt.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: line %q lacks %q (in order)", tt.name, line, w)
				break
			}
			rest = rest[i+len(w):]
		}
		if strings.ContainsAny(line, "\n\r") {
			t.Errorf("%s: line %q breaks", tt.name, line)
		}
	}
}
