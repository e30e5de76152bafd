package crawl_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/robots"
)

// heldUntil returns the "until" of every "robots.txt fetch cut by the last stop" line
// of crawl.log, in order.
func heldUntil(t *testing.T, logPath string) []time.Time {
	t.Helper()
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []time.Time
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Msg   string    `json:"msg"`
			Until time.Time `json:"until"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && strings.HasPrefix(line.Msg, "robots.txt fetch cut by the last stop") {
			out = append(out, line.Until)
		}
	}
	return out
}

// TestRestartDuringRobotsHold: a run killed while its robots.txt request was out holds
// the host back max_delay at the next start. A run stopped during that hold, before
// its own request went out, must not hold the host again from its own start at the
// run after: it sent nothing, and the answer it waited for had ended before it began.
// (The mark was set while a fetch waited for its host's turn, so every restart less
// than max_delay apart kept the host from ever being crawled.)
func TestRestartDuringRobotsHold(t *testing.T) {
	farm := startFarm(t, []crawltest.Site{{
		Host:   "held.test",
		Robots: &crawltest.Robots{Body: "User-agent: *\nDisallow: /private/\n"},
		Pages:  map[string]*crawltest.Page{"/": {Links: []string{"/a.html"}}, "/a.html": {}},
	}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Workers = 1
	cfg.Politeness.MinDelay = config.Duration(10 * time.Millisecond)
	cfg.Politeness.MaxDelay = config.Duration(3 * time.Second)

	// Run 1, killed with its robots.txt request out.
	f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add(context.Background(), frontier.Entry{URL: "http://held.test/"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cache := robots.NewCache(&cutFetcher{farm: farm, cancel: cancel}, f, robots.CacheOptions{})
	if _, err := cache.Get(ctx, "http://held.test"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cut robots.txt fetch: got %v, want context.Canceled", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	// Run 2, stopped while the host is held back.
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = testWriter{t}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go c.Run(ctx)
	logPath := filepath.Join(dir, "crawl.log")
	for deadline := time.Now().Add(crawlWait); ; time.Sleep(5 * time.Millisecond) { // polling for the log line
		if _, err := os.Stat(logPath); err == nil && len(heldUntil(t, logPath)) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("run 2 did not hold the host back")
		}
	}
	cancel()
	<-c.Done()
	if n := len(farm.Requests()); n != 1 {
		t.Fatalf("run 2 sent %d requests during the hold, want none (1 in all)", n)
	}

	// Run 3 holds the host until run 2's hold ends at the latest, not max_delay from
	// its own start.
	start3 := time.Now()
	runCrawl(t, cfg)
	held := heldUntil(t, logPath)
	if len(held) > 1 && !held[1].Before(start3.Add(time.Duration(cfg.Politeness.MaxDelay))) {
		t.Errorf("run 3 held the host until %v, max_delay after its own start %v: run 2's stop counted as a cut fetch",
			held[1], start3)
	}
	r := crawltest.Audit(farm, crawltest.AuditOptions{Agent: "politecrawl", MinDelay: 10 * time.Millisecond,
		Tolerance: time.Millisecond, MinCoverage: 1})
	if err := r.Err(); err != nil {
		t.Errorf("audit over the three runs: %v", err)
	}
}
