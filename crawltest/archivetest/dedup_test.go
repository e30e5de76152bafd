package archivetest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// TestWarcioReadsDedup crawls a site, then crawls it again into a new data
// directory with dedup_from naming the first: warcio must read every record of
// the second crawl's WARC files, whose unchanged pages are identical-payload
// revisits of the first crawl's records, and agree with our CDXJ on each.
func TestWarcioReadsDedup(t *testing.T) {
	need(t, "node", lookPath("node"))
	need(t, "warcio", filepath.Join(nodeModules(), "warcio", "dist", "cli.js"))
	site := crawltest.Site{Host: "again.test", Pages: map[string]*crawltest.Page{
		"/":     {Links: []string{"/etag", "/lm"}},
		"/etag": {ETag: `"e1"`, Links: []string{"/"}},
		"/lm":   {LastModified: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)},
	}}
	first := dedupCrawl(t, site, nil)
	second := dedupCrawl(t, site, []string{first})
	if departures := warcioAgrees(t, second); len(departures) != 0 {
		t.Errorf("key departures %q, want none", departures)
	}
	revisits := firstRevisits(t, second)
	for _, u := range []string{"http://again.test/", "http://again.test/etag", "http://again.test/lm"} {
		if revisits[u] == "" {
			t.Errorf("no revisit of %s in the second crawl (revisits %v)", u, revisits)
		}
	}
}

// dedupCrawl crawls site into a new data directory, deduplicating against the
// crawls of from, and returns the directory.
func dedupCrawl(t *testing.T, site crawltest.Site, from []string) string {
	t.Helper()
	farm, err := crawltest.Start(site)
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Seeds = farm.Seeds()
	cfg.Politeness.MinDelay = config.Duration(20 * time.Millisecond)
	cfg.Network.AllowPrivate = true
	cfg.Network.Resolve = farm.Resolve()
	cfg.DedupFrom = from
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder // read only once Run has returned
	c.Stderr = &log
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatalf("crawl: %v\n%s", err, log.String())
	}
	return cfg.DataDir
}
