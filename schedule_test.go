package crawl

import (
	"net/http"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/storage"
)

const day = 24 * time.Hour

func adaptiveConfig() RecrawlConfig {
	return RecrawlConfig{Interval: Duration(day), Mode: RecrawlAdaptive,
		MinInterval: Duration(time.Hour), MaxInterval: Duration(30 * day)}
}

func TestFirstInterval(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		rc   RecrawlConfig
		hint sitemapHint
		want time.Duration
	}{
		{"fixed ignores hints", RecrawlConfig{Interval: Duration(day), MinInterval: Duration(time.Minute), MaxInterval: Duration(90 * day)},
			sitemapHint{changeFreq: "hourly"}, day},
		{"no hint", adaptiveConfig(), sitemapHint{}, day},
		{"always", adaptiveConfig(), sitemapHint{changeFreq: "always"}, time.Hour},
		{"hourly", adaptiveConfig(), sitemapHint{changeFreq: "hourly"}, time.Hour},
		{"daily", adaptiveConfig(), sitemapHint{changeFreq: "daily"}, day},
		{"weekly", adaptiveConfig(), sitemapHint{changeFreq: "weekly"}, 7 * day},
		{"monthly", adaptiveConfig(), sitemapHint{changeFreq: "monthly"}, 30 * day},
		{"yearly clamped", adaptiveConfig(), sitemapHint{changeFreq: "yearly"}, 30 * day},
		{"never", adaptiveConfig(), sitemapHint{changeFreq: "never"}, 30 * day},
		{"changefreq wins over lastmod", adaptiveConfig(), sitemapHint{changeFreq: "hourly", lastMod: now.Add(-10 * day)}, time.Hour},
		{"old lastmod", adaptiveConfig(), sitemapHint{lastMod: now.Add(-10 * day)}, 10 * day},
		{"very old lastmod clamped", adaptiveConfig(), sitemapHint{lastMod: now.Add(-400 * day)}, 30 * day},
		{"recent lastmod", adaptiveConfig(), sitemapHint{lastMod: now.Add(-time.Hour)}, day},
		{"lastmod in the future", adaptiveConfig(), sitemapHint{lastMod: now.Add(time.Hour)}, day},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rc.firstInterval(tt.hint, now); got != tt.want {
				t.Errorf("firstInterval(%+v):\n\tgot  %v\n\twant %v", tt.hint, got, tt.want)
			}
		})
	}
}

func TestNextInterval(t *testing.T) {
	tests := []struct {
		name    string
		rc      RecrawlConfig
		last    time.Duration
		changed bool
		hint    sitemapHint
		want    time.Duration
	}{
		{"fixed", RecrawlConfig{Interval: Duration(day)}, 3 * day, true, sitemapHint{}, day},
		{"unchanged grows", adaptiveConfig(), 10 * time.Hour, false, sitemapHint{}, 14 * time.Hour},
		{"changed shrinks", adaptiveConfig(), 10 * time.Hour, true, sitemapHint{}, 8 * time.Hour},
		{"at most max", adaptiveConfig(), 25 * day, false, sitemapHint{}, 30 * day},
		{"at least min", adaptiveConfig(), time.Hour, true, sitemapHint{}, time.Hour},
		{"huge last", adaptiveConfig(), time.Duration(1 << 62), false, sitemapHint{}, 30 * day},
		{"weekly hint adapts", adaptiveConfig(), 10 * time.Hour, false, sitemapHint{changeFreq: "weekly"}, 14 * time.Hour},
		{"always holds min", adaptiveConfig(), 10 * time.Hour, false, sitemapHint{changeFreq: "always"}, time.Hour},
		{"never holds max", adaptiveConfig(), 10 * time.Hour, true, sitemapHint{changeFreq: "never"}, 30 * day},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rc.nextInterval(tt.last, tt.changed, tt.hint); got != tt.want {
				t.Errorf("nextInterval(%v, %v, %+v):\n\tgot  %v\n\twant %v", tt.last, tt.changed, tt.hint, got, tt.want)
			}
		})
	}
}

func TestScheduleRecords(t *testing.T) {
	fetched := time.Date(2026, 11, 24, 12, 0, 0, 123, time.UTC)
	for _, ps := range []pageSchedule{
		{cur: fetchState{interval: day, fetched: fetched, status: 200, digest: "sha1:AB", etag: `"e"`, lastMod: "Sun, 01 Nov 2026 12:00:00 GMT"}},
		{cur: fetchState{due: 1, interval: time.Hour, fetched: fetched, status: 404},
			prev: fetchState{interval: day, fetched: fetched.Add(-day), status: 200, digest: "sha1:CD"}, hasPrev: true},
	} {
		got, ok := decodeSchedule(encodeSchedule(&ps))
		if !ok || !reflect.DeepEqual(got, ps) {
			t.Errorf("decodeSchedule(encodeSchedule(%+v)):\n\tgot  %+v, %v\n\twant the same", ps, got, ok)
		}
	}
	for _, h := range []sitemapHint{{}, {changeFreq: "weekly"}, {lastMod: fetched}, {changeFreq: "never", lastMod: fetched}} {
		if got, ok := decodeHint(encodeHint(h)); !ok || !reflect.DeepEqual(got, h) {
			t.Errorf("decodeHint(encodeHint(%+v)):\n\tgot  %+v, %v\n\twant the same", h, got, ok)
		}
	}
	for _, bad := range [][]byte{nil, {1}, {2, 0, 0}, {1, 2}, {1, 0, 0, 0, 0, 0, 5, 'a'}, {1, 9, 0}} {
		if _, ok := decodeSchedule(bad); ok {
			t.Errorf("decodeSchedule(%x) read a record", bad)
		}
		if _, ok := decodeHint(bad); ok {
			t.Errorf("decodeHint(%x) read a hint", bad)
		}
	}
}

