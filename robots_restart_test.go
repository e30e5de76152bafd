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

// cutLine is a "robots.txt fetch cut by the last stop" line of crawl.log.
type cutLine struct {
	Until       time.Time `json:"until"`        // when the host may be contacted again
	CountedFrom time.Time `json:"counted_from"` // the latest the cut request can have ended
}

// cutLines returns the "robots.txt fetch cut by the last stop" lines of crawl.log, in
// order.
func cutLines(t *testing.T, logPath string) []cutLine {
	t.Helper()
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []cutLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Msg string `json:"msg"`
			cutLine
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && strings.HasPrefix(line.Msg, "robots.txt fetch cut by the last stop") {
			out = append(out, line.cutLine)
		}
	}
	return out
}

// TestRestartDuringRobotsHold: a run killed while its robots.txt request was out makes
// the next run wait the backoff after a connection error before it asks the host
// again. A run stopped during that wait, before its own request went out, must not
// make the run after it wait again from its own start: it sent nothing, and the answer
// it waited for had ended before it began. (The mark was set while a fetch waited for
// its host's turn, so every restart less than the wait apart kept the host from ever
// being crawled.)
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
	const backoff = 5 * time.Second // at least 3.75 s with jitter: run 2 is stopped within it
	cfg.Politeness.BackoffBase = config.Duration(backoff)
	cfg.Politeness.BackoffMax = config.Duration(backoff) // at least backoff_base

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

	// Run 2, stopped while the host waits.
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
		if _, err := os.Stat(logPath); err == nil && len(cutLines(t, logPath)) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("run 2 did not make the host wait")
		}
	}
	cancel()
	<-c.Done()
	if n := len(farm.Requests()); n != 1 {
		t.Fatalf("run 2 sent %d requests during the wait, want none (1 in all)", n)
	}

	// Run 3 counts the wait from when run 2 saw the mark, not from its own start.
	start3 := time.Now()
	runCrawl(t, cfg)
	cuts := cutLines(t, logPath)
	if len(cuts) > 1 {
		if from := cuts[1].CountedFrom; !from.Before(start3) {
			t.Errorf("run 3 counted the wait from %v, after its own start %v: run 2's stop counted as a cut fetch", from, start3)
		}
		if until, from := cuts[1].Until, cuts[1].CountedFrom; until.After(from.Add(backoff)) {
			t.Errorf("run 3 made the host wait until %v, more than the backoff (%v) after %v", until, backoff, from)
		}
	}
	r := crawltest.Audit(farm, crawltest.AuditOptions{Agent: "politecrawl", MinDelay: 10 * time.Millisecond,
		Tolerance: time.Millisecond, MinCoverage: 1})
	if err := r.Err(); err != nil {
		t.Errorf("audit over the three runs: %v", err)
	}
}
