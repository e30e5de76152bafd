package crawl_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/politecrawl/crawl/crawltest"
)

// A sitemap that robots.txt lists may name any URL of its host, wherever the sitemap
// lives (sitemaps.org, "Sitemaps & Cross Submits"); so may the children of an index
// that robots.txt lists, gzip-compressed or not, and a listed sitemap that redirects.
// Issue 12, defect 2: all of them were dropped as "sitemap-cross-path".
func TestCrawlSitemapsInSubdirectory(t *testing.T) {
	farm := startFarm(t, []crawltest.Site{
		{
			Host:   "docs.test",
			Robots: &crawltest.Robots{Body: "User-agent: *\nAllow: /\n"},
			Sitemaps: []string{"http://docs.test/sitemaps/sitemap.xml", "http://docs.test/sitemaps/sitemap-index.xml",
				"http://docs.test/sitemaps/moved.xml"},
			Pages: map[string]*crawltest.Page{
				"/":                           {},
				"/sitemaps/sitemap.xml":       {Sitemap: true, Links: []string{"/orphan.html"}},
				"/sitemaps/sitemap-index.xml": {Sitemap: true, Links: []string{"/sitemaps/manual.xml.gz"}},
				"/sitemaps/manual.xml.gz":     {Sitemap: true, Gzip: true, Links: []string{"/manual/intro.html", "/library/os.html"}},
				"/sitemaps/moved.xml":         {RedirectTo: "/sitemaps/new/sitemap.xml"},
				"/sitemaps/new/sitemap.xml":   {Sitemap: true, Links: []string{"/moved-orphan.html"}},
				"/orphan.html":                {},
				"/moved-orphan.html":          {},
				"/manual/intro.html":          {},
				"/library/os.html":            {},
			},
		},
	})
	sum := runCrawl(t, testConfig(farm, t.TempDir()))
	auditOK(t, farm, 0)
	if n := sum.Skipped["sitemap-cross-path"]; n != 0 {
		t.Errorf("%d sitemap URLs skipped as cross-path", n)
	}
}

// A sitemap may be as large as the protocol allows (50,000 URLs, 50 MB uncompressed),
// larger than the limits for pages (fetch.max_body_size, fetch.max_decoded_size): it is
// read whole, not cut at those limits, so none of the URLs it lists is lost.
func TestCrawlLargeSitemap(t *testing.T) {
	const n = 45000
	pad := strings.Repeat("x", 200) // about 10 MB of sitemap in all
	links := make([]string, n)
	for i := range links {
		links[i] = fmt.Sprintf("/p/%s/%05d.html", pad, i)
	}
	farm := startFarm(t, []crawltest.Site{{
		Host:     "big.test",
		Robots:   &crawltest.Robots{Body: "User-agent: *\nAllow: /\n"},
		Sitemaps: []string{"http://big.test/sitemap.xml"},
		Pages: map[string]*crawltest.Page{
			"/":            {},
			"/sitemap.xml": {Sitemap: true, Links: links},
		},
	}})
	cfg := testConfig(farm, t.TempDir())
	cfg.Scope.MaxPages = 2 // the seed and the sitemap: the sitemap's URLs stay queued
	sum := runCrawl(t, cfg)
	if sum.Queued != n {
		t.Errorf("%d URLs queued after the sitemap, want its %d (skipped: %v)", sum.Queued, n, sum.Skipped)
	}
	if k := sum.Skipped["sitemap-truncated"]; k != 0 {
		t.Errorf("sitemap counted as truncated %d times", k)
	}
}
