package crawl_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	warc "github.com/internetarchive/gowarc"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// scheduleDay is the length of a round in the schedule tests. Each round is a run of
// the crawl whose clock (Crawler.Now) is that many rounds ahead of the real one, so
// weeks of schedule pass in a second and nothing sleeps.
const scheduleDay = 24 * time.Hour

// scheduleRounds is how many rounds the schedule tests run.
const scheduleRounds = 8

// schedulePages is a site whose pages change on a known schedule (the farm's round,
// crawltest.Page.ChangeEvery), with every kind of validator; each page about 16 KB.
func schedulePages() map[string]*crawltest.Page {
	mod := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	pages := map[string]*crawltest.Page{
		"/":      {Links: []string{"/every", "/never", "/etag", "/etag3", "/lm", "/lm2", "/none2"}},
		"/every": {ChangeEvery: 1},                    // changes every round, no validators
		"/never": {},                                  // never changes, no validators
		"/etag":  {ETag: `"e"`},                       // never changes, ETag only
		"/etag3": {ETag: `"e3"`, ChangeEvery: 3},      // changes every 3 rounds, ETag only
		"/lm":    {LastModified: mod},                 // never changes, Last-Modified only
		"/lm2":   {LastModified: mod, ChangeEvery: 2}, // changes every 2 rounds, Last-Modified only
		"/none2": {ChangeEvery: 2},                    // changes every 2 rounds, no validators
	}
	for _, p := range pages {
		p.Size = 16 << 10
	}
	return pages
}

