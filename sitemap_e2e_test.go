package crawl_test

import (
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
