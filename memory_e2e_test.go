package crawl

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// TestHostileFarmMemory crawls two sites of every hostile kind (gzip bombs, pages of
// 8 MiB without Content-Length, one 8 MiB text run, deep nesting, tag soup) with 16
// workers and a budget of 16 MiB in flight: the crawl completes, finds the page each
// hostile page links to, never holds more than the budget while several pages hold
// bytes, and marks the hostile pages truncated in pages.jsonl.
func TestHostileFarmMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("serves and parses tens of megabytes")
	}
	farm, err := crawltest.Start(crawltest.HostileSites(2, 8<<20)...)
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Seeds = farm.Seeds()
	cfg.Workers = 16
	cfg.Network.AllowPrivate = true
	cfg.Network.Resolve = farm.Resolve()
	cfg.Politeness.MinDelay = config.Duration(time.Millisecond)
	cfg.Fetch.MaxBytesInFlight = 16 << 20
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = new(strings.Builder)
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sum := c.Summary(); !sum.Complete {
		t.Fatalf("crawl not complete: %s", sum)
	}
	if c.mem.shared > int64(cfg.Fetch.MaxBytesInFlight) || c.mem.peak == 0 {
		t.Errorf("held %d bytes across pages (peak %d), budget %d", c.mem.shared, c.mem.peak, cfg.Fetch.MaxBytesInFlight)
	}
	if c.mem.held != 0 || len(c.mem.claims) != 0 {
		t.Errorf("%d bytes and %d claims left in the budget after the crawl", c.mem.held, len(c.mem.claims))
	}

	f, err := os.Open(filepath.Join(cfg.DataDir, "pages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	truncated := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p struct {
			URL       string `json:"url"`
			Truncated bool   `json:"truncated"`
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		truncated[p.URL] = p.Truncated
	}
	for _, kind := range crawltest.HostileKinds {
		for _, host := range []string{kind + "-0.test", kind + "-1.test"} {
			home, next := "http://"+host+"/", "http://"+host+"/next.html"
			if tr, ok := truncated[home]; !ok || !tr {
				t.Errorf("%s: in pages.jsonl %v, truncated %v; want true, true", home, ok, tr)
			}
			if tr, ok := truncated[next]; !ok || tr {
				t.Errorf("%s: in pages.jsonl %v, truncated %v; want true, false", next, ok, tr)
			}
		}
	}
}
