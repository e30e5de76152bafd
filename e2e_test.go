package crawl_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// testDelay is the politeness delay of the end-to-end crawls: short, so the tests are
// fast, but far above loopback latency, so a spacing bug cannot hide.
const testDelay = 20 * time.Millisecond

// crawlWait bounds how long a test waits for a crawl of these tests to end or to reach
// a state: far more than any takes, so that only a hang reaches it. The longest,
// TestCrawlLargeSitemap, takes 4 s alone and 54 s under -race on a 2-core machine with
// a load average of 23, 6 s short of the one-minute bound it had.
const crawlWait = 5 * time.Minute

// farmSites is a farm that exercises every robots.txt case the crawler must get right.
// Disallowed marks, by hand, what RFC 9309 forbids to "politecrawl".
func farmSites() []crawltest.Site {
	return []crawltest.Site{
		{
			// A group for our agent (and a stricter * group that must not apply), longest
			// match with an allow inside a disallow, an end anchor, percent-encoded rules,
			// a redirect, a 404, a nofollow page and a rel=nofollow link; an icon
			// at /favicon.ico, which the other hosts answer 404 (but maps.test).
			Host: "news.test",
			Icon: true,
			Robots: &crawltest.Robots{Body: "User-agent: *\nDisallow: /\n\n" +
				"User-agent: PoliteCrawl\nDisallow: /private/\nAllow: /private/public.html\n" +
				"Disallow: /*.pdf$\nDisallow: /caf%C3%A9/\nDisallow: /a%2fb\n"},
			Pages: map[string]*crawltest.Page{
				"/": {Links: []string{"/a.html", "/private/x.html", "/private/public.html", "/doc.pdf",
					"/doc.pdf?view=1", "/café/menu.html", "/a%2fb.html", "/a/b.html", "/old", "/missing.html", "/nofollow.html"},
					NoFollowLinks: []string{"/hidden2.html"}},
				"/a.html":                 {Links: []string{"/", "/b.html"}},
				"/b.html":                 {},
				"/private/x.html":         {Disallowed: true, Links: []string{"/behind-disallowed.html"}},
				"/behind-disallowed.html": {},
				"/private/public.html":    {},
				"/doc.pdf":                {Disallowed: true, ContentType: "application/pdf", Body: "%PDF-1.4"},
				"/doc.pdf?view=1":         {ContentType: "application/pdf", Body: "%PDF-1.4"},
				"/café/menu.html":         {Disallowed: true},
				"/a%2fb.html":             {Disallowed: true},
				"/a/b.html":               {},
				"/old":                    {RedirectTo: "/b.html"},
				"/nofollow.html":          {MetaNoFollow: true, Links: []string{"/hidden1.html"}},
				"/hidden1.html":           {},
				"/hidden2.html":           {},
			},
		},
		{
			// Two groups for our agent are merged; another agent's group is ignored;
			// Crawl-delay slows the host down.
			Host: "shop.test",
			Robots: &crawltest.Robots{Body: "User-agent: politecrawl\nDisallow: /cart\nAllow: /cart/help\nCrawl-delay: 0.06\n\n" +
				"User-agent: otherbot\nDisallow: /\n\n" +
				"User-agent: politecrawl\nDisallow: /checkout\n"},
			Delay: 60 * time.Millisecond,
			Pages: map[string]*crawltest.Page{
				"/":          {Links: []string{"/cart", "/cart/help", "/checkout", "/item/1", "/item/2"}},
				"/cart":      {Disallowed: true},
				"/cart/help": {},
				"/checkout":  {Disallowed: true},
				"/item/1":    {Links: []string{"/item/2", "/gone"}},
				"/item/2":    {Status: 410},
			},
		},
		{
			// robots.txt 404: no restrictions.
			Host:  "open.test",
			Pages: map[string]*crawltest.Page{"/": {Links: []string{"/x"}}, "/x": {}},
		},
		{
			// robots.txt 403: no restrictions either (RFC 9309 §2.3.1.3).
			Host:   "forbidden.test",
			Robots: &crawltest.Robots{Status: 403},
			Pages:  map[string]*crawltest.Page{"/": {Links: []string{"/y"}}, "/y": {}},
		},
		{
			// robots.txt 500: unreachable, nothing else may be fetched (§2.3.1.4).
			Host:   "down.test",
			Robots: &crawltest.Robots{Status: 500},
			Pages:  map[string]*crawltest.Page{"/": {Links: []string{"/z"}}, "/z": {}},
		},
		{
			// robots.txt redirects to another host; its rules apply here (§2.3.1.2).
			Host:   "moved.test",
			Robots: &crawltest.Robots{RedirectTo: "http://rules.test/moved-robots.txt"},
			Pages: map[string]*crawltest.Page{
				"/":            {Links: []string{"/secret.html", "/open.html"}},
				"/secret.html": {Disallowed: true},
				"/open.html":   {},
			},
		},
		{
			Host: "rules.test",
			Pages: map[string]*crawltest.Page{
				"/":                 {},
				"/moved-robots.txt": {ContentType: "text/plain", Body: "User-agent: *\nDisallow: /secret\n"},
			},
		},
		{
			// A page reachable only through the sitemap robots.txt lists, through a
			// gzip-compressed sitemap index.
			Host:     "maps.test",
			Icon:     true,
			Robots:   &crawltest.Robots{Body: "User-agent: *\nAllow: /\n"},
			Sitemaps: []string{"http://maps.test/sitemap-index.xml.gz"},
			Pages: map[string]*crawltest.Page{
				"/":                              {},
				"/sitemap-index.xml.gz":          {Sitemap: true, Gzip: true, Links: []string{"/sitemap-pages.xml"}},
				"/sitemap-pages.xml":             {Sitemap: true, Links: []string{"/only-in-sitemap.html", "/also.html"}},
				"/only-in-sitemap.html":          {},
				"/also.html":                     {Links: []string{"/linked-from-sitemap-page.html"}},
				"/linked-from-sitemap-page.html": {},
			},
		},
	}
}

