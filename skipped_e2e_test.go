package crawl_test

import (
	"bufio"
	"context"
	"encoding/json"
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

// Every URL the crawl does not fetch has a line in skipped.jsonl saying why, and
// crawl.log says the same (issue 12, defect 8).
func TestCrawlSkippedJSONL(t *testing.T) {
	farm := startFarm(t, []crawltest.Site{
		{
			Host:   "site.test",
			Robots: &crawltest.Robots{Body: "User-agent: *\nDisallow: /private/\n"},
			Pages: map[string]*crawltest.Page{
				"/": {Links: []string{"/private/a.html", "/drafts/b.html", "/deep.html", "/busy.html",
					"/slow.html", "http://elsewhere.test/", "/hop1"}},
				"/private/a.html": {Disallowed: true},
				"/drafts/b.html":  {},
				"/deep.html":      {Links: []string{"/deeper.html"}},
				"/deeper.html":    {},
				"/busy.html":      {Status: 503},
				"/slow.html":      {Latency: 2 * time.Second},
				"/hop1":           {RedirectTo: "/hop2"},
				"/hop2":           {RedirectTo: "/hop3"},
				"/hop3":           {},
			},
		},
		{Host: "down.test", Robots: &crawltest.Robots{Status: 500}, Pages: map[string]*crawltest.Page{"/": {}}},
		{Host: "elsewhere.test", Pages: map[string]*crawltest.Page{"/": {}}},
	})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Seeds = []string{"http://site.test/", "http://down.test/"}
	cfg.Scope.Exclude = []string{`/drafts/`}
	cfg.Scope.MaxDepth = 1
	cfg.Fetch.MaxRedirects = 1
	cfg.Fetch.Timeout = config.Duration(200 * time.Millisecond)
	cfg.LogLevel = "debug"
	runCrawl(t, cfg)

	got := map[string]map[string]any{}
	for _, l := range readJSONL(t, filepath.Join(dir, "skipped.jsonl")) {
		u := l["url"].(string)
		if got[u] != nil {
			t.Errorf("two lines for %s: %v and %v", u, got[u], l)
		}
		got[u] = l
		if _, err := time.Parse(time.RFC3339, l["time"].(string)); err != nil {
			t.Errorf("%s: time %v", u, l["time"])
		}
	}
	want := []struct {
		url, reason, detail, foundOn string
	}{
		{"http://site.test/private/a.html", "robots", "disallow: /private/ (line 2)", "http://site.test/"},
		{"http://site.test/drafts/b.html", "scope", "excluded", "http://site.test/"},
		{"http://site.test/deeper.html", "scope", "depth", "http://site.test/deep.html"},
		{"http://site.test/busy.html", "failed", "HTTP 503 on attempt 3 of 3", "http://site.test/"},
		{"http://site.test/slow.html", "failed", "attempt 3 of 3", "http://site.test/"},
		{"http://site.test/hop3", "redirect-limit", "fetch.max_redirects 1", "http://site.test/hop2"},
		{"http://down.test/", "robots-unreachable", "http://down.test/robots.txt unreachable", ""},
	}
	for _, w := range want {
		l := got[w.url]
		if l == nil {
			t.Errorf("no line for %s", w.url)
			continue
		}
		detail, _ := l["detail"].(string)
		foundOn, _ := l["found_on"].(string)
		if l["reason"] != w.reason || !strings.Contains(detail, w.detail) || foundOn != w.foundOn {
			t.Errorf("%s:\n\tgot  %v\n\twant reason %s, detail with %q, found_on %q", w.url, l, w.reason, w.detail, w.foundOn)
		}
		delete(got, w.url)
	}
	if l := got["http://site.test/private/a.html"]; l != nil && l["robots_url"] != "http://site.test/robots.txt" {
		t.Errorf("robots line without robots_url: %v", l)
	}
	for u, l := range got {
		t.Errorf("unexpected line for %s: %v", u, l) // off-host links are only counted
	}

	// crawl.log: a debug line per URL not fetched, and the network errors at INFO
	// with their URL.
	var notFetched, netErrs int
	for _, l := range readJSONL(t, filepath.Join(dir, "crawl.log")) {
		switch {
		case l["msg"] == "not fetched":
			notFetched++
		case l["msg"] == "fetch failed" && l["level"] == "INFO" && l["url"] == "http://site.test/slow.html":
			netErrs++
		}
	}
	if notFetched != len(want) || netErrs != 3 {
		t.Errorf("crawl.log: %d \"not fetched\" lines, want %d; %d network errors of slow.html at INFO, want 3", notFetched, len(want), netErrs)
	}
}

// A fatal error that stops the crawl once its data directory is open is written to
// crawl.log, not only returned. (An error found before, such as a metrics address
// that is taken, leaves the directory alone: TestCrawlMetricsPortTakenLeavesNoDataDir.)
func TestCrawlFatalErrorLogged(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close() // nothing listens there: the cluster's join fails
	farm := startFarm(t, farmSites()[2:3])
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Cluster.URL = "nats://" + ln.Addr().String()
	cfg.Cluster.Shards = "0-63"
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = testWriter{t}
	runErr := c.Run(context.Background())
	if runErr == nil {
		t.Fatal("Run with a taken metrics address succeeded")
	}
	logged := false
	for _, l := range readJSONL(t, filepath.Join(dir, "crawl.log")) {
		if l["level"] == "ERROR" && strings.Contains(l["err"].(string), ln.Addr().String()) {
			logged = true
		}
	}
	if !logged {
		t.Errorf("crawl.log has no ERROR line for %v", runErr)
	}
}

// readJSONL reads a JSON-lines file (pages.jsonl, skipped.jsonl) into one map a line.
func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s line %d: %v", path, len(out)+1, err)
		}
		out = append(out, m)
	}
	return out
}

