package crawl_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/politecrawl/crawl/capture"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// iconSite is a site of three pages that name no icon and link to each other, and
// the /favicon.ico a browser asks for in their stead: served, disallowed by
// robots.txt, or absent (404).
func iconSite(host, icon string) crawltest.Site {
	page := func(links ...string) *crawltest.Page {
		return &crawltest.Page{Links: links}
	}
	s := crawltest.Site{Host: host, Robots: &crawltest.Robots{Body: "User-agent: *\nAllow: /\n"},
		Pages: map[string]*crawltest.Page{"/": page("/a.html", "/b.html"), "/a.html": page("/", "/b.html"), "/b.html": page("/")}}
	switch icon {
	case "served":
		s.Icon = true
	case "disallowed":
		s.Robots.Body = "User-agent: *\nDisallow: /favicon.ico\n"
		s.Pages["/favicon.ico"] = &crawltest.Page{ContentType: "image/x-icon", Body: "an icon", Disallowed: true}
	}
	return s
}

// TestCrawlHostIcon crawls sites whose pages name no icon: the host's
// /favicon.ico, which a browser loads for such a page and ReplayWeb.page asks the
// archive for, is fetched once per host as an icon requisite and counted in every
// page's capture report; a 404 is a failed requisite, fetched once; one robots.txt
// disallows is never fetched and is recorded as blocked; with requisites off, or
// icons not among requisites.kinds, it is not fetched.
func TestCrawlHostIcon(t *testing.T) {
	sites := []crawltest.Site{iconSite("icon.test", "served"), iconSite("noicon.test", "absent"), iconSite("blocked.test", "disallowed")}
	for _, tt := range []struct {
		name string
		set  func(*config.Config)
		want map[string]int // /favicon.ico requests per host
	}{
		{"default", func(*config.Config) {}, map[string]int{"icon.test": 1, "noicon.test": 1}},
		{"requisites off", func(c *config.Config) { c.Requisites.Enabled = false }, nil},
		{"icons not fetched", func(c *config.Config) { c.Requisites.Kinds = []string{"stylesheet", "script", "image"} }, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			farm := startFarm(t, sites)
			dir := t.TempDir()
			cfg := testConfig(farm, dir)
			tt.set(&cfg)
			runCrawl(t, cfg)
			auditCrawl(t, farm, 0, tt.want != nil)
			got := map[string]int{}
			pages := 0
			for _, r := range farm.Requests() {
				switch r.Path {
				case "/favicon.ico":
					got[r.Host]++
				case "/", "/a.html", "/b.html":
					pages++
				}
			}
			if pages != 3*len(sites) {
				t.Errorf("%d pages fetched, want %d", pages, 3*len(sites))
			}
			if !mapsEqual(got, tt.want) {
				t.Errorf("/favicon.ico requests per host:\n\tgot  %v\n\twant %v", got, tt.want)
			}
			lines := map[string]map[string]any{}
			for _, l := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
				lines[l["url"].(string)] = l
			}
			for _, host := range []string{"icon.test", "noicon.test", "blocked.test"} {
				u := "http://" + host + "/favicon.ico"
				l, fetched := lines[u]
				if fetched != (tt.want[host] > 0) {
					t.Errorf("%s in pages.jsonl: %v, want %v", u, fetched, tt.want[host] > 0)
					continue
				}
				if fetched {
					wantStatus := map[string]float64{"icon.test": 200, "noicon.test": 404}[host]
					if l["requisite"] != "icon" || l["status"] != wantStatus || l["found_on"] == nil {
						t.Errorf("%s: requisite %v, status %v, found_on %v; want icon, %v and a page", u, l["requisite"], l["status"], l["found_on"], wantStatus)
					}
				}
				// Every page counts its host's icon among its requisites.
				for _, p := range []string{"/", "/a.html", "/b.html"} {
					rq, _ := lines["http://"+host+p]["requisites"].(map[string]any)
					wantFound := 0.0
					if tt.name == "default" {
						wantFound = 1
					}
					if found, _ := rq["found"].(float64); found != wantFound {
						t.Errorf("http://%s%s: requisites %v, want found %v", host, p, rq, wantFound)
					}
				}
			}
			var blocked []string
			for _, s := range readJSONL(t, filepath.Join(dir, "skipped.jsonl")) {
				if s["url"] == "http://blocked.test/favicon.ico" {
					blocked = append(blocked, fmt.Sprint(s["reason"], " ", s["requisite"]))
				}
			}
			wantBlocked := 0
			if tt.name == "default" {
				wantBlocked = 1
			}
			if len(blocked) != wantBlocked || wantBlocked == 1 && blocked[0] != "robots icon" {
				t.Errorf("skipped.jsonl lines of http://blocked.test/favicon.ico: %q, want %d \"robots icon\"", blocked, wantBlocked)
			}

			// crawl qa, from the WARC files and skipped.jsonl alone, counts the icon
			// of each of the 9 pages as the crawl did: archived, failed (404) or
			// blocked, by host. A links-only crawl (requisites off) names no kinds
			// in its warcinfo: every requisite is missing there, the icon as others.
			if tt.name == "requisites off" {
				return
			}
			rep, err := capture.ReadDir(dir, capture.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := capture.Counts{}
			if tt.name == "default" {
				want = capture.Counts{Found: 9, Archived: 3, Failed: 3, Blocked: 3}
			}
			if rep.Pages != 9 || rep.Totals != want {
				t.Errorf("crawl qa: %d pages, totals %+v; want 9 and %+v", rep.Pages, rep.Totals, want)
			}
		})
	}
}