// withHostIcon returns pages and the host's /favicon.ico as the farm serves it
// (crawltest.Site.Icon: no validators, never changed), for the schedule's model: a
// requisite of every page, refetched on a schedule of its own as a page is.
func withHostIcon(pages map[string]*crawltest.Page) map[string]*crawltest.Page {
	m := maps.Clone(pages)
	m["/favicon.ico"] = &crawltest.Page{}
	return m
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
func modelSchedule(rc config.Recrawl, pages map[string]*crawltest.Page, rounds int) map[string][]modelFetch {
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
				if rc.Mode == config.RecrawlAdaptive {
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
				if rc.Mode == config.RecrawlAdaptive {
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
func runRound(t *testing.T, cfg config.Config, offset time.Duration, want map[string]int) map[string]int {
	t.Helper()
	pages := filepath.Join(cfg.DataDir, "pages.jsonl")
	runRoundUntil(t, cfg, offset, func() (bool, string) {
		got := archived(t, pages)
		for u, n := range want {
			if got[u] < n {
				return false, fmt.Sprintf("pages %v, want %v", got, want)
			}
		}
		return true, ""
	})
	return archived(t, pages)
}

// runRoundUntil runs a crawl of cfg with its clock offset ahead of the real one until
// done says so, then stops it. done's text says what is missing.
func runRoundUntil(t *testing.T, cfg config.Config, offset time.Duration, done func() (bool, string)) {
	t.Helper()
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = testWriter{t}
	c.Now = func() time.Time { return time.Now().Add(offset) }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan error, 1)
	go func() { ended <- c.Run(ctx) }()
	// A round takes a fraction of a second; a crawl that never fetches what the
	// round wants must fail rather than hang the test binary.
	giveUp := time.After(2 * time.Minute)
	for {
		ok, missing := done()
		if ok {
			break
		}
		select {
		case err := <-ended:
			t.Fatalf("round at +%v: crawl ended before it was stopped: %v (%s)", offset, err, missing)
		case <-giveUp:
			t.Fatalf("round at +%v: the crawl has not done what the round wants after 2 minutes (%s)", offset, missing)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel = %v, want context.Canceled", err)
	}
}

// TestRecrawlSchedule runs a recrawl of a site whose pages change on a known schedule
// for eight daily rounds, in fixed and in adaptive mode, and checks every fetch against
// the schedule's model: the requests and their statuses (200, or 304 for an unchanged
// page with an ETag or a Last-Modified), one response record per version of a page
// fetched and a revisit for every unchanged fetch (no unchanged body stored twice),
// pages.jsonl's changed and previous_fetch, and the politeness audit.
func TestRecrawlSchedule(t *testing.T) {
	for _, mode := range []string{config.RecrawlFixed, config.RecrawlAdaptive} {
		t.Run(mode, func(t *testing.T) {
			const host = "sched.test"
			pages := schedulePages()
			farm := startFarm(t, []crawltest.Site{{Host: host, Pages: pages, Icon: true}})
			dir := t.TempDir()
			cfg := testConfig(farm, dir)
			cfg.Recrawl = config.Recrawl{Interval: config.Duration(scheduleDay), Mode: mode,
				MinInterval: config.Duration(scheduleDay), MaxInterval: config.Duration(4 * scheduleDay)}
			model := modelSchedule(cfg.Recrawl, withHostIcon(pages), scheduleRounds)
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
	sent, size := 0, map[string]int{} // body bytes sent; a page's size
	for _, r := range farm.Requests() {
		if r.Path == "/robots.txt" {
			robots++
			continue
		}
		sent += r.Bytes
		if r.Status == 200 {
			size[r.Path] = r.Bytes
		}
		if len(statuses[r.Path]) > 0 {
			dups++
		}
		statuses[r.Path] = append(statuses[r.Path], r.Status)
	}
	if robots != scheduleRounds {
		t.Errorf("robots.txt fetched %d times, want %d (once a round)", robots, scheduleRounds)
	}
	saved, full, unconditional := 0, 0, 0
	for path, fs := range model {
		var want []int
		for _, f := range fs {
			want = append(want, f.status)
			unconditional += size[path]
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
	t.Logf("%d requests over %d rounds: %d answered with a body, %d 304 without one; %d robots.txt; "+
		"%d body bytes sent, %d without conditional GET", full+saved, scheduleRounds, full, saved, robots, sent, unconditional)
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
	rc := config.Recrawl{Interval: config.Duration(scheduleDay), Mode: config.RecrawlAdaptive,
		MinInterval: config.Duration(scheduleDay), MaxInterval: config.Duration(4 * scheduleDay)}
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

// TestRecrawlSitemapHints checks that in adaptive mode a sitemap's changefreq and
// lastmod set a page's first interval, that never holds a page at max_interval, and
// that the sitemap itself is read again every interval; each round is a new run, so
// the hints and the schedule survive restarts.
func TestRecrawlSitemapHints(t *testing.T) {
	const host = "hints.test"
	lastmod := time.Now().Add(-10 * scheduleDay).UTC().Format(time.RFC3339) // 10 days stable
	sitemap := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://hints.test/hourly</loc><changefreq>hourly</changefreq></url>
  <url><loc>http://hints.test/weekly</loc><changefreq>weekly</changefreq><lastmod>` + lastmod + `</lastmod></url>
  <url><loc>http://hints.test/never</loc><changefreq>never</changefreq></url>
  <url><loc>http://hints.test/lastmod</loc><lastmod>` + lastmod + `</lastmod></url>
</urlset>
`
	farm := startFarm(t, []crawltest.Site{{
		Host:     host,
		Robots:   &crawltest.Robots{Body: "User-agent: *\nAllow: /\n"},
		Sitemaps: []string{"http://hints.test/sitemap.xml"},
		Pages: map[string]*crawltest.Page{
			"/":            {},
			"/sitemap.xml": {Sitemap: true, Body: sitemap},
			"/hourly":      {},
			"/weekly":      {},
			"/never":       {},
			"/lastmod":     {},
		},
	}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Recrawl = config.Recrawl{Interval: config.Duration(scheduleDay), Mode: config.RecrawlAdaptive,
		MinInterval: config.Duration(time.Hour), MaxInterval: config.Duration(30 * scheduleDay)}
	u := func(p string) string { return "http://" + host + p }
	// Worked out by hand: / (no hint) starts at 1 day, then 1.4 and 1.96, and so does
	// the host's /favicon.ico (404 here), a requisite of every page with no hint
	// either; the sitemap every day; /hourly at 1h, then 1.4h, 1.96h...; /weekly at 7
	// days (its changefreq wins over its lastmod), then 9.8; /lastmod at its age, 10
	// days, then 14; /never at 30 days.
	icon := u("/favicon.ico")
	for _, round := range []struct {
		at   time.Duration
		want map[string]int
	}{
		{0, map[string]int{u("/"): 1, icon: 1, u("/sitemap.xml"): 1, u("/hourly"): 1, u("/weekly"): 1, u("/never"): 1, u("/lastmod"): 1}},
		{2 * time.Hour, map[string]int{u("/"): 1, icon: 1, u("/sitemap.xml"): 1, u("/hourly"): 2, u("/weekly"): 1, u("/never"): 1, u("/lastmod"): 1}},
		{8 * scheduleDay, map[string]int{u("/"): 2, icon: 2, u("/sitemap.xml"): 2, u("/hourly"): 3, u("/weekly"): 2, u("/never"): 1, u("/lastmod"): 1}},
		{11 * scheduleDay, map[string]int{u("/"): 3, icon: 3, u("/sitemap.xml"): 3, u("/hourly"): 4, u("/weekly"): 2, u("/never"): 1, u("/lastmod"): 2}},
		{31 * scheduleDay, map[string]int{u("/"): 4, icon: 4, u("/sitemap.xml"): 4, u("/hourly"): 5, u("/weekly"): 3, u("/never"): 2, u("/lastmod"): 3}},
	} {
		if got := runRound(t, cfg, round.at, round.want); !mapsEqual(got, round.want) {
			t.Fatalf("round at +%v: pages.jsonl lines per URL\n\tgot  %v\n\twant %v", round.at, got, round.want)
		}
	}
	dups := refetches(farm)
	auditOK(t, farm, dups)
}

// recrawlChildEnv, when set, holds the job (JSON) that TestRecrawlChild runs in a
// process of its own, for TestRecrawlKillResume to kill.
const recrawlChildEnv = "POLITECRAWL_RECRAWL_CHILD"

// recrawlJob is a crawl for TestRecrawlChild: farmConfig's arguments, the recrawl
// configuration, and the clock's offset ahead of the real one.
type recrawlJob struct {
	Seeds   []string
	Resolve map[string]string
	DataDir string
	Recrawl config.Recrawl
	Offset  time.Duration
}

// config is the job's crawl configuration.
func (j *recrawlJob) config() config.Config {
	cfg := farmConfig(j.Seeds, j.Resolve, j.DataDir)
	cfg.Recrawl = j.Recrawl
	return cfg
}

// TestRecrawlChild runs the crawl of $POLITECRAWL_RECRAWL_CHILD until it is killed;
// without it, it does nothing.
func TestRecrawlChild(t *testing.T) {
	arg := os.Getenv(recrawlChildEnv)
	if arg == "" {
		t.Skip("the crawl TestRecrawlKillResume kills")
	}
	var job recrawlJob
	if err := json.Unmarshal([]byte(arg), &job); err != nil {
		t.Fatal(err)
	}
	c, err := crawl.New(job.config())
	if err != nil {
		t.Fatal(err)
	}
	c.Now = func() time.Time { return time.Now().Add(job.Offset) }
	t.Fatalf("Run returned: %v", c.Run(context.Background()))
}

// TestRecrawlKillResume runs the adaptive schedule of TestRecrawlSchedule, kills the
// crawl with SIGKILL in the middle of round 3 (in a process of its own), resumes that
// round, and runs the rounds after it: nothing is lost (every fetch the schedule
// wants is archived, whole, in round 3 at most once more for a page whose fetch the
// kill cut), and the rounds after the kill fetch exactly what the schedule says, as if
// the kill had not happened. Politeness holds across the kill.
func TestRecrawlKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a crawl process and kills it")
	}
	const host, killRound = "sched.test", 3
	pages := schedulePages()
	farm := startFarm(t, []crawltest.Site{{Host: host, Pages: pages, Icon: true}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Recrawl = config.Recrawl{Interval: config.Duration(scheduleDay), Mode: config.RecrawlAdaptive,
		MinInterval: config.Duration(scheduleDay), MaxInterval: config.Duration(4 * scheduleDay)}
	model := modelSchedule(cfg.Recrawl, withHostIcon(pages), scheduleRounds)
	var before map[string]int
	for r := range scheduleRounds {
		farm.SetRound(r)
		want := fetchesUpTo(model, host, r)
		offset := time.Duration(r) * scheduleDay
		if r == killRound {
			killDuring(t, farm, recrawlJob{Seeds: cfg.Seeds, Resolve: cfg.Network.Resolve, DataDir: dir, Recrawl: cfg.Recrawl, Offset: offset})
			got := runRound(t, cfg, offset, want)
			// Each page fetched in this round is archived once, or twice when the
			// kill cut its fetch after its pages.jsonl line and before it was done.
			extra := 0
			for u, n := range want {
				if d := got[u] - n; d < 0 || d > 1 || d == 1 && before[u] == n {
					t.Errorf("round %d after the kill: %s archived %d times, want %d (or one more if the kill cut its fetch)", r, u, got[u], n)
				} else {
					extra += d
				}
			}
			if len(got) != len(want) || extra > cfg.Workers {
				t.Errorf("round %d after the kill: lines %v, want %v and at most %d more", r, got, want, cfg.Workers)
			}
			t.Logf("round %d: %d fetches repeated after the kill", r, extra)
			before = got
			continue
		}
		got := runRound(t, cfg, offset, want)
		// After the kill, each round fetches exactly what the schedule says.
		wantNew := fetchesUpTo(model, host, r)
		prevWant := fetchesUpTo(model, host, r-1)
		for u, n := range wantNew {
			if got[u]-before[u] != n-prevWant[u] {
				t.Errorf("round %d: %s fetched %d times, want %d", r, u, got[u]-before[u], n-prevWant[u])
			}
		}
		if len(got) != len(wantNew) {
			t.Errorf("round %d: lines %v, want URLs %v", r, got, wantNew)
		}
		before = got
	}
	checkPagesWhole(t, dir)
	dups := refetches(farm)
	auditOK(t, farm, dups)
}

// killDuring runs job in a process of its own and kills it with SIGKILL once the farm
// has answered two more page requests than when it started.
func killDuring(t *testing.T, farm *crawltest.Farm, job recrawlJob) {
	t.Helper()
	killAfter(t, farm, job, 2)
}

// killAfter is killDuring after n more page requests.
func killAfter(t *testing.T, farm *crawltest.Farm, job recrawlJob, n int) {
	t.Helper()
	pageRequests := func() int {
		n := 0
		for _, r := range farm.Requests() {
			if r.Path != "/robots.txt" {
				n++
			}
		}
		return n
	}
	start := pageRequests()
	killChildWhen(t, job, func() bool { return pageRequests() >= start+n }, fmt.Sprintf("%d page requests of the round", n))
	t.Logf("killed after %d page requests of the round", pageRequests()-start)
}

// killChildWhen runs job in a crawl process (TestRecrawlChild) and kills it with SIGKILL
// once ready says so (polled every millisecond). The test fails if the process ends
// before, or ready is not true within crawlWait; what names what is awaited.
func killChildWhen(t *testing.T, job recrawlJob, ready func() bool, what string) {
	t.Helper()
	arg, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecrawlChild$")
	cmd.Env = append(os.Environ(), recrawlChildEnv+"="+string(arg))
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	giveUp := time.After(crawlWait)
	for !ready() {
		select {
		case err := <-exited:
			t.Fatalf("the crawl process ended before %s: %v\n%s", what, err, out.String())
		case <-giveUp:
			cmd.Process.Kill()
			t.Fatalf("%s did not come in %v\n%s", what, crawlWait, out.String())
		case <-time.After(time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
}

// TestRecrawlUnfinished checks that with recrawl on, URLs that were not fetched come
// back every interval: one robots.txt disallows (skipped.jsonl says so again each
// round, and the farm never sees it) and one that fails on every attempt (tried
// fetch.max_attempts times again each round).
func TestRecrawlUnfinished(t *testing.T) {
	const host = "unfinished.test"
	farm := startFarm(t, []crawltest.Site{{
		Host:   host,
		Robots: &crawltest.Robots{Body: "User-agent: *\nDisallow: /private\n"},
		Pages: map[string]*crawltest.Page{
			"/":        {Links: []string{"/private", "/broken"}},
			"/private": {Disallowed: true},
			"/broken":  {Status: 500},
		},
	}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Recrawl.Interval = config.Duration(scheduleDay)
	attempts := cfg.Fetch.MaxAttempts
	skips := func() map[string]int {
		n := map[string]int{}
		for _, s := range readJSONLMaybe(t, filepath.Join(dir, "skipped.jsonl")) {
			n[strings.TrimPrefix(s["url"].(string), "http://"+host)+" "+s["reason"].(string)]++
		}
		return n
	}
	for r := range 3 {
		want := map[string]int{"/private robots": r + 1, "/broken failed": r + 1}
		runRoundUntil(t, cfg, time.Duration(r)*scheduleDay, func() (bool, string) {
			got := skips()
			return mapsEqual(got, want), fmt.Sprintf("skipped.jsonl %v, want %v", got, want)
		})
		// The round is over once its last skip is written: its farm record is whole.
		broken := 0
		for _, req := range farm.Requests() {
			if req.Path == "/broken" {
				broken++
			}
		}
		if broken != (r+1)*attempts {
			t.Errorf("round %d: /broken requested %d times in all, want %d", r, broken, (r+1)*attempts)
		}
	}
	dups := refetches(farm)
	r := crawltest.Audit(farm, crawltest.AuditOptions{Agent: "politecrawl", MinDelay: testDelay, Tolerance: time.Millisecond, MaxDuplicates: dups})
	if err := r.Err(); err != nil {
		t.Errorf("audit: %v", err)
	}
}

// readJSONLMaybe is readJSONL for a file a running crawl writes: a missing file is
// empty, and a last line not yet whole is left out.
func readJSONLMaybe(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	lines := strings.Split(string(b), "\n")
	for _, l := range lines[:len(lines)-1] {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// refetches counts the farm's requests for a page path it had already answered,
// robots.txt aside: the duplicates a recrawl makes on purpose.
func refetches(farm *crawltest.Farm) int {
	dups := 0
	seen := map[string]bool{}
	for _, r := range farm.Requests() {
		if r.Path != "/robots.txt" && seen[r.Path] {
			dups++
		}
		seen[r.Path] = true
	}
	return dups
}