// A host whose robots.txt asks for a longer wait than politeness.max_delay gets a
// "deferred" line with the Crawl-delay asked; it is still fetched, at that pace.
func TestCrawlSkippedDeferred(t *testing.T) {
	farm := startFarm(t, []crawltest.Site{{
		Host:   "slowpoke.test",
		Robots: &crawltest.Robots{Body: "User-agent: *\nCrawl-delay: 0.8\n"},
		Delay:  800 * time.Millisecond,
		Pages:  map[string]*crawltest.Page{"/": {Links: []string{"/a"}}, "/a": {}},
	}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Politeness.MaxDelay = config.Duration(100 * time.Millisecond)
	runCrawl(t, cfg)
	auditOK(t, farm, 0)
	lines := readJSONL(t, filepath.Join(dir, "skipped.jsonl"))
	if len(lines) != 1 {
		t.Fatalf("skipped.jsonl: %v, want one deferred line", lines)
	}
	l := lines[0]
	if l["url"] != "http://slowpoke.test/" || l["reason"] != "deferred" || l["crawl_delay"] != 0.8 || l["until"] == nil {
		t.Errorf("deferred line: %v", l)
	}
}

// scope.max_links_per_page counts distinct URLs, fragments removed, and the links
// past it are recorded as one link-limit line for the page (issue 12, defect 3).
func TestCrawlLinkLimit(t *testing.T) {
	farm := startFarm(t, []crawltest.Site{{
		Host: "toc.test",
		Pages: map[string]*crawltest.Page{
			"/":       {Body: `<a href="/a.html#1">1</a><a href="/a.html#2">2</a><a href="/a.html#3">3</a><a href="/b.html">b</a><a href="/c.html">c</a>`, Links: []string{"/a.html", "/b.html"}},
			"/a.html": {},
			"/b.html": {},
			"/c.html": {},
		},
	}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Scope.MaxLinksPerPage = 2
	sum := runCrawl(t, cfg)
	fetched := map[string]bool{}
	for _, r := range farm.Requests() {
		fetched[r.Path] = true
	}
	if !fetched["/a.html"] || !fetched["/b.html"] || fetched["/c.html"] {
		t.Errorf("fetched %v, want /a.html and /b.html, not /c.html", fetched)
	}
	lines := readJSONL(t, filepath.Join(dir, "skipped.jsonl"))
	if len(lines) != 1 || lines[0]["url"] != "http://toc.test/" || lines[0]["reason"] != "link-limit" ||
		!strings.Contains(lines[0]["detail"].(string), "left out: 1,") {
		t.Errorf("skipped.jsonl: %v, want one link-limit line for the page", lines)
	}
	if sum.Skipped["link-limit"] != 1 {
		t.Errorf("summary counts %d link-limit, want 1", sum.Skipped["link-limit"])
	}
}
