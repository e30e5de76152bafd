package crawl_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/politeness"
	"github.com/politecrawl/crawl/robots"
)

// damageRobotsBucket overwrites the root page of the robots bucket of the frontier at
// path with garbage, as a bad disk sector would, after filling the bucket so that it has
// a page of its own (a small bucket lives inline in its parent's page).
func damageRobotsBucket(t *testing.T, path string) {
	t.Helper()
	f, err := frontier.Open(path, frontier.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		rec := fmt.Sprintf(`{"v":1,"good":{"status":404,"fetched_at":"2026-01-01T00:00:00Z","expires":"2026-01-02T00:00:00Z","final_url":%q}}`,
			fmt.Sprintf("http://filler%d.test/robots.txt?%s", i, strings.Repeat("x", 200)))
		if err := f.SaveRobots(fmt.Sprintf("http://filler%d.test", i), []byte(rec)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	var root uint64
	err = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("robots"))
		if b == nil {
			return errors.New("no robots bucket")
		}
		root = uint64(b.Root())
		return nil
	})
	pageSize := db.Info().PageSize
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if root == 0 {
		t.Fatal("robots bucket is inline: fill it more")
	}
	file, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	garbage := make([]byte, pageSize)
	for i := range garbage {
		garbage[i] = byte(i*131 + 7)
	}
	if _, err := file.WriteAt(garbage, int64(root)*int64(pageSize)); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedRobotsCacheStops crawls over a frontier whose robots bucket is damaged:
// the crawl must stop with a corrupt-database error, not wait for ever as if every
// robots.txt were unreachable.
func TestDamagedRobotsCacheStops(t *testing.T) {
	farm := startFarm(t, crawltest.Generate(crawltest.GenerateOptions{Hosts: 3, PagesPerHost: 3, LinksPerPage: 2, Seed: 5}))
	dir := t.TempDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	damageRobotsBucket(t, filepath.Join(dir, "frontier.db"))

	c, err := crawl.New(testConfig(farm, dir))
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = testWriter{t}
	// The deadline only keeps a regression from hanging the test run.
	ctx, cancel := context.WithTimeout(context.Background(), crawlWait)
	defer cancel()
	err = c.Run(ctx)
	if !errors.Is(err, frontier.ErrCorrupt) {
		t.Fatalf("Run over a damaged robots cache:\n\tgot %v\n\twant an error wrapping frontier.ErrCorrupt", err)
	}
	t.Logf("Run: %v", err)
	if n := len(farm.Requests()); n != 0 {
		t.Errorf("%d requests sent with a damaged robots cache, want 0", n)
	}
}

// TestDamagedRobotsRecordDropped crawls over a frontier holding an unreadable robots.txt
// record: it is dropped with a warning and robots.txt is fetched again.
func TestDamagedRobotsRecordDropped(t *testing.T) {
	farm := startFarm(t, crawltest.Generate(crawltest.GenerateOptions{Hosts: 1, PagesPerHost: 3, LinksPerPage: 2, Seed: 5}))
	dir := t.TempDir()
	f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.SaveRobots("http://site00000.test", []byte("{\"v\":1,\"good\":{\"sta\x00\xff")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := crawl.New(testConfig(farm, dir))
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), crawlWait)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "robots.txt record unreadable") || !strings.Contains(stderr.String(), "site00000.test") {
		t.Errorf("no warning about the dropped record on stderr:\n%s", stderr.String())
	}
	if sum := c.Summary(); !sum.Complete || sum.RobotsFetched != 1 {
		t.Errorf("summary: complete %v, robots.txt fetched %d; want complete, 1", sum.Complete, sum.RobotsFetched)
	}
}

