package audit

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl/storage"
)

// t0 is the start of every synthetic crawl.
var t0 = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

// fetch is one exchange of a synthetic crawl.
type fetch struct {
	uri    string
	at     time.Duration // start, after t0
	dur    time.Duration // until the response's end
	status int           // 0: 200
	body   string
	header string // extra response header lines, each ending in \r\n
}

// at is a shorthand for durations in seconds, to the millisecond.
func at(s float64) time.Duration { return time.Duration(math.Round(s*1000)) * time.Millisecond }

// baseline is a polite crawl of three hosts: a.test asks for a Crawl-delay of 2 s and
// keeps /private/ out; b.test and c.test ask for nothing; the crawler's min delay is 1 s.
func baseline() []fetch {
	return []fetch{
		{uri: "http://a.test/robots.txt", at: at(0), dur: at(0.01), body: "User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n"},
		{uri: "http://b.test/robots.txt", at: at(0.005), dur: at(0.01), body: "User-agent: *\nAllow: /\n"},
		{uri: "http://c.test/robots.txt", at: at(0.007), dur: at(0.01), status: 404, body: "not found"},
		{uri: "http://a.test/", at: at(2.01), dur: at(0.1), body: "a home"},
		{uri: "http://b.test/", at: at(1.015), dur: at(0.2), body: "b home"},
		{uri: "http://c.test/", at: at(1.017), dur: at(0.05), body: "c home"},
		{uri: "http://b.test/1", at: at(2.215), dur: at(0.2), body: "b1"},
		{uri: "http://a.test/1", at: at(4.11), dur: at(0.1), body: "a1"},
		{uri: "http://b.test/2", at: at(3.415), dur: at(0.2), body: "b2"},
		{uri: "http://c.test/1", at: at(2.067), dur: at(0.05), body: "c1"},
		{uri: "http://a.test/2", at: at(6.21), dur: at(0.1), body: "a2"},
	}
}