// testConfig is a configuration for crawling farm into dir.
func testConfig(farm *crawltest.Farm, dir string) config.Config {
	return farmConfig(farm.Seeds(), farm.Resolve(), dir)
}

// startCrawl runs a crawl of cfg in the background; its result comes on the channel.
func startCrawl(t *testing.T, ctx context.Context, cfg config.Config) (*crawl.Crawler, <-chan error) {
	t.Helper()
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = testWriter{t}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	return c, done
}

// awaitSignal waits for signal from a crawl started by startCrawl, and fails the test
// if the crawl ends first or nothing comes in crawlWait. what names the signal.
func awaitSignal(t *testing.T, signal <-chan struct{}, ended <-chan error, what string) {
	t.Helper()
	select {
	case <-signal:
	case err := <-ended:
		t.Fatalf("the crawl ended before %s: %v", what, err)
	case <-time.After(crawlWait):
		t.Fatalf("%s did not come in %v", what, crawlWait)
	}
}

// farmConfig is testConfig for a farm known by its seeds and addresses (a crawl in
// another process).
func farmConfig(seeds []string, resolve map[string]string, dir string) config.Config {
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.Seeds = seeds
	cfg.Workers = 8
	cfg.Politeness.MinDelay = config.Duration(testDelay)
	cfg.Politeness.BackoffBase = config.Duration(10 * time.Millisecond)
	cfg.Politeness.BackoffMax = config.Duration(40 * time.Millisecond)
	cfg.Robots.UnreachableAttempts = 2
	cfg.Robots.UnreachableRetry = config.Duration(10 * time.Millisecond)
	cfg.Network.AllowPrivate = true
	cfg.Network.Resolve = resolve
	return cfg
}

// pageLines reads the pages.jsonl file at path and parts its lines: those of pages
// and sitemaps, and those of page requisites (a "requisite" kind), such as every
// host's /favicon.ico.
func pageLines(t *testing.T, path string) (pages, requisites []map[string]any) {
	t.Helper()
	for _, l := range readJSONL(t, path) {
		if _, ok := l["requisite"]; ok {
			requisites = append(requisites, l)
		} else {
			pages = append(pages, l)
		}
	}
	return pages, requisites
}

// urlsOf returns the "url" of each line.
func urlsOf(lines []map[string]any) []string {
	urls := make([]string, len(lines))
	for i, l := range lines {
		urls[i] = fmt.Sprint(l["url"])
	}
	return urls
}

func startFarm(t *testing.T, sites []crawltest.Site) *crawltest.Farm {
	t.Helper()
	farm, err := crawltest.Start(sites...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { farm.Close() })
	return farm
}

