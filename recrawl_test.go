package crawl

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/recrawl"
	"github.com/politecrawl/crawl/storage"
)

const day = 24 * time.Hour

func adaptiveConfig() config.Recrawl {
	return config.Recrawl{Interval: config.Duration(day), Mode: config.RecrawlAdaptive,
		MinInterval: config.Duration(time.Hour), MaxInterval: config.Duration(30 * day)}
}

// TestRescheduleRepeated checks that a fetch repeated because a crash cut its lease
// between its schedule.db write and its Done (same Lease.Due) is scheduled from the
// fetch before the cut one, as if that one had not happened: its interval is not
// grown twice, and its previous fetch and change are against the fetch before.
func TestRescheduleRepeated(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	cfg := config.Default()
	cfg.Recrawl = adaptiveConfig()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Now = func() time.Time { return now }
	if c.recrawl, err = recrawl.Open(filepath.Join(t.TempDir(), recrawl.FileName)); err != nil {
		t.Fatal(err)
	}
	defer c.recrawl.Close()
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