// writeCrawl writes fetches as politecrawl would (request, response, metadata with
// the response's end) into a WARC file in a new directory, and returns the directory.
func writeCrawl(t testing.TB, fetches []fetch) string {
	t.Helper()
	dir := t.TempDir()
	w, err := storage.OpenWARC(storage.WARCOptions{Dir: dir, NoSync: true, Now: func() time.Time { return t0 },
		Config: map[string]string{"user-agent": "politecrawl/0.1 (+https://example.org)", "min-delay": "1s", "per-host": "1", "backoff-min": "3.75s"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fetches {
		if err := writeFetch(w, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFetch(w *storage.WARCWriter, f fetch) error {
	host, path, _ := strings.Cut(strings.TrimPrefix(f.uri, "http://"), "/")
	status := f.status
	if status == 0 {
		status = 200
	}
	start := t0.Add(f.at)
	ex := &storage.Exchange{
		TargetURI: f.uri,
		IP:        "127.0.0.1",
		Date:      start,
		Request:   []byte(fmt.Sprintf("GET /%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: politecrawl/0.1\r\n\r\n", path, host)),
		ResponseHeader: []byte(fmt.Sprintf("HTTP/1.1 %d X\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n%s\r\n",
			status, len(f.body), f.header)),
		Body:     []byte(f.body),
		Metadata: &storage.Metadata{TargetURI: f.uri, Timing: &storage.Timing{End: start.Add(f.dur), Delay: time.Second, DelaySource: "min-delay"}},
	}
	_, err := w.WriteExchange(context.Background(), ex)
	return err
}

// auditDir audits dir with opts.
func auditDir(t testing.TB, dir string, opts Options) *Report {
	t.Helper()
	a := New(opts)
	if err := a.ReadPath(dir); err != nil {
		t.Fatal(err)
	}
	return a.Report()
}

// kindsOf lists the kinds of vs, one entry per violation.
func kindsOf(vs []*Violation) []Kind {
	var ks []Kind
	for _, v := range vs {
		ks = append(ks, v.Kind)
	}
	return ks
}

func TestBaselineIsPolite(t *testing.T) {
	rep := auditDir(t, writeCrawl(t, baseline()), Options{})
	if !rep.OK() || len(rep.Undecided) != 0 || len(rep.Unchecked) != 0 {
		t.Fatalf("baseline: violations %v, undecided %v, unchecked %v", rep.Violations, rep.Undecided, rep.Unchecked)
	}
	s := rep.Settings
	if s.Agent != "politecrawl" || s.MinDelay != Millis(time.Second) || s.PerHost != 1 || s.Backoff != Millis(3750*time.Millisecond) {
		t.Errorf("settings from the warcinfo record: %+v", s)
	}
	if rep.Exchanges != 11 || rep.Robots != 3 || len(rep.Hosts) != 3 {
		t.Errorf("%d exchanges, %d robots fetches, %d hosts; want 11, 3, 3", rep.Exchanges, rep.Robots, len(rep.Hosts))
	}
	a := rep.Hosts[0]
	if a.Host != "a.test" || a.Gaps != 3 || *a.SmallestGap != Millis(2*time.Second) {
		t.Errorf("a.test figures: %+v", a)
	}
}

// TestPlanted plants one violation in the baseline at a time: each is found, and
// nothing else.
func TestPlanted(t *testing.T) {
	tests := []struct {
		name   string
		change func([]fetch) []fetch
		opts   Options
		want   Kind
		url    string
		check  func(*testing.T, *Violation)
	}{
		{
			name: "disallowed path fetched",
			change: func(fs []fetch) []fetch {
				return append(fs, fetch{uri: "http://a.test/private/x", at: at(8.31), dur: at(0.1), body: "secret"})
			},
			want: KindDisallowed, url: "http://a.test/private/x",
			check: func(t *testing.T, v *Violation) {
				if !strings.Contains(v.Detail, "disallow: /private/") || len(v.Records) != 2 || v.Records[1].Type != "response" {
					t.Errorf("detail %q, records %+v", v.Detail, v.Records)
				}
			},
		},
		{
			name: "gap shorter than Crawl-delay",
			change: func(fs []fetch) []fetch {
				return append(fs, fetch{uri: "http://a.test/3", at: at(7.81), dur: at(0.1), body: "a3"}) // 1.5 s after a/2's end
			},
			want: KindGap, url: "http://a.test/3",
			check: func(t *testing.T, v *Violation) {
				if v.Source != "crawl-delay" || v.Required != Millis(2*time.Second) || v.Measured != Millis(1500*time.Millisecond) ||
					v.Records[1].Type != "response" || v.Records[0].Type != "request" {
					t.Errorf("gap violation: %+v", v)
				}
			},
		},
		{
			name: "two overlapping requests",
			change: func(fs []fetch) []fetch {
				fs[8].at = at(2.3) // b/2 starts while b/1 (2.215 to 2.415) is in flight
				return fs
			},
			want: KindOverlap, url: "http://b.test/2",
			check: func(t *testing.T, v *Violation) {
				if !strings.Contains(v.Records[1].ID, "urn:uuid") || v.Scope != "host" {
					t.Errorf("overlap violation: %+v", v)
				}
			},
		},
		{
			name: "robots.txt fetched late",
			change: func(fs []fetch) []fetch {
				fs[2].at = at(3.2) // c.test's robots.txt after its first two pages
				return fs
			},
			want: KindRobotsLate, url: "http://c.test/",
		},
		{
			name: "Retry-After not waited for",
			change: func(fs []fetch) []fetch {
				return append(fs, fetch{uri: "http://b.test/3", at: at(4.615), dur: at(0.01), status: 503, header: "Retry-After: 5\r\n"},
					fetch{uri: "http://b.test/3", at: at(7.625), dur: at(0.01), body: "b3"})
			},
			want: KindGap, url: "http://b.test/3",
			check: func(t *testing.T, v *Violation) {
				if v.Source != "retry-after" || v.Required != Millis(5*time.Second) {
					t.Errorf("retry-after violation: %+v", v)
				}
			},
		},
		{
			name: "no backoff after a 503",
			change: func(fs []fetch) []fetch {
				return append(fs, fetch{uri: "http://b.test/3", at: at(4.615), dur: at(0.01), status: 503},
					fetch{uri: "http://b.test/3", at: at(6.625), dur: at(0.01), body: "b3"})
			},
			want: KindBackoff, url: "http://b.test/3",
		},
		{
			name: "outside Visit-time",
			change: func(fs []fetch) []fetch {
				fs[1].body = "User-agent: *\nVisit-time: 0100-0200\n"
				return fs
			},
			want: KindVisitTime, url: "http://b.test/",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := auditDir(t, writeCrawl(t, tt.change(baseline())), tt.opts)
			got := kindsOf(rep.Violations)
			if tt.want == KindVisitTime {
				// Every request to b.test is outside the window; nothing else is found.
				if len(got) != 3 || slices.ContainsFunc(got, func(k Kind) bool { return k != KindVisitTime }) {
					t.Fatalf("violations %v, want 3 visit-time", rep.Violations)
				}
				return
			}
			if len(got) != 1 || got[0] != tt.want || rep.Violations[0].URL != tt.url {
				t.Fatalf("violations %v, want one %s of %s", rep.Violations, tt.want, tt.url)
			}
			if len(rep.Undecided) != 0 {
				t.Errorf("undecided %v, want none", rep.Undecided)
			}
			if tt.check != nil {
				tt.check(t, rep.Violations[0])
			}
		})
	}
}

// TestRobotsRedirect follows a robots.txt redirect to another host: the hop is a robots
// fetch (no robots-late on its host), and its rules apply to the first host.
func TestRobotsRedirect(t *testing.T) {
	fs := []fetch{
		{uri: "http://a.test/robots.txt", at: at(0), dur: at(0.01), status: 301, header: "Location: http://r.test/shared-robots.txt\r\n"},
		{uri: "http://r.test/shared-robots.txt", at: at(0.02), dur: at(0.01), body: "User-agent: *\nDisallow: /no\n"},
		{uri: "http://a.test/yes", at: at(1.02), dur: at(0.01), body: "y"},
		{uri: "http://a.test/no", at: at(2.04), dur: at(0.01), body: "n"},
	}
	rep := auditDir(t, writeCrawl(t, fs), Options{})
	if got := kindsOf(rep.Violations); len(got) != 1 || got[0] != KindDisallowed || rep.Violations[0].URL != "http://a.test/no" {
		t.Fatalf("violations %v, want one disallowed of http://a.test/no", rep.Violations)
	}
	if rep.Robots != 2 {
		t.Errorf("%d robots fetches, want 2 (the hop counts)", rep.Robots)
	}
}

// TestSecondPrecision audits records dated to the second with no response end, as
// wget writes them: a violation is proven only when even the time between the starts
// is too short, the rest is undecided or not checked, and the report says why.
func TestSecondPrecision(t *testing.T) {
	var b strings.Builder
	n := 0
	add := func(uri, date, status, body string) {
		n++
		host, path, _ := strings.Cut(strings.TrimPrefix(uri, "http://"), "/")
		req := fmt.Sprintf("GET /%s HTTP/1.1\r\nUser-Agent: Wget/1.21.4\r\nHost: %s\r\n\r\n", path, host)
		resp := fmt.Sprintf("HTTP/1.1 %s\r\nContent-Length: %d\r\n\r\n%s", status, len(body), body)
		fmt.Fprintf(&b, "WARC/1.0\r\nWARC-Type: request\r\nWARC-Target-URI: <%s>\r\nWARC-Date: %s\r\nWARC-Record-ID: <urn:uuid:req-%d>\r\nWARC-Concurrent-To: <urn:uuid:resp-%d>\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
			uri, date, n, n, len(req), req)
		fmt.Fprintf(&b, "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: <%s>\r\nWARC-Date: %s\r\nWARC-Record-ID: <urn:uuid:resp-%d>\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
			uri, date, n, len(resp), resp)
	}
	add("http://w.test/robots.txt", "2026-11-27T10:00:00Z", "200 OK", "User-agent: *\nCrawl-delay: 2\n")
	add("http://w.test/", "2026-11-27T10:00:00Z", "200 OK", "home")   // same second: certainly < 2 s
	add("http://w.test/1", "2026-11-27T10:00:01Z", "200 OK", "one")   // one second on: certainly < 2 s
	add("http://w.test/2", "2026-11-27T10:00:03Z", "200 OK", "two")   // two: between 1 and 3 s
	add("http://w.test/3", "2026-11-27T10:00:09Z", "200 OK", "three") // six: not decidable without an end
	path := filepath.Join(t.TempDir(), "wget.warc")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := auditDir(t, path, Options{})
	var urls []string
	for _, v := range rep.Violations {
		urls = append(urls, string(v.Kind)+" "+v.URL)
	}
	if want := []string{"gap http://w.test/", "gap http://w.test/1"}; !slices.Equal(urls, want) {
		t.Errorf("violations %v, want %v", urls, want)
	}
	if len(rep.Undecided) != 1 || rep.Undecided[0].URL != "http://w.test/2" {
		t.Errorf("undecided %v, want http://w.test/2", rep.Undecided)
	}
	if rep.Settings.Agent != "" || rep.Settings.AgentFrom != "each request's User-Agent" {
		t.Errorf("settings %+v, want the agent of each request", rep.Settings)
	}
	var checks []string
	for _, u := range rep.Unchecked {
		checks = append(checks, u.Check)
	}
	if !slices.Contains(checks, "gap") || !slices.Contains(checks, "overlap") {
		t.Errorf("unchecked %v, want gap and overlap named", rep.Unchecked)
	}
}

// TestPerIP: two hosts on one IP address, each paced alone but not together, break
// the rules per IP only when the crawl grouped hosts by IP (here the option).
func TestPerIP(t *testing.T) {
	dir := writeCrawl(t, baseline()) // a.test, b.test and c.test all on 127.0.0.1
	if rep := auditDir(t, dir, Options{}); !rep.OK() || len(rep.IPs) != 1 || rep.IPs[0].MaxInFlight < 2 {
		t.Fatalf("without PerIP: violations %v, IPs %+v; want none, and the IP's figures", rep.Violations, rep.IPs)
	}
	rep := auditDir(t, dir, Options{PerIP: true})
	if rep.OK() {
		t.Fatal("with PerIP: no violation, want the hosts' overlaps and gaps on 127.0.0.1")
	}
	for _, v := range rep.Violations {
		if v.Scope != "ip" || v.IP != "127.0.0.1" || (v.Kind != KindGap && v.Kind != KindOverlap) {
			t.Errorf("with PerIP: %s (scope %s), want gaps and overlaps of the IP only", v, v.Scope)
		}
	}
}
