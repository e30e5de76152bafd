package crawl_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	warc "github.com/internetarchive/gowarc"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/crawltest"
)

// scheduleDay is the length of a round in the schedule tests. Each round is a run of
// the crawl whose clock (Crawler.Now) is that many rounds ahead of the real one, so
// weeks of schedule pass in a second and nothing sleeps.
const scheduleDay = 24 * time.Hour

// scheduleRounds is how many rounds the schedule tests run.
const scheduleRounds = 8

// schedulePages is a site whose pages change on a known schedule (the farm's round,
// crawltest.Page.ChangeEvery), with every kind of validator.
func schedulePages() map[string]*crawltest.Page {
	mod := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	return map[string]*crawltest.Page{
		"/":      {Links: []string{"/every", "/never", "/etag", "/etag3", "/lm", "/lm2", "/none2"}},
		"/every": {ChangeEvery: 1},                    // changes every round, no validators
		"/never": {},                                  // never changes, no validators
		"/etag":  {ETag: `"e"`},                       // never changes, ETag only
		"/etag3": {ETag: `"e3"`, ChangeEvery: 3},      // changes every 3 rounds, ETag only
		"/lm":    {LastModified: mod},                 // never changes, Last-Modified only
		"/lm2":   {LastModified: mod, ChangeEvery: 2}, // changes every 2 rounds, Last-Modified only
		"/none2": {ChangeEvery: 2},                    // changes every 2 rounds, no validators
	}
}

// modelFetch is one fetch of a page as the schedule predicts it.
type modelFetch struct {
	round   int
	status  int    // 200 or 304
	record  string // "response", "revisit" (identical payload) or "not-modified" (304)
	changed bool   // for a refetch: the page differs from its fetch before
}

// modelSchedule predicts, for rounds of scheduleDay, every fetch of every page under
// rc, as README's recrawl section describes the schedule: a page is fetched in the
// first round its due time has come; fixed mode refetches every Interval; adaptive
// mode starts at Interval and multiplies it by 0.8 after a change and 1.4 after none,
// within [MinInterval, MaxInterval]. A page with validators that did not change
// answers 304; one without answers its same body, archived as a revisit.
func modelSchedule(rc crawl.RecrawlConfig, pages map[string]*crawltest.Page, rounds int) map[string][]modelFetch {
	clamp := func(d time.Duration) time.Duration {
		return min(max(d, time.Duration(rc.MinInterval)), time.Duration(rc.MaxInterval))
	}
	out := map[string][]modelFetch{}
	for path, p := range pages {
		var (
			fetched  bool
			interval time.Duration
			due      time.Duration
			version  int
		)
		validators := p.ETag != "" || !p.LastModified.IsZero()
		for r := range rounds {
			now := time.Duration(r) * scheduleDay
			if fetched && due > now {
				continue
			}
			v := 0
			if p.ChangeEvery > 0 {
				v = r / p.ChangeEvery
			}
			f := modelFetch{round: r, status: 200, record: "response"}
			switch {
			case !fetched:
				interval = time.Duration(rc.Interval)
				if rc.Mode == crawl.RecrawlAdaptive {
					interval = clamp(interval)
				}
			default:
				f.changed = v != version
				if !f.changed {
					f.record = "revisit"
					if validators {
						f.status, f.record = 304, "not-modified"
					}
				}
				if rc.Mode == crawl.RecrawlAdaptive {
					rate := 1.4
					if f.changed {
						rate = 0.8
					}
					interval = clamp(time.Duration(float64(interval) * rate))
				}
			}
			fetched, version, due = true, v, now+interval
			out[path] = append(out[path], f)
		}
	}
	return out
}

// fetchesUpTo counts the model's fetches of each URL of host in rounds up to round.
func fetchesUpTo(model map[string][]modelFetch, host string, round int) map[string]int {
	want := map[string]int{}
	for path, fs := range model {
		for _, f := range fs {
			if f.round <= round {
				want["http://"+host+path]++
			}
		}
	}
	return want
}

