package crawl_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// scope.max_duration stops a run as a signal does: the fetches in flight finish, the
// rest stays queued, the summary says the time limit stopped it, and the next run goes
// on to the end (issue 28, item 9).
func TestCrawlTimeLimit(t *testing.T) {
	pages := map[string]*crawltest.Page{}
	var links []string
	for i := range 30 {
		p := fmt.Sprintf("/p%d.html", i)
		links = append(links, p)
		pages[p] = &crawltest.Page{}
	}
	pages["/"] = &crawltest.Page{Links: links}
	farm := startFarm(t, []crawltest.Site{{Host: "slow.test", Pages: pages}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	// One host at 100ms a request needs at least 3.2s for its 33 requests (robots.txt,
	// 31 pages, its /favicon.ico): a limit of 300ms always ends the run first, however
	// fast the machine.
	cfg.Politeness.MinDelay = config.Duration(100 * time.Millisecond)
	cfg.Scope.MaxDuration = config.Duration(300 * time.Millisecond)
	sum := runCrawl(t, cfg)
	if !sum.TimeLimitReached || sum.Complete || sum.Queued == 0 || sum.Staged != 0 {
		t.Fatalf("first run: TimeLimitReached %v Complete %v Queued %d Staged %d, want true, false, >0, 0\n%s",
			sum.TimeLimitReached, sum.Complete, sum.Queued, sum.Staged, sum)
	}
	first, _ := pageLines(t, filepath.Join(dir, "pages.jsonl"))
	cfg.Scope.MaxDuration = 0
	cfg.Politeness.MinDelay = config.Duration(testDelay)
	sum = runCrawl(t, cfg)
	if !sum.Complete || sum.TimeLimitReached {
		t.Fatalf("second run: Complete %v TimeLimitReached %v, want true, false\n%s", sum.Complete, sum.TimeLimitReached, sum)
	}
	lines, requisites := pageLines(t, filepath.Join(dir, "pages.jsonl"))
	if len(lines) != 31 || len(first) >= 31 {
		t.Errorf("pages.jsonl: %d lines of pages after the limited run, %d after the second; want fewer than 31, then 31", len(first), len(lines))
	}
	if got := urlsOf(requisites); len(got) != 1 || got[0] != "http://slow.test/favicon.ico" {
		t.Errorf("pages.jsonl: lines of requisites %q, want the host's /favicon.ico", got)
	}
	auditOK(t, farm, 0)
}

// scope.max_depth "seeds" fetches the seeds and follows none of their links, which are
// counted as skipped for depth.
func TestCrawlSeedsOnly(t *testing.T) {
	farm := startFarm(t, []crawltest.Site{{Host: "seeds.test", Pages: map[string]*crawltest.Page{
		"/":       {Links: []string{"/a.html", "/b.html"}},
		"/a.html": {Links: []string{"/c.html"}},
		"/b.html": {},
		"/c.html": {},
	}}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Seeds = append(cfg.Seeds, "http://seeds.test/a.html")
	cfg.Scope.MaxDepth = config.SeedsOnly
	sum := runCrawl(t, cfg)
	pages, requisites := pageLines(t, filepath.Join(dir, "pages.jsonl"))
	got := urlsOf(pages)
	if len(got) != 2 || sum.Skipped["depth"] != 3 || !sum.Complete {
		t.Errorf("fetched %q, skipped %v, complete %v; want the two seeds, 3 links skipped for depth", got, sum.Skipped, sum.Complete)
	}
	// A requisite is no link: the seeds' host icon is fetched at their depth.
	if got := urlsOf(requisites); len(got) != 1 || got[0] != "http://seeds.test/favicon.ico" {
		t.Errorf("requisites fetched %q, want the host's /favicon.ico", got)
	}
}

// A run on a data directory whose crawl is complete fetches nothing and says so, so the
// command can tell how to take a new snapshot (issue 28, item 2).
func TestCrawlAlreadyComplete(t *testing.T) {
	farm := startFarm(t, []crawltest.Site{{Host: "done.test", Pages: map[string]*crawltest.Page{"/": {}}}})
	cfg := testConfig(farm, t.TempDir())
	if sum := runCrawl(t, cfg); !sum.Complete || sum.WasComplete || sum.Pages != 1 {
		t.Fatalf("first run: Complete %v WasComplete %v Pages %d; want true, false, 1", sum.Complete, sum.WasComplete, sum.Pages)
	}
	if sum := runCrawl(t, cfg); !sum.Complete || !sum.WasComplete || sum.Pages != 0 {
		t.Errorf("second run: Complete %v WasComplete %v Pages %d; want true, true, 0", sum.Complete, sum.WasComplete, sum.Pages)
	}
}

// A host whose address is refused by policy (loopback without network.allow_private) is
// skipped as "policy" at its robots.txt, every URL of it, as README's table of reasons
// says: not set aside as if its robots.txt were unreachable (issue 28, item 6).
func TestCrawlRefusedHostIsPolicy(t *testing.T) {
	farm := startFarm(t, []crawltest.Site{{Host: "private.test", Pages: map[string]*crawltest.Page{"/": {}}}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Seeds = append(cfg.Seeds, "http://private.test/other.html")
	cfg.Network.AllowPrivate = false
	sum := runCrawl(t, cfg)
	if sum.Parked != 0 || sum.Skipped["policy"] != 2 || !sum.Complete {
		t.Errorf("parked %d, skipped %v, complete %v; want 0 parked, policy: 2, complete\n%s", sum.Parked, sum.Skipped, sum.Complete, sum)
	}
	lines := readJSONL(t, filepath.Join(dir, "skipped.jsonl"))
	for _, l := range lines {
		if l["reason"] != "policy" || !strings.Contains(fmt.Sprint(l["detail"]), "address not allowed") {
			t.Errorf("skipped.jsonl line %v; want reason policy and the refusal", l)
		}
	}
	if len(lines) != 2 {
		t.Errorf("skipped.jsonl has %d lines, want 2", len(lines))
	}
	if n := len(farm.Requests()); n != 0 {
		t.Errorf("the farm saw %d requests, want none", n)
	}
}

// A crawl whose metrics port is taken fails before it creates its data directory, so a
// failed start leaves nothing to clean up or mistake for a crawl (issue 28, item 8).
func TestCrawlMetricsPortTakenLeavesNoDataDir(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	farm := startFarm(t, []crawltest.Site{{Host: "m.test", Pages: map[string]*crawltest.Page{"/": {}}}})
	dir := filepath.Join(t.TempDir(), "never")
	cfg := testConfig(farm, dir)
	cfg.MetricsAddr = ln.Addr().String()
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "metrics_addr") {
		t.Errorf("Run: %v, want the metrics address refused", err)
	}
	if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("the data directory exists after the failed start: %v", serr)
	}
	if c.Summary().Started {
		t.Error("Summary().Started after a failed start")
	}
}
