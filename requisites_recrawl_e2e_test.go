package crawl_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	warc "github.com/internetarchive/gowarc"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// TestRecrawlRequisites recrawls crawltest.RequisiteFarm: refetches of stylesheets
// and a font with an ETag or a Last-Modified are conditional GETs answered 304 and
// archived as server-not-modified revisits of the capture holding their payload; unchanged ones
// without validators (a script, images) are identical-payload revisits. A payload is
// stored once however many URLs and pages carry it: the stylesheet both hosts serve
// byte for byte, and the image every page, its stylesheet and the other host repeat,
// have one response record each in the whole archive.
func TestRecrawlRequisites(t *testing.T) {
	sites := crawltest.RequisiteFarm(2, 2)
	mod := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for _, s := range sites {
		if p := s.Pages["/static/site.css"]; p != nil {
			p.ETag = `"site-1"`
			s.Pages["/static/base.css"].LastModified = mod
			s.Pages["/static/font.woff2"].ETag = `"font-1"`
		}
	}
	farm := startFarm(t, sites)
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Seeds = slices.DeleteFunc(cfg.Seeds, func(s string) bool { return strings.Contains(s, "cdn.test") })
	cfg.Recrawl.Interval = config.Duration(time.Second)
	var urls []string
	for _, h := range []string{"http://docs0.test", "http://docs1.test"} {
		for _, p := range []string{"/", "/p1.html", "/static/site.css", "/static/base.css", "/static/font.woff2", "/static/app.js", "/static/bg.png", "/img/p0.png", "/img/p1.png"} {
			urls = append(urls, h+p)
		}
	}
	urls = append(urls, "http://cdn.test/logo.png")
	runUntilArchived(t, cfg, urls, 2)

	conditional := map[string]bool{"/static/site.css": true, "/static/base.css": true, "/static/font.woff2": true}
	seen := map[string]bool{}
	dups := 0
	for _, r := range farm.Requests() {
		if r.Path == "/robots.txt" {
			continue
		}
		u := "http://" + r.Host + r.Path
		want := 200
		if seen[u] {
			dups++
			if conditional[r.Path] {
				want = 304
			}
		}
		seen[u] = true
		if r.Status != want {
			t.Errorf("%s answered %d, want %d", u, r.Status, want)
		}
	}
	auditOK(t, farm, dups)

	// Every refetch of a requisite is unchanged, and says so in pages.jsonl.
	fetches := map[string]int{}
	for _, pg := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
		u := pg["url"].(string)
		fetches[u]++
		if pg["requisite"] != nil && fetches[u] > 1 && pg["changed"] != false {
			t.Errorf("refetch of requisite %s: changed %v, want false", u, pg["changed"])
		}
	}

	type rec struct{ typ, profile, refersURI string }
	byURI := map[string][]rec{}
	responses := map[string][]string{} // payload digest: the URIs of its response records
	eachRecord(t, filepath.Join(dir, "warc", "*.warc.gz"), func(r *warc.Record) {
		h := r.Header
		u := h.Get("WARC-Target-URI")
		switch h.Get("WARC-Type") {
		case "response":
			byURI[u] = append(byURI[u], rec{typ: "response"})
			d := h.Get("WARC-Payload-Digest")
			responses[d] = append(responses[d], u)
		case "revisit":
			byURI[u] = append(byURI[u], rec{"revisit", h.Get("WARC-Profile"), h.Get("WARC-Refers-To-Target-URI")})
		}
	})
	const notModified = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
	for _, u := range urls {
		recs := byURI[u]
		if len(recs) < 2 {
			t.Errorf("%s: %d records, want 2 or more", u, len(recs))
			continue
		}
		path := u[strings.Index(u[len("http://"):], "/")+len("http://"):]
		for i, r := range recs[1:] {
			if r.typ != "revisit" {
				t.Errorf("%s: refetch %d archived as a %s, want a revisit", u, i+1, r.typ)
			}
			// A revisit refers to the record holding the payload: the URL's first
			// capture, or the response its first capture is a revisit of.
			held := byURI[r.refersURI]
			if conditional[path] && r.profile != notModified || len(held) == 0 || held[0].typ != "response" {
				t.Errorf("%s: refetch %d archived as %+v, want a revisit (server-not-modified after a 304) of a response record", u, i+1, r)
			}
		}
	}
	for d, us := range responses {
		if len(us) > 1 && !slices.ContainsFunc(us, func(u string) bool { return strings.HasSuffix(u, ".html") || strings.HasSuffix(u, "/") }) {
			t.Errorf("payload %s stored %d times: %v", d, len(us), us)
		}
	}
	// The image bytes of p0.png, p1.png and bg.png on both hosts: stored once.
	img := 0
	for _, h := range []string{"http://docs0.test", "http://docs1.test"} {
		for _, p := range []string{"/img/p0.png", "/img/p1.png", "/static/bg.png"} {
			if byURI[h+p][0].typ == "response" {
				img++
			}
		}
	}
	if img != 1 {
		t.Errorf("the shared image stored %d times, want once", img)
	}
}

// TestDedupFromRequisites crawls crawltest.RequisiteFarm, then again into a new data
// directory with dedup_from naming the first: every requisite of the second crawl
// is an identical-payload revisit of a response record of the first, none is stored
// again.
func TestDedupFromRequisites(t *testing.T) {
	sites := crawltest.RequisiteFarm(2, 2)
	first := t.TempDir()
	farm := startFarm(t, sites)
	cfg := testConfig(farm, first)
	runCrawl(t, cfg)
	stored := map[string]bool{} // the first crawl's response records, by URI
	eachRecord(t, filepath.Join(first, "warc", "*.warc.gz"), func(r *warc.Record) {
		if r.Header.Get("WARC-Type") == "response" {
			stored[r.Header.Get("WARC-Target-URI")] = true
		}
	})

	second := t.TempDir()
	cfg = testConfig(farm, second)
	cfg.DedupFrom = []string{first}
	runCrawl(t, cfg)
	requisites := map[string]bool{}
	for _, pg := range readJSONL(t, filepath.Join(second, "pages.jsonl")) {
		if pg["requisite"] != nil {
			requisites[pg["url"].(string)] = true
		}
	}
	if len(requisites) < 10 {
		t.Fatalf("%d requisites archived by the second crawl, want 10 or more: %v", len(requisites), requisites)
	}
	const identical = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
	eachRecord(t, filepath.Join(second, "warc", "*.warc.gz"), func(r *warc.Record) {
		h := r.Header
		u := h.Get("WARC-Target-URI")
		if !requisites[u] || h.Get("WARC-Type") == "request" || h.Get("WARC-Type") == "metadata" {
			return
		}
		if h.Get("WARC-Type") != "revisit" || h.Get("WARC-Profile") != identical || !stored[h.Get("WARC-Refers-To-Target-URI")] {
			t.Errorf("%s archived again as a %s (%s, refers to %s), want an identical-payload revisit of the first crawl's record",
				u, h.Get("WARC-Type"), h.Get("WARC-Profile"), h.Get("WARC-Refers-To-Target-URI"))
		}
	})
}