// TestRobotsRedirectPacesTarget: robots.txt of several hosts redirects, after a while, to
// the robots.txt of a busy host B. Every hop to B must wait for B's turn like any other
// request to B: B never sees two requests at once nor a gap below its delay.
func TestRobotsRedirectPacesTarget(t *testing.T) {
	const delay = 10 * time.Millisecond
	b := crawltest.Site{
		Host:    "b.test",
		Robots:  &crawltest.Robots{Body: "User-agent: *\nDisallow: /private/\n"},
		Latency: 150 * time.Millisecond, // B is nearly always busy
		Pages:   map[string]*crawltest.Page{"/": {}},
	}
	for i := range 12 {
		b.Pages["/"].Links = append(b.Pages["/"].Links, fmt.Sprintf("/p%d.html", i))
		b.Pages[fmt.Sprintf("/p%d.html", i)] = &crawltest.Page{}
	}
	sites := []crawltest.Site{b}
	for i := range 5 {
		sites = append(sites, crawltest.Site{
			Host: fmt.Sprintf("a%d.test", i),
			// The redirects answer while B is busy with its pages.
			Robots: &crawltest.Robots{RedirectTo: "http://b.test/robots.txt", Latency: time.Duration(250+60*i) * time.Millisecond},
			Pages:  map[string]*crawltest.Page{"/": {}},
		})
	}
	sites = append(sites,
		// Two hosts whose robots.txt redirect to each other: a loop, unreachable, and
		// no deadlock between their tickets.
		crawltest.Site{Host: "c.test", Robots: &crawltest.Robots{RedirectTo: "http://d.test/robots.txt"},
			Pages: map[string]*crawltest.Page{"/": {}}},
		crawltest.Site{Host: "d.test", Robots: &crawltest.Robots{RedirectTo: "http://c.test/robots.txt"},
			Pages: map[string]*crawltest.Page{"/": {}}},
		// A redirect to the same host waits for that host's delay.
		crawltest.Site{Host: "e.test", Robots: &crawltest.Robots{RedirectTo: "http://e.test/rules.txt"},
			Pages: map[string]*crawltest.Page{"/": {}, "/rules.txt": {ContentType: "text/plain", Body: "User-agent: *\nAllow: /\n"}}},
	)
	farm := startFarm(t, sites)
	cfg := testConfig(farm, t.TempDir())
	cfg.Politeness.MinDelay = config.Duration(delay)
	runCrawl(t, cfg)
	// The auditor exempts robots.txt redirect targets from pacing; this test does not.
	byHost := map[string][]crawltest.Request{}
	for _, req := range farm.Requests() {
		byHost[req.Host] = append(byHost[req.Host], req)
	}
	for host, reqs := range byHost {
		for i, req := range reqs {
			if i == 0 {
				continue
			}
			prev := reqs[i-1]
			if gap := req.Start.Sub(prev.Start); gap+time.Millisecond < delay {
				t.Errorf("%s%s started %v after %s, below the %v delay", host, req.Path, gap, prev.Path, delay)
			}
			for _, earlier := range reqs[:i] {
				if req.Start.Add(time.Millisecond).Before(earlier.End) {
					t.Errorf("%s%s started while %s was in flight (2 requests at once)", host, req.Path, earlier.Path)
				}
			}
		}
	}
	robotsHops := 0
	for _, req := range byHost["b.test"] {
		if req.Path == "/robots.txt" {
			robotsHops++
		}
	}
	if robotsHops != 1+5 {
		t.Errorf("b.test/robots.txt fetched %d times, want 6 (its own and one hop per redirecting host)", robotsHops)
	}
	for _, host := range []string{"c.test", "d.test"} {
		for _, req := range byHost[host] {
			if req.Path != "/robots.txt" {
				t.Errorf("%s%s fetched though its robots.txt redirects in a loop", host, req.Path)
			}
		}
	}
}

// cutFetcher fetches robots.txt from the farm and then fails as a kill would leave it:
// the host has answered, the result never reaches the store.
type cutFetcher struct {
	farm   *crawltest.Farm
	cancel context.CancelFunc
}

func (f *cutFetcher) FetchRobots(ctx context.Context, robotsURL string) (*robots.FetchResult, error) {
	req, err := http.NewRequest(http.MethodGet, robotsURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "politecrawl/"+crawl.Version)
	resp, err := f.farm.Client().Do(req)
	if err == nil {
		resp.Body.Close()
	}
	f.cancel()
	return nil, ctx.Err()
}

