package crawl_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	warc "github.com/internetarchive/gowarc"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// TestRecrawl crawls a site with recrawl on for two rounds and stops it: pages with
// an ETag or a Last-Modified answer the refetch 304 and are archived as
// server-not-modified revisits of their first capture; a page that changed is
// archived again; an unchanged page without validators is an identical-payload
// revisit; pages.jsonl says which changed; politeness holds throughout.
func TestRecrawl(t *testing.T) {
	farm := startFarm(t, []crawltest.Site{{Host: "fresh.test", Pages: map[string]*crawltest.Page{
		"/":         {Links: []string{"/etag", "/lm", "/changing"}},
		"/etag":     {ETag: `"e1"`},
		"/lm":       {LastModified: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)},
		"/changing": {Changing: true},
	}}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Recrawl.Interval = config.Duration(time.Second)
	// Run until the second round: every page archived twice. A crawl that ended
	// after the first round (recrawl ignored) fails here.
	paths := []string{"/", "/etag", "/lm", "/changing"}
	urls := make([]string, len(paths))
	for i, p := range paths {
		urls[i] = "http://fresh.test" + p
	}
	runUntilArchived(t, cfg, urls, 2)

	// The status file says refetches are waiting, and when the first is due.
	st, err := crawl.ReadStatus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Scheduled < 1 || st.NextDue.IsZero() {
		t.Errorf("status after the stop: scheduled %d, next due %v; want refetches waiting", st.Scheduled, st.NextDue)
	}

	// The first fetch of each page was answered 200, every refetch of a page with
	// validators 304, every other refetch 200; the host's /favicon.ico, a
	// requisite of every page the site does not serve, 404 at each fetch.
	dups := 0
	seen := map[string]bool{}
	for _, r := range farm.Requests() {
		if r.Path == "/robots.txt" {
			continue
		}
		want := 200
		if seen[r.Path] {
			dups++
			if r.Path == "/etag" || r.Path == "/lm" {
				want = 304
			}
		}
		if r.Path == "/favicon.ico" {
			want = 404
		}
		seen[r.Path] = true
		if r.Method != "GET" || r.Status != want {
			t.Errorf("%s %s answered %d, want %d", r.Method, r.Path, r.Status, want)
		}
	}
	auditOK(t, farm, dups)

	// pages.jsonl: the first fetch of a URL has no changed field, every later one
	// says whether the page changed and when it was fetched before.
	last := map[string]string{}
	for _, pg := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
		u := pg["url"].(string)
		path := u[len("http://fresh.test"):]
		prev, refetch := last[u]
		last[u] = pg["fetched_at"].(string)
		if !refetch {
			if _, ok := pg["changed"]; ok || pg["previous_fetch"] != nil {
				t.Errorf("first fetch of %s: changed %v, previous_fetch %v", u, pg["changed"], pg["previous_fetch"])
			}
			continue
		}
		wantChanged, wantStatus := false, 200.0
		switch path {
		case "/changing":
			wantChanged = true
		case "/etag", "/lm":
			wantStatus = 304
		case "/favicon.ico":
			wantStatus = 404
		}
		if pg["changed"] != wantChanged || pg["status"] != wantStatus || pg["previous_fetch"] != prev {
			t.Errorf("refetch of %s: changed %v, status %v, previous_fetch %v; want %v, %v, %s",
				u, pg["changed"], pg["status"], pg["previous_fetch"], wantChanged, wantStatus, prev)
		}
	}

	// The WARC files, read by gowarc: one response per page but /changing, whose
	// every fetch is a response; 304s are server-not-modified revisits of the first
	// capture, unchanged bodies identical-payload-digest revisits.
	type rec struct{ typ, profile, refersTo, refersURI, refersDate, id, date string }
	byURI := map[string][]rec{}
	eachRecord(t, filepath.Join(dir, "warc", "*.warc.gz"), func(r *warc.Record) {
		h := r.Header
		if typ := h.Get("WARC-Type"); typ == "response" || typ == "revisit" {
			u := h.Get("WARC-Target-URI")
			byURI[u] = append(byURI[u], rec{typ, h.Get("WARC-Profile"), h.Get("WARC-Refers-To"),
				h.Get("WARC-Refers-To-Target-URI"), h.Get("WARC-Refers-To-Date"), h.Get("WARC-Record-ID"), h.Get("WARC-Date")})
		}
	})
	for _, p := range paths {
		u := "http://fresh.test" + p
		recs := byURI[u]
		if len(recs) < 2 || recs[0].typ != "response" {
			t.Errorf("%s: %d records, first %+v; want a response, then refetches", u, len(recs), recs)
			continue
		}
		for _, r := range recs[1:] {
			switch p {
			case "/changing":
				if r.typ != "response" {
					t.Errorf("%s: a changed page archived as %+v", u, r)
				}
			case "/etag", "/lm":
				want := rec{"revisit", "http://netpreserve.org/warc/1.1/revisit/server-not-modified", recs[0].id, u, recs[0].date, r.id, r.date}
				if r != want {
					t.Errorf("%s: 304 archived as\n\t%+v\nwant\n\t%+v", u, r, want)
				}
			default:
				want := rec{"revisit", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest", recs[0].id, u, recs[0].date, r.id, r.date}
				if r != want {
					t.Errorf("%s: an unchanged page archived as\n\t%+v\nwant\n\t%+v", u, r, want)
				}
			}
		}
	}
}

// archived counts the whole lines of a pages.jsonl being written, by URL.
func archived(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	n := map[string]int{}
	lines := strings.Split(string(b), "\n")
	for _, l := range lines[:len(lines)-1] { // the last is cut or empty
		var pg struct{ URL string }
		if json.Unmarshal([]byte(l), &pg) == nil {
			n[pg.URL]++
		}
	}
	return n
}

// TestRecrawlResume stops a recrawl after its first round and runs it again: the
// refetches are still scheduled, and they are conditional, from the captures the
// first run left in digests.db.
func TestRecrawlResume(t *testing.T) {
	farm := startFarm(t, []crawltest.Site{{Host: "fresh.test", Pages: map[string]*crawltest.Page{
		"/":     {Links: []string{"/etag"}},
		"/etag": {ETag: `"e1"`},
	}}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Recrawl.Interval = config.Duration(time.Second)
	urls := []string{"http://fresh.test/", "http://fresh.test/etag"}
	runUntilArchived(t, cfg, urls, 1)
	runUntilArchived(t, cfg, urls, 2) // a second run of the same crawl

	seen := map[string]bool{}
	for _, r := range farm.Requests() {
		if r.Path == "/robots.txt" {
			continue
		}
		want := 200
		switch {
		case r.Path == "/favicon.ico":
			want = 404 // the host's icon, a requisite of every page: the site has none
		case seen[r.Path] && r.Path == "/etag":
			want = 304
		}
		seen[r.Path] = true
		if r.Status != want {
			t.Errorf("%s answered %d, want %d", r.Path, r.Status, want)
		}
	}
	for _, pg := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
		if pg["url"] == "http://fresh.test/etag" && pg["status"] == 304.0 && (pg["changed"] != false || pg["previous_fetch"] == nil) {
			t.Errorf("refetch after the restart: %v", pg)
		}
	}
}

// runUntilArchived runs a crawl of cfg until each of urls has at least n lines in
// pages.jsonl (a line is written once its records are durable), then stops it.
func runUntilArchived(t *testing.T, cfg config.Config, urls []string, n int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, done := startCrawl(t, ctx, cfg)
	for {
		got := archived(t, filepath.Join(cfg.DataDir, "pages.jsonl"))
		all := true
		for _, u := range urls {
			all = all && got[u] >= n
		}
		if all {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("crawl ended before it was stopped: %v (pages %v)", err, got)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel = %v, want context.Canceled", err)
	}
}

// eachRecord calls fn with every record of the WARC files matching pattern, read by
// gowarc (an independent reader).
func eachRecord(t *testing.T, pattern string, fn func(*warc.Record)) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no WARC files match %s: %v", pattern, err)
	}
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := warc.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			r, err := rd.ReadRecord()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", filepath.Base(p), err)
			}
			fn(r)
			r.Content.Close()
		}
		rd.Close()
		f.Close()
	}
}
