package crawl_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl/audit"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/storage"
)

// busySites are hosts that answer 503 and 429 for a while: with a Retry-After in
// seconds, with one as an HTTP date in the past (the crawler's own delay then rules),
// and without one (the backoff).
func busySites() []crawltest.Site {
	return []crawltest.Site{
		{
			Host:   "busy.test",
			Robots: &crawltest.Robots{Body: "User-agent: *\nAllow: /\n"},
			Pages: map[string]*crawltest.Page{
				"/":      {Links: []string{"/later", "/slow", "/again"}},
				"/later": {Busy: 1, RetryAfter: "1"},
				"/slow":  {Busy: 1, Status: 429, RetryAfter: "Fri, 20 Nov 2026 12:00:00 GMT"},
				"/again": {Busy: 2},
			},
		},
	}
}

// TestAuditFarmCrawl crawls the farm (robots.txt of every kind, redirects to another
// host among them, a Crawl-delay, Retry-After, 429 and 503) and audits it twice: from
// the server's side (crawltest) and from the WARC files alone (package audit). Both
// must find nothing, and agree on the number of requests.
func TestAuditFarmCrawl(t *testing.T) {
	farm := startFarm(t, append(farmSites(), busySites()...))
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	// The adaptive delay (the last response time, when longer) would name itself as
	// the delay in force on a loaded machine, where responses take over 20 ms: the
	// sources checked below are those of the configured delays.
	cfg.Politeness.AdaptiveFactor = 0
	runCrawl(t, cfg)
	server := auditOK(t, farm, 4) // the four busy answers are fetched again

	a := audit.New(audit.Options{})
	if err := a.ReadPath(dir); err != nil {
		t.Fatal(err)
	}
	rep := a.Report()
	for _, v := range rep.Violations {
		t.Errorf("audit: %s", v)
	}
	for _, v := range rep.Undecided {
		t.Errorf("audit could not decide: %s", v)
	}
	for _, u := range rep.Unchecked {
		t.Errorf("audit could not check %s for %d: %s", u.Check, u.Count, u.Why)
	}
	if rep.Exchanges != server.Requests || rep.Robots != server.RobotsRequests {
		t.Errorf("the WARC files hold %d exchanges, %d for robots.txt; the farm saw %d requests, %d for robots.txt",
			rep.Exchanges, rep.Robots, server.Requests, server.RobotsRequests)
	}
	s := rep.Settings
	if s.Agent != "politecrawl" || s.MinDelay != audit.Millis(testDelay) || s.PerHost != 1 || s.Backoff != audit.Millis(7500*time.Microsecond) {
		t.Errorf("settings from the warcinfo record: %+v", s)
	}
	retried := 0
	for _, h := range rep.Hosts {
		if h.Host == "busy.test" {
			retried = h.Requests
		}
	}
	if retried != 1+4+4+1 {
		t.Errorf("busy.test: %d requests in the WARC files, want 10 (robots.txt, 4 pages, 4 busy answers, /favicon.ico)", retried)
	}
	t.Logf("audit: %d records, %d exchanges, %d hosts; server: %d requests, smallest gap ratio %.2f",
		rep.Records, rep.Exchanges, len(rep.Hosts), server.Requests, server.SmallestGapRatio)

	// The evidence in the records: every exchange's metadata record names its response's
	// end and the delay in force with its source.
	delays := timings(t, dir)
	for uri, want := range map[string]string{
		"http://shop.test/item/1":     "crawl-delay 60",
		"http://busy.test/robots.txt": "min-delay 20",
		"http://news.test/robots.txt": "min-delay 20",
	} {
		if got := delays[uri]; !strings.HasPrefix(got, want) {
			t.Errorf("%s: metadata says %q, want %q", uri, got, want)
		}
	}
	// The 503's Retry-After of 1 s, then the 200's min delay. (The backoff after /again's
	// 503s, 7.5 to 10 ms here, stays below the 20 ms min delay.)
	if got := delays["http://busy.test/later"]; !strings.HasPrefix(got, "retry-after 1000; min-delay 20") {
		t.Errorf("http://busy.test/later: metadata says %q, want the 503's Retry-After then the min delay", got)
	}
}

// timings reads the WARC files of the crawl in dir and returns, for each URI, the
// "source delay-ms" of its metadata records, in order, separated by "; ".
func timings(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "warc", "*.warc.gz"))
	out := map[string]string{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		err = storage.ReadRecords(f, func(r *storage.Record) error {
			if r.Get("WARC-Type") != "metadata" {
				return nil
			}
			var source, delay string
			end := false
			sc := bufio.NewScanner(r.Block)
			for sc.Scan() {
				k, v, _ := strings.Cut(sc.Text(), ": ")
				switch k {
				case storage.FieldDelaySource:
					source = v
				case storage.FieldDelay:
					delay = v
				case storage.FieldResponseEnd:
					end = strings.HasSuffix(v, "Z") && len(v) == len("2006-01-02T15:04:05.000Z")
				}
			}
			uri := r.Get("WARC-Target-URI")
			if !end {
				t.Errorf("%s: metadata record without a response-end to the millisecond", uri)
			}
			if out[uri] != "" {
				out[uri] += "; "
			}
			out[uri] += source + " " + delay
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}
