package politeness

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		in     string
		want   time.Time
		wantOK bool
	}{
		{"120", t0.Add(120 * time.Second), true},
		{"0", t0, true},
		{"  7 ", t0.Add(7 * time.Second), true},
		{"0005", t0.Add(5 * time.Second), true},
		{"Sun, 22 Nov 2026 08:49:37 GMT", time.Date(2026, 11, 22, 8, 49, 37, 0, time.UTC), true},
		{"Sunday, 22-Nov-26 08:49:37 GMT", time.Date(2026, 11, 22, 8, 49, 37, 0, time.UTC), true},
		{"Sun Nov 22 08:49:37 2026", time.Date(2026, 11, 22, 8, 49, 37, 0, time.UTC), true},
		{"Sun Nov  1 08:49:37 2026", time.Date(2026, 11, 1, 8, 49, 37, 0, time.UTC), true},
		{"Fri, 31 Dec 1999 23:59:59 GMT", time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC), true}, // past: as is
		{"99999999999999999999999", t0.Add(maxRetryAfterSeconds * time.Second), true},
		{"", time.Time{}, false},
		{"   ", time.Time{}, false},
		{"-5", time.Time{}, false},
		{"+5", time.Time{}, false},
		{"1.5", time.Time{}, false},
		{"5s", time.Time{}, false},
		{"soon", time.Time{}, false},
		{"Sun, 22 Nov 2026 08:49:37 PST", time.Time{}, false},
		{"2026-11-22T08:49:37Z", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseRetryAfter(tt.in, t0)
			if ok != tt.wantOK || !got.Equal(tt.want) {
				t.Errorf("ParseRetryAfter(%q):\n\tgot  %v, %v\n\twant %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// FuzzParseRetryAfter checks that delay-seconds never go back in time and compares the
// HTTP-date forms with net/http.ParseTime.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0", " 3 ", "Sun, 22 Nov 2026 08:49:37 GMT",
		"Sunday, 22-Nov-26 08:49:37 GMT", "Sun Nov 22 08:49:37 2026", "", "-1", "1e3",
		"99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseRetryAfter(s, t0)
		digits := len(s) > 0
		trimmed := strings.TrimSpace(s)
		for i := 0; i < len(trimmed); i++ {
			if trimmed[i] < '0' || trimmed[i] > '9' {
				digits = false
			}
		}
		if digits && trimmed != "" {
			if !ok || got.Before(t0) || got.After(t0.Add(maxRetryAfterSeconds*time.Second)) {
				t.Fatalf("ParseRetryAfter(%q) = %v, %v; want a time in [now, now+max]", s, got, ok)
			}
			return
		}
		want, err := http.ParseTime(trimmed)
		if err == nil && !ok {
			// net/http parses the RFC 850 form with any zone abbreviation; RFC 9110
			// allows only GMT, and so do we.
			if !strings.HasSuffix(trimmed, " GMT") {
				return
			}
		}
		if ok != (err == nil) || (ok && !got.Equal(want)) {
			t.Fatalf("ParseRetryAfter(%q):\n\tgot  %v, %v\n\twant %v, %v (net/http)", s, got, ok, want, err == nil)
		}
	})
}
