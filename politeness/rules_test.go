package politeness

import (
	"testing"
	"time"
)

func at(h, m int) time.Time { return time.Date(2026, 11, 21, h, m, 0, 0, time.UTC) }

func TestNextOpen(t *testing.T) {
	morning := []Window{{6 * 60, 8*60 + 45}} // Visit-time: 0600-0845
	night := []Window{{22 * 60, 6 * 60}}     // Visit-time: 2200-0600
	tests := []struct {
		name string
		now  time.Time
		ws   []Window
		want time.Time
	}{
		{"no windows", at(3, 0), nil, at(3, 0)},
		{"before", at(5, 0), morning, at(6, 0)},
		{"at start", at(6, 0), morning, at(6, 0)},
		{"inside", at(7, 30), morning, at(7, 30)},
		{"at end is closed", at(8, 45), morning, at(6, 0).Add(24 * time.Hour)},
		{"after", at(9, 0), morning, at(6, 0).Add(24 * time.Hour)},
		{"wrap: evening", at(23, 0), night, at(23, 0)},
		{"wrap: early morning", at(2, 0), night, at(2, 0)},
		{"wrap: day", at(12, 0), night, at(22, 0)},
		{"two windows: earliest", at(9, 0), []Window{{20 * 60, 21 * 60}, {10 * 60, 11 * 60}}, at(10, 0)},
		{"end of day", at(23, 59), []Window{{23 * 60, MinutesPerDay}}, at(23, 59)},
		{"invalid ignored", at(3, 0), []Window{{-1, 5}, {5, 5}, {0, 1441}, {1440, 10}}, at(3, 0)},
		{"invalid beside valid", at(3, 0), []Window{{5, 5}, {4 * 60, 5 * 60}}, at(4, 0)},
		{"other zone", time.Date(2026, 11, 21, 1, 0, 0, 0, time.FixedZone("X", 5*3600)), morning, at(6, 0)}, // 20:00 UTC the day before
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NextOpen(tt.now, tt.ws); !got.Equal(tt.want) {
				t.Errorf("NextOpen(%v, %v):\n\tgot  %v\n\twant %v", tt.now, tt.ws, got, tt.want)
			}
		})
	}
}

func TestRequestRateInterval(t *testing.T) {
	tests := []struct {
		in   RequestRate
		want time.Duration
	}{
		{RequestRate{1, 5 * time.Second}, 5 * time.Second},
		{RequestRate{10, time.Minute}, 6 * time.Second},
		{RequestRate{0, time.Minute}, 0},
		{RequestRate{3, 0}, 0},
		{RequestRate{-1, time.Minute}, 0},
	}
	for _, tt := range tests {
		if got := tt.in.Interval(); got != tt.want {
			t.Errorf("%+v.Interval():\n\tgot  %v\n\twant %v", tt.in, got, tt.want)
		}
	}
}

// FuzzNextOpen checks that NextOpen returns a time at or after now, less than a day
// later, inside a window, and that only the start of a window can be later than now.
func FuzzNextOpen(f *testing.F) {
	f.Add(int64(0), 360, 525, 1320, 360)
	f.Add(int64(86399), 0, 1440, 5, 5)
	f.Add(int64(-1e12), 1439, 0, -3, 2000)
	f.Fuzz(func(t *testing.T, sec int64, s1, e1, s2, e2 int) {
		now := time.Unix(sec%(1<<40), 0)
		ws := []Window{{s1, e1}, {s2, e2}}
		got := NextOpen(now, ws)
		if got.Before(now) || got.Sub(now) >= 24*time.Hour {
			t.Fatalf("NextOpen(%v, %v) = %v: not in [now, now+24h)", now, ws, got)
		}
		if again := NextOpen(got, ws); !again.Equal(got) {
			t.Fatalf("NextOpen(%v, %v) = %v, which is closed (opens %v)", now, ws, got, again)
		}
		if got.After(now) {
			m := got.UTC().Hour()*60 + got.UTC().Minute()
			if got.UTC().Second() != 0 || (m != s1 && m != s2) {
				t.Fatalf("NextOpen(%v, %v) = %v, not a window start", now, ws, got)
			}
			if before := got.Add(-time.Second); !before.Before(now) && NextOpen(before, ws).Equal(before) {
				t.Fatalf("NextOpen(%v, %v) = %v, but %v is open", now, ws, got, before)
			}
		}
	})
}
