package recrawl

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

const day = 24 * time.Hour

func adaptiveOptions() Options {
	return Options{Interval: day, Adaptive: true, MinInterval: time.Hour, MaxInterval: 30 * day}
}

func TestPolicyFirst(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		o    Options
		hint Hint
		want time.Duration
	}{
		{"fixed ignores hints", Options{Interval: day, MinInterval: time.Minute, MaxInterval: 90 * day},
			Hint{ChangeFreq: "hourly"}, day},
		{"no hint", adaptiveOptions(), Hint{}, day},
		{"always", adaptiveOptions(), Hint{ChangeFreq: "always"}, time.Hour},
		{"hourly", adaptiveOptions(), Hint{ChangeFreq: "hourly"}, time.Hour},
		{"daily", adaptiveOptions(), Hint{ChangeFreq: "daily"}, day},
		{"weekly", adaptiveOptions(), Hint{ChangeFreq: "weekly"}, 7 * day},
		{"monthly", adaptiveOptions(), Hint{ChangeFreq: "monthly"}, 30 * day},
		{"yearly clamped", adaptiveOptions(), Hint{ChangeFreq: "yearly"}, 30 * day},
		{"never", adaptiveOptions(), Hint{ChangeFreq: "never"}, 30 * day},
		{"changefreq wins over lastmod", adaptiveOptions(), Hint{ChangeFreq: "hourly", LastMod: now.Add(-10 * day)}, time.Hour},
		{"old lastmod", adaptiveOptions(), Hint{LastMod: now.Add(-10 * day)}, 10 * day},
		{"very old lastmod clamped", adaptiveOptions(), Hint{LastMod: now.Add(-400 * day)}, 30 * day},
		{"recent lastmod", adaptiveOptions(), Hint{LastMod: now.Add(-time.Hour)}, day},
		{"lastmod in the future", adaptiveOptions(), Hint{LastMod: now.Add(time.Hour)}, day},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewPolicy(tt.o).First(tt.hint, now); got != tt.want {
				t.Errorf("First(%+v):\n\tgot  %v\n\twant %v", tt.hint, got, tt.want)
			}
		})
	}
}

func TestPolicyNext(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		last    time.Duration
		changed bool
		hint    Hint
		want    time.Duration
	}{
		{"fixed", Options{Interval: day}, 3 * day, true, Hint{}, day},
		{"unchanged grows", adaptiveOptions(), 10 * time.Hour, false, Hint{}, 14 * time.Hour},
		{"changed shrinks", adaptiveOptions(), 10 * time.Hour, true, Hint{}, 8 * time.Hour},
		{"at most max", adaptiveOptions(), 25 * day, false, Hint{}, 30 * day},
		{"at least min", adaptiveOptions(), time.Hour, true, Hint{}, time.Hour},
		{"huge last", adaptiveOptions(), time.Duration(1 << 62), false, Hint{}, 30 * day},
		{"weekly hint adapts", adaptiveOptions(), 10 * time.Hour, false, Hint{ChangeFreq: "weekly"}, 14 * time.Hour},
		{"always holds min", adaptiveOptions(), 10 * time.Hour, false, Hint{ChangeFreq: "always"}, time.Hour},
		{"never holds max", adaptiveOptions(), 10 * time.Hour, true, Hint{ChangeFreq: "never"}, 30 * day},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewPolicy(tt.o).Next(tt.last, tt.changed, tt.hint); got != tt.want {
				t.Errorf("Next(%v, %v, %+v):\n\tgot  %v\n\twant %v", tt.last, tt.changed, tt.hint, got, tt.want)
			}
		})
	}
}

func TestRecordCodec(t *testing.T) {
	fetched := time.Date(2026, 11, 24, 12, 0, 0, 123, time.UTC)
	for _, ps := range []Record{
		{Cur: Fetch{Interval: day, Fetched: fetched, Status: 200, Digest: "sha1:AB", ETag: `"e"`, LastModified: "Sun, 01 Nov 2026 12:00:00 GMT"}},
		{Cur: Fetch{Due: 1, Interval: time.Hour, Fetched: fetched, Status: 404},
			Prev: Fetch{Interval: day, Fetched: fetched.Add(-day), Status: 200, Digest: "sha1:CD"}, HasPrev: true},
	} {
		got, ok := decodeRecord(encodeRecord(&ps))
		if !ok || !reflect.DeepEqual(got, ps) {
			t.Errorf("decodeRecord(encodeRecord(%+v)):\n\tgot  %+v, %v\n\twant the same", ps, got, ok)
		}
	}
	for _, h := range []Hint{{}, {ChangeFreq: "weekly"}, {LastMod: fetched}, {ChangeFreq: "never", LastMod: fetched}} {
		if got, ok := decodeHint(encodeHint(h)); !ok || !reflect.DeepEqual(got, h) {
			t.Errorf("decodeHint(encodeHint(%+v)):\n\tgot  %+v, %v\n\twant the same", h, got, ok)
		}
	}
	for _, bad := range [][]byte{nil, {1}, {2, 0, 0}, {1, 2}, {1, 0, 0, 0, 0, 0, 5, 'a'}, {1, 9, 0}} {
		if _, ok := decodeRecord(bad); ok {
			t.Errorf("decodeRecord(%x) read a record", bad)
		}
		if _, ok := decodeHint(bad); ok {
			t.Errorf("decodeHint(%x) read a hint", bad)
		}
	}
}

// FuzzRecord checks that no stored value makes the decoders panic, and that
// what they accept encodes back to the same bytes.
func FuzzRecord(f *testing.F) {
	f.Add(encodeRecord(&Record{Cur: Fetch{Interval: day, Status: 200, Digest: "sha1:AB", ETag: `"e"`}}))
	f.Add(encodeRecord(&Record{Cur: Fetch{Due: 5, Status: 304}, Prev: Fetch{Interval: 1}, HasPrev: true}))
	f.Add(encodeHint(Hint{ChangeFreq: "daily", LastMod: time.Unix(1e9, 0)}))
	f.Add([]byte{1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		if ps, ok := decodeRecord(b); ok {
			if again, ok := decodeRecord(encodeRecord(&ps)); !ok || !reflect.DeepEqual(again, ps) {
				t.Fatalf("schedule %x decodes to %+v, which does not round-trip", b, ps)
			}
		}
		if h, ok := decodeHint(b); ok {
			if again, ok := decodeHint(encodeHint(h)); !ok || !reflect.DeepEqual(again, h) {
				t.Fatalf("hint %x decodes to %+v, which does not round-trip", b, h)
			}
		}
	})
}

func TestStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ps := Record{Cur: Fetch{Interval: day, Fetched: time.Unix(1e9, 0).UTC(), Status: 200}}
	if err := s.Put("http://a.test/", &ps); err != nil {
		t.Fatal(err)
	}
	hint := Hint{ChangeFreq: "weekly"}
	if err := s.PutHints(map[string]Hint{"http://a.test/": hint}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, ok, gotHint, err := s.Get("http://a.test/")
	if err != nil || !ok || !reflect.DeepEqual(got, ps) || gotHint != hint {
		t.Errorf("get after reopen: %+v, %v, %+v, %v; want %+v, true, %+v", got, ok, gotHint, err, ps, hint)
	}
	if _, ok, gotHint, err := s.Get("http://a.test/other"); ok || gotHint != (Hint{}) || err != nil {
		t.Errorf("get of an unknown URL: %v, %+v, %v", ok, gotHint, err)
	}
}
