package crawl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl/crawltest"
)

// TestOneStorageWaitPerPage crawls a farm and counts the durability waits of the
// storage writers: a page's WARC records and its pages.jsonl line are made durable by
// one group-commit wait, not one per file (the frontier's commit comes after, as
// before). robots.txt exchanges, which have no pages.jsonl line, wait once each too.
func TestOneStorageWaitPerPage(t *testing.T) {
	farm, err := crawltest.Start(crawltest.Generate(crawltest.GenerateOptions{
		Seed: 7, Hosts: 6, PagesPerHost: 15, LinksPerPage: 5, PageSize: 2 << 10, CrossHostLinks: 0.2,
	})...)
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()
	cfg := DefaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.Seeds = farm.Seeds()
	cfg.Workers = 8
	cfg.Network.AllowPrivate = true
	cfg.Network.Resolve = farm.Resolve()
	cfg.Politeness.MinDelay = Duration(time.Millisecond)
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = new(strings.Builder)
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	sum := c.Summary()
	if !sum.Complete || len(sum.Skipped) > 0 {
		t.Fatalf("want a complete crawl with nothing skipped:\n%s", sum)
	}
	b, err := os.ReadFile(filepath.Join(cfg.DataDir, "pages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := int64(bytes.Count(b, []byte{'\n'}))
	if lines != int64(len(farm.Expected())) {
		t.Fatalf("%d pages.jsonl lines, the farm has %d pages", lines, len(farm.Expected()))
	}
	ws := c.warc.Stats()
	waits := map[string]uint64{
		"warc":          ws.Waits,
		"pages.jsonl":   c.pages.SyncStats().Waits,
		"skipped.jsonl": c.skipped.SyncStats().Waits,
		"group":         c.commit.SyncStats().Waits,
	}
	var total uint64
	for _, n := range waits {
		total += n
	}
	if want := uint64(lines + ws.Robots); total != want {
		t.Errorf("%d storage waits (%v) for %d pages and %d robots.txt: want one each, %d",
			total, waits, lines, ws.Robots, want)
	}
}