// FuzzScheduleRecord checks that no stored value makes the decoders panic, and that
// what they accept encodes back to the same bytes.
func FuzzScheduleRecord(f *testing.F) {
	f.Add(encodeSchedule(&pageSchedule{cur: fetchState{interval: day, status: 200, digest: "sha1:AB", etag: `"e"`}}))
	f.Add(encodeSchedule(&pageSchedule{cur: fetchState{due: 5, status: 304}, prev: fetchState{interval: 1}, hasPrev: true}))
	f.Add(encodeHint(sitemapHint{changeFreq: "daily", lastMod: time.Unix(1e9, 0)}))
	f.Add([]byte{1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		if ps, ok := decodeSchedule(b); ok {
			if again, ok := decodeSchedule(encodeSchedule(&ps)); !ok || !reflect.DeepEqual(again, ps) {
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

func TestScheduleStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), ScheduleFile)
	s, err := openSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	ps := pageSchedule{cur: fetchState{interval: day, fetched: time.Unix(1e9, 0).UTC(), status: 200}}
	if err := s.put("http://a.test/", &ps); err != nil {
		t.Fatal(err)
	}
	hint := sitemapHint{changeFreq: "weekly"}
	if err := s.putHints(map[string]sitemapHint{"http://a.test/": hint}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = openSchedule(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, ok, gotHint, err := s.get("http://a.test/")
	if err != nil || !ok || !reflect.DeepEqual(got, ps) || gotHint != hint {
		t.Errorf("get after reopen: %+v, %v, %+v, %v; want %+v, true, %+v", got, ok, gotHint, err, ps, hint)
	}
	if _, ok, gotHint, err := s.get("http://a.test/other"); ok || gotHint != (sitemapHint{}) || err != nil {
		t.Errorf("get of an unknown URL: %v, %+v, %v", ok, gotHint, err)
	}
}

// TestRescheduleRepeated checks that a fetch repeated because a crash cut its lease
// between its schedule.db write and its Done (same Lease.Due) is scheduled from the
// fetch before the cut one, as if that one had not happened: its interval is not
// grown twice, and its previous fetch and change are against the fetch before.
func TestRescheduleRepeated(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	c := &Crawler{cfg: Config{Recrawl: adaptiveConfig()}, Now: func() time.Time { return now }}
	var err error
	if c.schedule, err = openSchedule(filepath.Join(t.TempDir(), ScheduleFile)); err != nil {
		t.Fatal(err)
	}
	defer c.schedule.Close()
	const u = "http://a.test/"
	fetchAt := func(due time.Time, digest string) (time.Time, *storage.Page) {
		t.Helper()
		l := &frontier.Lease{Entry: frontier.Entry{URL: u, Kind: kindPage}, Due: due}
		last, err := c.scheduled(l)
		if err != nil {
			t.Fatal(err)
		}
		page := &storage.Page{URL: u, Status: 200, FetchedAt: now, PayloadDigest: digest}
		resp := &fetch.Response{Status: 200, Header: http.Header{}}
		next, err := c.reschedule(l, frontier.Finished, resp, page, &storage.Location{PayloadDigest: digest}, last)
		if err != nil {
			t.Fatal(err)
		}
		return next, page
	}
	first := now
	due1, _ := fetchAt(time.Time{}, "sha1:A")
	if want := now.Add(day); !due1.Equal(want) {
		t.Fatalf("first fetch: due %v, want %v", due1, want)
	}
	now = due1
	due2, _ := fetchAt(due1, "sha1:A") // unchanged: 1.4 days
	if want := now.Add(day * 14 / 10); !due2.Equal(want) {
		t.Fatalf("refetch: due %v, want %v", due2, want)
	}
	// The same lease again (its Done was lost), the page changed meanwhile.
	now = now.Add(time.Minute)
	again, page := fetchAt(due1, "sha1:B")
	if want := now.Add(day * 8 / 10); !again.Equal(want) {
		t.Errorf("repeated refetch: due %v, want %v (0.8 of the first interval, not of the cut fetch's)", again, want)
	}
	if page.Changed == nil || !*page.Changed || !page.PreviousFetch.Equal(first) {
		t.Errorf("repeated refetch: changed %v, previous fetch %v; want true, %v", page.Changed, page.PreviousFetch, first)
	}
}
