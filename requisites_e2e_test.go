package crawl_test

import (
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/politecrawl/crawl/crawltest"
)

// TestCrawlRequisites crawls crawltest.RequisiteSites with requisites on (the
// default) and checks what was fetched: every requisite once, however many pages
// name it, through its own host's robots.txt (the disallowed image is skipped and
// recorded), within the hop limit and the kinds (no video), politely (the farm's
// audit finds no violation); each archived with a pages.jsonl line marked
// requisite, no page's depth raised. With requisites.enabled false the same crawl
// fetches the pages alone.
func TestCrawlRequisites(t *testing.T) {
	farm := startFarm(t, crawltest.RequisiteSites([]byte("a font")))
	dir := t.TempDir()
	sum := runCrawl(t, testConfig(farm, dir))
	auditOK(t, farm, 0)

	fetched := map[string]int{}
	for _, r := range farm.Requests() {
		if r.Path != "/robots.txt" {
			fetched["http://"+r.Host+r.Path]++
		}
	}
	for _, u := range crawltest.RequisiteURLs {
		if fetched[u] != 1 {
			t.Errorf("%s fetched %d times, want once", u, fetched[u])
		}
	}
	for _, u := range []string{"http://assets.test/private/secret.png", "http://assets.test/media/clip.mp4", "http://assets.test/img/deep.png"} {
		if fetched[u] != 0 {
			t.Errorf("%s fetched %d times, want never (robots.txt, kind video, hop 3)", u, fetched[u])
		}
	}
	if sum.Requisites != int64(len(crawltest.RequisiteURLs)) || sum.Pages != 4 {
		t.Errorf("summary: %d pages, %d requisites; want 4 and %d", sum.Pages, sum.Requisites, len(crawltest.RequisiteURLs))
	}

	var reqs []string
	for _, l := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
		u, _ := l["url"].(string)
		kind, _ := l["requisite"].(string)
		if kind == "" {
			continue
		}
		reqs = append(reqs, u)
		if d, _ := l["depth"].(float64); d > 1 {
			t.Errorf("requisite %s at depth %v: requisites keep their page's depth", u, d)
		}
		want := map[string]string{"http://assets.test/fonts/body.ttf": "font", "http://assets.test/css/base.css": "stylesheet",
			"http://assets.test/frame.html": "frame", "http://cdn.test/logo.png": "image", "http://assets.test/favicon.png": "icon"}[u]
		if want != "" && kind != want {
			t.Errorf("%s: requisite %q, want %q", u, kind, want)
		}
	}
	sort.Strings(reqs)
	want := slices.Clone(crawltest.RequisiteURLs)
	sort.Strings(want)
	if !slices.Equal(reqs, want) {
		t.Errorf("pages.jsonl's requisite lines:\n\tgot  %q\n\twant %q", reqs, want)
	}
	robots := false
	for _, s := range readJSONL(t, filepath.Join(dir, "skipped.jsonl")) {
		if s["url"] == "http://assets.test/private/secret.png" && s["reason"] == "robots" {
			robots = true
		}
	}
	if !robots {
		t.Error("skipped.jsonl has no robots line for the disallowed image")
	}

	t.Run("off", func(t *testing.T) {
		farm := startFarm(t, crawltest.RequisiteSites([]byte("a font")))
		cfg := testConfig(farm, t.TempDir())
		cfg.Requisites.Enabled = false
		sum := runCrawl(t, cfg)
		auditCrawl(t, farm, 0, false)
		for _, r := range farm.Requests() {
			// An iframe's document is a link too: a page of its own here.
			if u := "http://" + r.Host + r.Path; slices.Contains(crawltest.RequisiteURLs, u) && u != "http://assets.test/frame.html" {
				t.Errorf("requisites off: %s fetched", u)
			}
		}
		if sum.Requisites != 0 || sum.Pages != 5 {
			t.Errorf("requisites off: %d pages, %d requisites; want 5 (the frame's document) and 0", sum.Pages, sum.Requisites)
		}
	})
}

// TestRequisitesKillResume kills a crawl of crawltest.RequisiteSites with SIGKILL
// (in a process of its own) after its first pages and their first requisites, and
// runs it again: every requisite is archived, queued ones survive the kill, at most
// one fetch per worker is repeated, and politeness holds across the kill.
func TestRequisitesKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a crawl process and kills it")
	}
	farm := startFarm(t, crawltest.RequisiteSites([]byte("a font")))
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	killAfter(t, farm, recrawlJob{Seeds: cfg.Seeds, Resolve: cfg.Network.Resolve, DataDir: dir}, 6)
	runCrawl(t, cfg)
	lines := map[string]int{}
	for _, l := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
		if k, _ := l["requisite"].(string); k != "" {
			lines[l["url"].(string)]++
		}
	}
	for _, u := range crawltest.RequisiteURLs {
		if lines[u] == 0 {
			t.Errorf("%s not archived after the kill and resume", u)
		}
	}
	dups := refetches(farm)
	if dups > cfg.Workers {
		t.Errorf("%d fetches repeated after the kill, want at most %d (the workers)", dups, cfg.Workers)
	}
	t.Logf("%d fetches repeated after the kill", dups)
	auditOK(t, farm, dups)
}