func runCrawl(t *testing.T, cfg config.Config) crawl.Summary {
	t.Helper()
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	c.Stderr = testWriter{t}
	ctx, cancel := context.WithTimeout(context.Background(), crawlWait)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return c.Summary()
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// auditOK audits the farm's record of a crawl with the default requisites, which
// fetch every host's icon: see auditCrawl.
func auditOK(t *testing.T, farm *crawltest.Farm, maxDup int) *crawltest.Report {
	t.Helper()
	return auditCrawl(t, farm, maxDup, true)
}

// auditCrawl audits the farm's record of a crawl: no violation, at most maxDup
// repeated fetches, every page fetched, and with icons every host icon of
// crawltest.Farm.ExpectedIcons, without none.
func auditCrawl(t *testing.T, farm *crawltest.Farm, maxDup int, icons bool) *crawltest.Report {
	t.Helper()
	r := crawltest.Audit(farm, crawltest.AuditOptions{
		Agent: "politecrawl", MinDelay: testDelay, Tolerance: time.Millisecond,
		MaxDuplicates: maxDup, MinCoverage: 1, Icons: icons,
	})
	if err := r.Err(); err != nil {
		t.Errorf("audit: %v", err)
	}
	if r.Coverage != 1 {
		t.Errorf("coverage %.3f, missing %v", r.Coverage, r.Missing)
	}
	if !icons && r.Icons > 0 {
		t.Errorf("%d host icons fetched, want none", r.Icons)
	}
	return r
}

func TestCrawlFarm(t *testing.T) {
	farm := startFarm(t, farmSites())
	dir := t.TempDir()
	sum := runCrawl(t, testConfig(farm, dir))
	r := auditOK(t, farm, 0)
	t.Logf("summary:\n%s", sum)
	t.Logf("audit: %d requests, efficiency %.2f, smallest gap ratio %.2f, unexpected %v",
		r.Requests, r.Efficiency(), r.SmallestGapRatio, r.Unexpected)
	if !sum.Complete {
		t.Errorf("summary says the crawl is not complete: %+v", sum)
	}
	if sum.RobotsBlocked == 0 {
		t.Errorf("no URL counted as disallowed by robots.txt")
	}
	if sum.Parked == 0 {
		t.Errorf("down.test's URLs were not set aside")
	}
	// Every page waited for its storage commit and every lease for its frontier
	// commit; the waits are counted (how long they were is not a test's business).
	if sum.StorageWait <= 0 || sum.FrontierWait <= 0 {
		t.Errorf("storage wait %v, frontier wait %v over %d pages: want both counted", sum.StorageWait, sum.FrontierWait, sum.Pages)
	}

	// pages.jsonl has one whole line per page and sitemap response, one per host
	// icon (a requisite), and each points into a WARC file that exists.
	lines, requisites := pageLines(t, filepath.Join(dir, "pages.jsonl"))
	if int64(len(lines)) != sum.Pages {
		t.Errorf("pages.jsonl has %d lines of pages, summary counts %d pages", len(lines), sum.Pages)
	}
	icons := farm.ExpectedIcons()
	if int64(len(requisites)) != sum.Requisites || len(requisites) != len(icons) || r.Icons != len(icons) {
		t.Errorf("pages.jsonl has %d lines of requisites, summary counts %d, the farm answered %d host icons; want the %d host icons",
			len(requisites), sum.Requisites, r.Icons, len(icons))
	}
	byURL := map[string]map[string]any{}
	for _, l := range append(lines, requisites...) {
		byURL[l["url"].(string)] = l
		warc, _ := l["warc_file"].(string)
		if _, err := os.Stat(filepath.Join(dir, "warc", warc)); err != nil {
			t.Errorf("%s: warc_file %q: %v", l["url"], warc, err)
		}
	}
	if l := byURL["http://news.test/nofollow.html"]; l == nil || l["nofollow"] != true {
		t.Errorf("pages.jsonl line of nofollow.html: %v", l)
	}
	if l := byURL["http://shop.test/item/2"]; l == nil || l["status"] != float64(410) {
		t.Errorf("pages.jsonl line of a 410 page: %v", l)
	}
	if _, ok := byURL["http://news.test/private/x.html"]; ok {
		t.Errorf("a disallowed page is in pages.jsonl")
	}
	// news.test serves an icon, shop.test none.
	for u, status := range map[string]float64{"http://news.test/favicon.ico": 200, "http://shop.test/favicon.ico": 404} {
		if l := byURL[u]; l == nil || l["requisite"] != "icon" || l["status"] != status {
			t.Errorf("pages.jsonl line of %s: %v; want requisite icon, status %v", u, l, status)
		}
	}
}

// A second run over a finished crawl fetches nothing again: resuming is free.
func TestCrawlResumeFinished(t *testing.T) {
	farm := startFarm(t, farmSites()[:3])
	dir := t.TempDir()
	runCrawl(t, testConfig(farm, dir))
	first := len(farm.Requests())
	farm.Reset()
	sum := runCrawl(t, testConfig(farm, dir))
	for _, r := range farm.Requests() {
		if !strings.HasSuffix(r.Path, "/robots.txt") {
			t.Errorf("second run fetched %s again", r.URL())
		}
	}
	if !sum.Complete || sum.Pages != 0 {
		t.Errorf("second run: %+v (first run made %d requests)", sum, first)
	}
}

// Stopping a crawl (ctx cancelled) and running it again finishes the same crawl with
// no page fetched twice.
func TestCrawlStopAndResume(t *testing.T) {
	sites := crawltest.Generate(crawltest.GenerateOptions{Hosts: 4, PagesPerHost: 40, LinksPerPage: 4, Seed: 7})
	farm := startFarm(t, sites)
	dir := t.TempDir()
	cfg := testConfig(farm, dir)

	ctx, cancel := context.WithCancel(context.Background())
	c, done := startCrawl(t, ctx, cfg)
	// Stop after the farm has answered some pages (no clock involved).
	for len(farm.Requests()) < 12 {
		select {
		case err := <-done:
			t.Fatalf("crawl ended before it was stopped: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Run after cancel = %v, want context.Canceled", err)
	}
	if c.Summary().Complete {
		// Only a test goroutine starved for the whole crawl (a loaded machine) gets here.
		t.Skip("the crawl completed before the stop could be made")
	}
	runCrawl(t, cfg)
	auditOK(t, farm, 0)
}