// TestCrawlDelayAcrossKillDuringRobots: a run died after the host answered robots.txt
// (with a Crawl-delay) and before the answer was stored. The next run cannot know that
// Crawl-delay: its robots.txt retry waits the backoff after a connection error (here
// backoff_base 1s, at least 750 ms with jitter, above the lost 500 ms), and its pages
// the Crawl-delay of the answer it fetches again.
func TestCrawlDelayAcrossKillDuringRobots(t *testing.T) {
	const crawlDelay = 500 * time.Millisecond
	farm := startFarm(t, []crawltest.Site{{
		Host:   "slow.test",
		Robots: &crawltest.Robots{Body: "User-agent: *\nCrawl-delay: 0.5\n"},
		Delay:  crawlDelay,
		Pages:  map[string]*crawltest.Page{"/": {Links: []string{"/a.html"}}, "/a.html": {}},
	}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Politeness.MinDelay = config.Duration(10 * time.Millisecond)
	cfg.Politeness.BackoffBase = config.Duration(time.Second)
	cfg.Politeness.BackoffMax = config.Duration(time.Second) // at least backoff_base

	// The state the kill leaves: the seed queued, robots.txt fetched (the farm saw
	// it), its rules not in frontier.db.
	f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add(context.Background(), frontier.Entry{URL: "http://slow.test/"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cache := robots.NewCache(&cutFetcher{farm: farm, cancel: cancel}, f, robots.CacheOptions{})
	if _, err := cache.Get(ctx, "http://slow.test"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cut robots.txt fetch: got %v, want context.Canceled", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(farm.Requests()); n != 1 {
		t.Fatalf("the cut run sent %d requests, want 1", n)
	}

	runCrawl(t, cfg)
	r := crawltest.Audit(farm, crawltest.AuditOptions{Agent: "politecrawl", MinDelay: 10 * time.Millisecond,
		Tolerance: time.Millisecond, MinCoverage: 1, MaxDuplicates: 0})
	if err := r.Err(); err != nil {
		t.Errorf("audit over both runs: %v", err)
	}
}

// TestInterruptedRobotsDoesNotHoldWorker: the host whose robots.txt request a kill cut
// is spaced as after a connection error, the backoff (backoff_base 3s: at least 2.25 s
// with jitter) from the next run's start and not max_delay (60 s), and its lease goes
// back to the frontier meanwhile: the only worker crawls another host in that time.
// Before, the host waited max_delay.
func TestInterruptedRobotsDoesNotHoldWorker(t *testing.T) {
	farm := startFarm(t, []crawltest.Site{
		{Host: "cut.test", Robots: &crawltest.Robots{Body: "User-agent: *\nDisallow: /private/\n"},
			Pages: map[string]*crawltest.Page{"/": {}}},
		{Host: "other.test", Robots: &crawltest.Robots{Body: "User-agent: *\nDisallow: /private/\n"},
			Pages: map[string]*crawltest.Page{"/": {Links: []string{"/a.html", "/b.html"}}, "/a.html": {}, "/b.html": {}}},
	})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Workers = 1
	cfg.Politeness.MinDelay = config.Duration(10 * time.Millisecond)
	const backoff, jitter = 3 * time.Second, politeness.DefaultJitter
	cfg.Politeness.BackoffBase = config.Duration(backoff)
	cfg.Politeness.BackoffMax = config.Duration(backoff) // at least backoff_base
	maxDelay := time.Duration(cfg.Politeness.MaxDelay)

	f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cache := robots.NewCache(&cutFetcher{farm: farm, cancel: cancel}, f, robots.CacheOptions{})
	if _, err := cache.Get(ctx, "http://cut.test"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cut robots.txt fetch: got %v, want context.Canceled", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cut := farm.Requests()[0]

	start := time.Now()
	runCrawl(t, cfg)
	var cutAgain time.Time
	var otherLast time.Time
	for _, r := range farm.Requests()[1:] {
		switch r.Host {
		case "cut.test":
			if cutAgain.IsZero() {
				cutAgain = r.Start
			}
		case "other.test":
			otherLast = r.Start
		}
	}
	least := backoff - time.Duration(float64(backoff)*jitter)
	if wait := cutAgain.Sub(start); wait < least {
		t.Errorf("cut.test contacted again %v after the next run began, want at least the backoff's least %v", wait, least)
	}
	if gap := cutAgain.Sub(cut.Start); gap >= maxDelay {
		t.Errorf("cut.test contacted again %v after the cut fetch, want the backoff (%v), not max_delay (%v)", gap, backoff, maxDelay)
	}
	if !otherLast.Before(cutAgain) {
		t.Errorf("other.test was crawled after cut.test's wait (last request at %v, cut.test at %v): the worker waited", otherLast, cutAgain)
	}
}
