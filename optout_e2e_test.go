package crawl_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/politecrawl/crawl/crawltest"
)

// optOutSites has a page reserved by each opt-out beyond robots.txt, and one free page
// beside each.
func optOutSites() []crawltest.Site {
	html := func(head string) string {
		return "<!DOCTYPE html><html><head>" + head + "<title>t</title></head><body><p>text</p></body></html>"
	}
	return []crawltest.Site{
		{Host: "tdmfile.test", Pages: map[string]*crawltest.Page{
			"/.well-known/tdmrep.json": {ContentType: "application/json", Body: `[{"location": "/reserved/", "tdm-reservation": 1, "tdm-policy": "https://tdmfile.test/policy.json"}, {"location": "/", "tdm-reservation": 0}]`},
			"/":                        {Links: []string{"/reserved/a.html", "/open.html"}},
			"/reserved/a.html":         {},
			"/open.html":               {},
		}},
		{Host: "headers.test", Pages: map[string]*crawltest.Page{
			"/":        {Links: []string{"/h.html", "/u.html", "/x.html", "/ok.html"}},
			"/h.html":  {Header: map[string]string{"Tdm-Reservation": "1"}},
			"/u.html":  {Header: map[string]string{"Content-Usage": "train-ai=n"}},
			"/x.html":  {Header: map[string]string{"X-Robots-Tag": "noai"}},
			"/ok.html": {Header: map[string]string{"Content-Usage": "train-ai=y"}},
		}},
		{Host: "meta.test", Pages: map[string]*crawltest.Page{
			"/":       {Links: []string{"/m.html", "/r.html"}},
			"/m.html": {Body: html(`<meta name="tdm-reservation" content="1">`)},
			"/r.html": {Body: html(`<meta name="robots" content="noai, noimageai">`)},
		}},
		{Host: "usage.test",
			Robots: &crawltest.Robots{Body: "User-agent: *\nAllow: /\nContent-Usage: /private/ train-ai=n\n"},
			Pages: map[string]*crawltest.Page{
				"/":               {Links: []string{"/private/p.html", "/public.html"}},
				"/private/p.html": {},
				"/public.html":    {},
			}},
	}
}

// reservedPages are the pages optOutSites reserve against ai-train, with the signal.
var reservedPages = map[string]string{
	"http://tdmfile.test/reserved/a.html": "tdm-reservation=1 (tdmrep.json)",
	"http://headers.test/h.html":          "tdm-reservation=1 (header)",
	"http://headers.test/u.html":          "content-usage train-ai=n",
	"http://headers.test/x.html":          "noai (x-robots-tag)",
	"http://meta.test/m.html":             "tdm-reservation=1 (meta)",
	"http://meta.test/r.html":             "noai (meta)",
	"http://usage.test/private/p.html":    "content-usage train-ai=n",
}

// With robots.content_signal_use: ai-train no page reserved against AI training is
// stored (neither in the WARC files nor in pages.jsonl), each is in skipped.jsonl with
// the signal that decided; the free pages are stored. With it empty and
// robots.opt_outs on, every page is stored with its verdict.
func TestCrawlOptOuts(t *testing.T) {
	for _, use := range []string{"ai-train", ""} {
		t.Run("use="+use, func(t *testing.T) {
			farm := startFarm(t, optOutSites())
			dir := t.TempDir()
			cfg := testConfig(farm, dir)
			cfg.Robots.ContentSignalUse = use
			cfg.Robots.OptOuts = true
			runCrawl(t, cfg)

			pages := map[string]map[string]any{}
			for _, l := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
				pages[l["url"].(string)] = l
			}
			warc := readWARCs(t, filepath.Join(dir, "warc"))
			if !strings.Contains(warc, "WARC-Target-URI: http://tdmfile.test/.well-known/tdmrep.json\r\n") {
				t.Error("tdmrep.json not archived")
			}
			skipped := map[string]string{}
			for _, l := range readJSONL(t, filepath.Join(dir, "skipped.jsonl")) {
				if l["reason"] == "opt-out" {
					skipped[l["url"].(string)] = l["detail"].(string)
				}
			}
			for u, by := range reservedPages {
				archived := strings.Contains(warc, "WARC-Target-URI: "+u+"\r\n")
				p, stored := pages[u]
				switch use {
				case "ai-train":
					if stored || archived {
						t.Errorf("%s: reserved by %s, but stored (pages.jsonl %v, WARC %v)", u, by, stored, archived)
					}
					if d, ok := skipped[u]; !ok || !strings.HasPrefix(d, by+" reserves ai-train") {
						t.Errorf("%s: skipped.jsonl detail %q, want it to start with %q", u, d, by)
					}
				case "":
					if !stored || !archived {
						t.Errorf("%s: not stored (pages.jsonl %v, WARC %v)", u, stored, archived)
						continue
					}
					if v, _ := p["opt_out"].(string); !strings.Contains(v, "reserved: ai-input, ai-train") && !strings.Contains(v, "reserved: ai-train") {
						t.Errorf("%s: opt_out %q, want its reservation recorded", u, v)
					}
					if len(skipped) > 0 {
						t.Errorf("opt-out skips without a use: %v", skipped)
					}
				}
			}
			for _, u := range []string{"http://tdmfile.test/open.html", "http://headers.test/ok.html", "http://usage.test/public.html"} {
				p, ok := pages[u]
				if !ok {
					t.Errorf("%s: free page not stored", u)
					continue
				}
				if v, _ := p["opt_out"].(string); strings.Contains(v, "reserved") {
					t.Errorf("%s: opt_out %q reserves a free page", u, v)
				}
			}
			if v, _ := pages["http://tdmfile.test/open.html"]["opt_out"].(string); v != "tdm-reservation=0 (tdmrep.json)" {
				t.Errorf("tdmfile.test/open.html: opt_out %q", v)
			}
		})
	}
}