// runRound runs a crawl of cfg with its clock offset ahead of the real one until
// pages.jsonl holds at least want[u] lines for every u in want, then stops it; it
// returns the lines per URL then. Nothing else may be due in the round: the tests
// check the counts are exact.
func runRound(t *testing.T, cfg crawl.Config, offset time.Duration, want map[string]int) map[string]int {
	t.Helper()
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = testWriter{t}
	c.Now = func() time.Time { return time.Now().Add(offset) }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	pages := filepath.Join(cfg.DataDir, "pages.jsonl")
	for {
		got := archived(t, pages)
		all := true
		for u, n := range want {
			all = all && got[u] >= n
		}
		if all {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("round at +%v: crawl ended before it was stopped: %v (pages %v, want %v)", offset, err, got, want)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel = %v, want context.Canceled", err)
	}
	return archived(t, pages)
}

// TestRecrawlSchedule runs a recrawl of a site whose pages change on a known schedule
// for eight daily rounds, in fixed and in adaptive mode, and checks every fetch against
// the schedule's model: the requests and their statuses (200, or 304 for an unchanged
// page with an ETag or a Last-Modified), one response record per version of a page
// fetched and a revisit for every unchanged fetch (no unchanged body stored twice),
// pages.jsonl's changed and previous_fetch, and the politeness audit.
func TestRecrawlSchedule(t *testing.T) {
	for _, mode := range []string{crawl.RecrawlFixed, crawl.RecrawlAdaptive} {
		t.Run(mode, func(t *testing.T) {
			const host = "sched.test"
			pages := schedulePages()
			farm := startFarm(t, []crawltest.Site{{Host: host, Pages: pages}})
			dir := t.TempDir()
			cfg := testConfig(farm, dir)
			cfg.Recrawl = crawl.RecrawlConfig{Interval: crawl.Duration(scheduleDay), Mode: mode,
				MinInterval: crawl.Duration(scheduleDay), MaxInterval: crawl.Duration(4 * scheduleDay)}
			model := modelSchedule(cfg.Recrawl, pages, scheduleRounds)
			for r := range scheduleRounds {
				farm.SetRound(r)
				want := fetchesUpTo(model, host, r)
				if got := runRound(t, cfg, time.Duration(r)*scheduleDay, want); !mapsEqual(got, want) {
					t.Fatalf("round %d: pages.jsonl lines per URL\n\tgot  %v\n\twant %v", r, got, want)
				}
			}
			checkSchedule(t, farm, dir, host, model)
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkSchedule checks a finished schedule test's requests, WARC records and
// pages.jsonl against the model.
func checkSchedule(t *testing.T, farm *crawltest.Farm, dir, host string, model map[string][]modelFetch) {
	t.Helper()
	// Requests: one robots.txt a round (its cache keeps it 24 hours), and per page
	// the statuses the model says, in order.
	statuses := map[string][]int{}
	robots, dups := 0, 0
	for _, r := range farm.Requests() {
		if r.Path == "/robots.txt" {
			robots++
			continue
		}
		if len(statuses[r.Path]) > 0 {
			dups++
		}
		statuses[r.Path] = append(statuses[r.Path], r.Status)
	}
	if robots != scheduleRounds {
		t.Errorf("robots.txt fetched %d times, want %d (once a round)", robots, scheduleRounds)
	}
	saved, full := 0, 0
	for path, fs := range model {
		var want []int
		for _, f := range fs {
			want = append(want, f.status)
			if f.status == 304 {
				saved++
			} else {
				full++
			}
		}
		if !slices.Equal(statuses[path], want) {
			t.Errorf("%s: statuses %v, want %v", path, statuses[path], want)
		}
	}
	t.Logf("%d requests over %d rounds: %d answered with a body, %d 304 without one; %d robots.txt",
		full+saved, scheduleRounds, full, saved, robots)
	auditOK(t, farm, dups)

	// WARC records, read by gowarc: a response for every new version, a revisit for
	// every unchanged one.
	records := map[string][]string{}
	digests := map[string]map[string]bool{}
	eachRecord(t, filepath.Join(dir, "warc", "*.warc.gz"), func(r *warc.Record) {
		h := r.Header
		u, ok := strings.CutPrefix(h.Get("WARC-Target-URI"), "http://"+host)
		if !ok {
			return
		}
		switch h.Get("WARC-Type") {
		case "response":
			records[u] = append(records[u], "response")
			if digests[u] == nil {
				digests[u] = map[string]bool{}
			}
			if d := h.Get("WARC-Payload-Digest"); digests[u][d] {
				t.Errorf("%s: body %s stored twice", u, d)
			} else {
				digests[u][d] = true
			}
		case "revisit":
			if strings.HasSuffix(h.Get("WARC-Profile"), "server-not-modified") {
				records[u] = append(records[u], "not-modified")
			} else {
				records[u] = append(records[u], "revisit")
			}
		}
	})
	for path, fs := range model {
		var want []string
		for _, f := range fs {
			want = append(want, f.record)
		}
		if !slices.Equal(records[path], want) {
			t.Errorf("%s: records %v, want %v", path, records[path], want)
		}
	}

	// pages.jsonl: changed as the model says, previous_fetch the fetch before (a 304
	// included).
	lines := map[string][]map[string]any{}
	for _, pg := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
		path := strings.TrimPrefix(pg["url"].(string), "http://"+host)
		lines[path] = append(lines[path], pg)
	}
	for path, fs := range model {
		got := lines[path]
		if len(got) != len(fs) {
			continue // reported above
		}
		for i, f := range fs {
			pg := got[i]
			if i == 0 {
				if _, ok := pg["changed"]; ok {
					t.Errorf("%s: first fetch has changed %v", path, pg["changed"])
				}
				continue
			}
			if pg["changed"] != f.changed || pg["previous_fetch"] != got[i-1]["fetched_at"] || pg["status"] != float64(f.status) {
				t.Errorf("%s round %d: changed %v, previous_fetch %v, status %v; want %v, %v, %d",
					path, f.round, pg["changed"], pg["previous_fetch"], pg["status"], f.changed, got[i-1]["fetched_at"], f.status)
			}
		}
	}
}

// TestRecrawlScheduleModel pins the adaptive model the schedule test checks the
// crawler against to a schedule worked out by hand, so that the model cannot drift
// with the code it checks.
func TestRecrawlScheduleModel(t *testing.T) {
	rc := crawl.RecrawlConfig{Interval: crawl.Duration(scheduleDay), Mode: crawl.RecrawlAdaptive,
		MinInterval: crawl.Duration(scheduleDay), MaxInterval: crawl.Duration(4 * scheduleDay)}
	model := modelSchedule(rc, schedulePages(), scheduleRounds)
	rounds := func(path string) string {
		var s []string
		for _, f := range model[path] {
			s = append(s, fmt.Sprintf("%d:%d", f.round, f.status))
		}
		return strings.Join(s, " ")
	}
	for path, want := range map[string]string{
		// Unchanged: 1 day, then 1.4, 1.96, 2.744 days.
		"/never": "0:200 1:200 3:200 5:200",
		"/etag":  "0:200 1:304 3:304 5:304",
		// Changed every round: held at the 1-day minimum.
		"/every": "0:200 1:200 2:200 3:200 4:200 5:200 6:200 7:200",
		// Changes in rounds 3 and 6: 1.4 days (due 2.4), then 1.12 (due 4.12), then
		// 1.568 (due 6.568).
		"/etag3": "0:200 1:304 3:200 5:304 7:200",
		// Changes in rounds 2, 4 and 6: 1.4 (due 2.4), 1.12 (due 4.12), 1 (due 6), 1
		// (due 7), then unchanged.
		"/lm2":   "0:200 1:304 3:200 5:200 6:200 7:304",
		"/none2": "0:200 1:200 3:200 5:200 6:200 7:200",
	} {
		if got := rounds(path); got != want {
			t.Errorf("%s: model fetches %s, want %s", path, got, want)
		}
	}
	var paths []string
	for p := range model {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) != len(schedulePages()) {
		t.Errorf("model covers %v", paths)
	}
}
