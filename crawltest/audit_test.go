package crawltest

import (
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// rudeSites is a small farm for the rude-client cases.
func rudeSites() []Site {
	return []Site{
		{
			Host:   "a.test",
			Robots: &Robots{Body: "User-agent: *\nDisallow: /private/\n"},
			Pages: map[string]*Page{
				"/":               {Links: []string{"/x.html", "/private/p.html"}, NoFollowLinks: []string{"/nf.html"}},
				"/x.html":         {},
				"/private/p.html": {Disallowed: true},
				"/nf.html":        {},
			},
		},
		{Host: "down.test", Robots: &Robots{Status: 500}, Pages: map[string]*Page{"/": {}}},
	}
}

// slowSite asks for an hour between requests.
var slowSite = Site{Host: "slow.test", Robots: &Robots{Body: "User-agent: *\nCrawl-delay: 3600\n"}, Delay: time.Hour,
	Pages: map[string]*Page{"/": {}}}

// get fetches u from the farm with the given User-Agent and Host header
// ("" keeps u's host), reading the whole body.
func get(t *testing.T, f *Farm, u, ua, host string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", ua)
	client := f.Client()
	if host != "" {
		req.Host = host
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body) //nolint:errcheck // a test read
	resp.Body.Close()
}

func kinds(vs []Violation) []Kind {
	var ks []Kind
	for _, v := range vs {
		if !slices.Contains(ks, v.Kind) {
			ks = append(ks, v.Kind)
		}
	}
	slices.Sort(ks)
	return ks
}

func TestAuditRudeClients(t *testing.T) {
	full := AuditOptions{Agent: "politecrawl", Tolerance: time.Millisecond}
	tests := []struct {
		name  string
		urls  []string
		ua    string
		host  string // Host header override
		extra []Site // sites added to rudeSites
		opts  AuditOptions
		want  []Kind
		check func(*testing.T, *Report)
	}{
		{
			name: "polite",
			urls: []string{"http://a.test/robots.txt", "http://a.test/", "http://a.test/x.html"},
			opts: AuditOptions{Agent: "politecrawl", MinCoverage: 1},
			check: func(t *testing.T, r *Report) {
				if r.Coverage != 1 || len(r.Missing) != 0 || r.Requests != 3 || r.RobotsRequests != 1 {
					t.Errorf("report %+v: want coverage 1, 3 requests, 1 for robots.txt", r)
				}
			},
		},
		{
			name: "robots.txt not first",
			urls: []string{"http://a.test/", "http://a.test/robots.txt", "http://a.test/x.html"},
			want: []Kind{KindRobotsFirst},
		},
		{
			name: "disallowed page",
			urls: []string{"http://a.test/robots.txt", "http://a.test/private/p.html"},
			want: []Kind{KindDisallowed},
		},
		{
			name: "disallowed page, differently encoded",
			urls: []string{"http://a.test/robots.txt", "http://a.test/%70rivate/p.html"},
			want: []Kind{KindDisallowed},
		},
		{
			name: "host with robots.txt 500",
			urls: []string{"http://down.test/robots.txt", "http://down.test/"},
			want: []Kind{KindUnreachable},
		},
		{
			name: "nofollow link",
			urls: []string{"http://a.test/robots.txt", "http://a.test/", "http://a.test/nf.html"},
			want: []Kind{KindNoFollow},
		},
		{
			name: "duplicate",
			urls: []string{"http://a.test/robots.txt", "http://a.test/", "http://a.test/x.html", "http://a.test/"},
			want: []Kind{KindDuplicate},
			check: func(t *testing.T, r *Report) {
				if r.Duplicates != 1 {
					t.Errorf("Duplicates = %d, want 1", r.Duplicates)
				}
			},
		},
		{
			name: "duplicate within MaxDuplicates",
			urls: []string{"http://a.test/robots.txt", "http://a.test/", "http://a.test/"},
			opts: AuditOptions{MaxDuplicates: 1},
		},
		{
			name: "robots.txt fetched twice is no duplicate",
			urls: []string{"http://a.test/robots.txt", "http://a.test/robots.txt", "http://a.test/"},
		},
		{
			name: "coverage",
			urls: []string{"http://a.test/robots.txt", "http://a.test/"},
			opts: AuditOptions{MinCoverage: 1},
			want: []Kind{KindCoverage},
			check: func(t *testing.T, r *Report) {
				if want := []string{"http://a.test/x.html"}; !slices.Equal(r.Missing, want) || r.Coverage != 0.5 {
					t.Errorf("coverage %v, missing %q: want 0.5, %q", r.Coverage, r.Missing, want)
				}
			},
		},
		{
			name: "wrong user agent",
			urls: []string{"http://a.test/robots.txt", "http://a.test/"},
			ua:   "Mozilla/5.0 (compatible)",
			opts: full,
			want: []Kind{KindUserAgent},
		},
		{
			name:  "crawl-delay ignored",
			urls:  []string{"http://slow.test/robots.txt", "http://slow.test/"},
			extra: []Site{slowSite},
			opts:  full,
			want:  []Kind{KindGap},
			check: func(t *testing.T, r *Report) {
				if r.SmallestGapRatio <= 0 || r.SmallestGapRatio >= 1 {
					t.Errorf("SmallestGapRatio = %v, want in (0, 1)", r.SmallestGapRatio)
				}
			},
		},
		{
			name: "min delay ignored",
			urls: []string{"http://a.test/robots.txt", "http://a.test/"},
			opts: AuditOptions{MinDelay: time.Hour},
			want: []Kind{KindGap},
		},
		{
			name: "unknown host",
			urls: []string{"http://a.test/robots.txt"},
			host: "elsewhere.test",
			want: []Kind{KindUnknownHost},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := startFarm(t, append(rudeSites(), tt.extra...)...)
			ua := tt.ua
			if ua == "" {
				ua = "PoliteCrawl/0.1 (+https://example.test)"
			}
			for _, u := range tt.urls {
				get(t, f, u, ua, tt.host)
			}
			r := Audit(f, tt.opts)
			if got := kinds(r.Violations); !slices.Equal(got, tt.want) {
				t.Errorf("violation kinds:\n\tgot  %v\n\twant %v\n%v", got, tt.want, r.Violations)
			}
			if (r.Err() == nil) != (len(tt.want) == 0) {
				t.Errorf("Err() = %v with %d violations", r.Err(), len(r.Violations))
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

// TestAuditOverlap holds a request to /x.html in the handler until a
// request to / on the same host has started: two requests in flight at once.
func TestAuditOverlap(t *testing.T) {
	f := startFarm(t, rudeSites()...)
	xStarted, rootStarted := make(chan struct{}), make(chan struct{})
	f.hook = func(r *http.Request) {
		switch r.URL.Path {
		case "/x.html":
			close(xStarted)
			<-rootStarted
		case "/":
			close(rootStarted)
		}
	}
	get(t, f, "http://a.test/robots.txt", "politecrawl", "")
	var wg sync.WaitGroup
	wg.Go(func() { get(t, f, "http://a.test/x.html", "politecrawl", "") })
	<-xStarted
	get(t, f, "http://a.test/", "politecrawl", "")
	wg.Wait()
	r := Audit(f, AuditOptions{})
	if got, want := kinds(r.Violations), []Kind{KindOverlap}; !slices.Equal(got, want) {
		t.Errorf("violation kinds:\n\tgot  %v\n\twant %v\n%v", got, want, r.Violations)
	}
}
