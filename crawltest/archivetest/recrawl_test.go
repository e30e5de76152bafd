package archivetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/storage"
)

// TestWarcioReadsRevisits runs two rounds of a recrawl, whose refetches are
// server-not-modified revisits (304 to a conditional GET) and
// identical-payload-digest revisits, and has warcio index its WARC files: it
// must read every record, and agree with our CDXJ on each, revisits included.
func TestWarcioReadsRevisits(t *testing.T) {
	need(t, "node", lookPath("node"))
	need(t, "warcio", filepath.Join(nodeModules(), "warcio", "dist", "cli.js"))
	dir := recrawlTwice(t)
	if departures := warcioAgrees(t, dir); len(departures) != 0 {
		t.Errorf("key departures %q, want none", departures)
	}
	revisits := firstRevisits(t, dir)
	// /etag and /lm answer 304; / is the same body again. /changing is new each time.
	for _, u := range []string{"http://fresh.test/", "http://fresh.test/etag", "http://fresh.test/lm"} {
		if revisits[u] == "" {
			t.Errorf("no revisit indexed for %s (revisits %v)", u, revisits)
		}
	}
	if ts := revisits["http://fresh.test/changing"]; ts != "" {
		t.Errorf("a revisit (first at %s) of a page that changes at every visit", ts)
	}
}

// TestReplayRevisit replays, in ReplayWeb.page in headless Chromium, two
// captures of the second round of a recrawl: /, an identical-payload-digest
// revisit, and /etag, a server-not-modified revisit (answered 304). Each must
// show the page, resolved from the first round's response, at the revisit's
// own timestamp.
//
// ReplayWeb.page 2.5.3 answers a capture by the status of its index line and
// loads no record for a status without a body (wabac.js: 101, 204, 205, 304):
// with the 304 of the WARC file's own index, /etag showed nothing within 3
// minutes. The WACZ's index therefore leaves the status out of a
// server-not-modified revisit's line (storage.PackWACZ): wabac.js then takes
// 200, loads the revisit record and the capture its WARC-Refers-To-Target-URI
// and -Date name, and replays that body at the revisit's timestamp.
func TestReplayRevisit(t *testing.T) {
	need(t, "chromium", chromiumPath())
	need(t, "replaywebpage", filepath.Join(nodeModules(), "replaywebpage"))
	dir := recrawlTwice(t)
	wacz := filepath.Join(t.TempDir(), "recrawl.wacz")
	if _, err := storage.PackWACZFile(wacz, filepath.Join(dir, "warc"), filepath.Join(dir, "pages.jsonl"), storage.WACZOptions{}); err != nil {
		t.Fatal(err)
	}
	revisitTS := firstRevisits(t, dir)
	base, b := replayer(t, wacz)
	for _, c := range []struct{ target, title, link, shot string }{
		{"http://fresh.test/", "fresh.test/", "fresh.test/etag", "replay-revisit-digest.png"},
		{"http://fresh.test/etag", "fresh.test/etag", "fresh.test/", "replay-revisit-not-modified.png"},
	} {
		t.Run(c.target, func(t *testing.T) {
			ts := revisitTS[c.target]
			if ts == "" {
				t.Fatalf("no revisit of %s in the index", c.target)
			}
			frame := replay(t, b, base, c.target, ts, c.title, c.link, filepath.Join(artefacts(t), c.shot))
			if !strings.Contains(frame, "/"+ts+"mp_/") {
				t.Errorf("replayed frame %s, want the revisit's timestamp %s", frame, ts)
			}
		})
	}
}

// firstRevisits reads our index of every WARC file of the crawl in dir and
// returns the timestamp of the first revisit record of each URL that has one.
func firstRevisits(t *testing.T, dir string) map[string]string {
	t.Helper()
	first := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(dir, "warc", "*.warc.gz"+storage.IndexSuffix))
	for _, f := range files {
		for _, l := range readLines(t, f) {
			c := parseCDXJ(t, l)
			if u := c.fields["url"]; c.fields["mime"] == "warc/revisit" && (first[u] == "" || c.timestamp < first[u]) {
				first[u] = c.timestamp
			}
		}
	}
	return first
}

// recrawlTwice crawls a site with recrawl on until every page was archived twice,
// then stops the crawl, and returns its data directory.
func recrawlTwice(t *testing.T) string {
	t.Helper()
	farm, err := crawltest.Start(crawltest.Site{Host: "fresh.test", Pages: map[string]*crawltest.Page{
		"/":         {Links: []string{"/etag", "/lm", "/changing"}},
		"/etag":     {ETag: `"e1"`, Links: []string{"/"}},
		"/lm":       {LastModified: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)},
		"/changing": {Changing: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.Seeds = farm.Seeds()
	cfg.Workers = 4
	cfg.Politeness.MinDelay = config.Duration(20 * time.Millisecond)
	cfg.Network.AllowPrivate = true
	cfg.Network.Resolve = farm.Resolve()
	cfg.Recrawl.Interval = config.Duration(time.Second)
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder // read only once Run has returned
	c.Stderr = &log
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	pages := []string{"/", "/etag", "/lm", "/changing"}
	for {
		n, err := archivedTimes(filepath.Join(dir, "pages.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		twice := true
		for _, p := range pages {
			twice = twice && n["http://fresh.test"+p] >= 2
		}
		if twice {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("recrawl ended before it was stopped: %v (pages %v)\n%s", err, n, log.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("recrawl stopped: %v, want context.Canceled", err)
	}
	return dir
}

// archivedTimes counts the whole lines of pages.jsonl by URL; a line is written
// once its records are durable.
func archivedTimes(path string) (map[string]int, error) {
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	n := map[string]int{}
	lines := strings.Split(string(b), "\n")
	for _, l := range lines[:len(lines)-1] { // the last is cut or empty
		var pg struct{ URL string }
		if err := json.Unmarshal([]byte(l), &pg); err != nil {
			return nil, fmt.Errorf("pages.jsonl: %w", err)
		}
		n[pg.URL]++
	}
	return n, nil
}
