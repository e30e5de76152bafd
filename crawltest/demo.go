package crawltest

import "time"

// DemoAgent is the product token the robots.txt files of [DemoSites] name.
const DemoAgent = "politecrawl"

// DemoSites returns a small, varied farm for `crawl demo` and end-to-end
// tests: seven hosts showing each kind of robots.txt (a group for
// politecrawl with a longest-match Allow, merged groups with a wildcard and a
// Crawl-delay of 250ms, 404, 403, 429, 503, a redirect to a file on another
// host), a sitemap index with a gzipped sitemap, nofollow links, a meta
// nofollow page, X-Robots-Tag nofollow pages, redirects, a 404, a gzipped
// page, a non-ASCII path and pages reachable only through a sitemap or only
// through a disallowed page. Crawled by politecrawl with a 50–100ms minimum
// delay it takes two or three seconds (news.test's 13 requests are the
// longest queue). The sites are new on every call.
func DemoSites() []Site {
	return []Site{
		{
			Host: "news.test",
			Robots: &Robots{Body: "# news.test\n" +
				"User-agent: politecrawl\n" +
				"Disallow: /private/\n" +
				"Allow: /private/press/\n" +
				"\n" +
				"User-agent: *\n" +
				"Disallow: /\n"},
			Sitemaps: []string{"http://news.test/sitemap.xml"},
			Pages: map[string]*Page{
				"/": {Links: []string{"/world.html", "/sport.html", "/private/drafts.html",
					"/private/press/release.html", "/old-front-page", "/gone.html", "http://blog.test/"}},
				"/world.html":                 {Links: []string{"/"}, NoFollowLinks: []string{"/ads/tracker.html"}},
				"/ads/tracker.html":           {},
				"/sport.html":                 {MetaNoFollow: true, Links: []string{"/sport/scores.html"}},
				"/sport/scores.html":          {},
				"/private/drafts.html":        {Disallowed: true, Links: []string{"/leaked.html"}},
				"/leaked.html":                {},
				"/private/press/release.html": {Links: []string{"/"}},
				"/old-front-page":             {RedirectTo: "/front.html"},
				"/front.html":                 {Links: []string{"/world.html"}},
				"/sitemap.xml":                {Sitemap: true, Links: []string{"/sitemap-articles.xml.gz"}},
				"/sitemap-articles.xml.gz":    {Sitemap: true, Gzip: true, Links: []string{"/articles/1.html", "/articles/2.html"}},
				"/articles/1.html":            {Size: 8 << 10},
				"/articles/2.html":            {Size: 8 << 10},
			},
		},
		{
			Host: "shop.test",
			Robots: &Robots{Body: "# shop.test: the two politecrawl groups merge\n" +
				"User-agent: politecrawl\n" +
				"Crawl-delay: 0.25\n" +
				"Disallow: /cart\n" +
				"\n" +
				"User-agent: *\n" +
				"Disallow: /\n" +
				"\n" +
				"User-agent: otherbot\n" +
				"User-agent: PoliteCrawl\n" +
				"Disallow: /*?sort=\n"},
			Delay: 250 * time.Millisecond,
			Pages: map[string]*Page{
				"/": {Links: []string{"/products/1.html", "/products/2.html", "/cart",
					"/products/1.html?sort=price", "/about.html"}},
				"/products/1.html":            {HeaderNoFollow: true, Links: []string{"/products/secret.html"}},
				"/products/2.html":            {HeaderNoFollow: true, Links: []string{"/products/secret.html"}},
				"/products/secret.html":       {},
				"/cart":                       {Disallowed: true},
				"/products/1.html?sort=price": {Disallowed: true},
				"/about.html":                 {},
			},
		},
		{
			Host: "blog.test", // no robots.txt: 404, everything allowed
			Pages: map[string]*Page{
				"/":                {Links: []string{"/2026/hello.html", "/café.html", "http://news.test/world.html", "/feed.txt"}},
				"/2026/hello.html": {Gzip: true, Size: 20 << 10, Links: []string{"/"}},
				"/caf%C3%A9.html":  {Links: []string{"/"}},
				"/feed.txt":        {ContentType: "text/plain; charset=utf-8", Body: "a plain text file\n"},
			},
		},
		{
			Host:   "static.test", // robots.txt 403: everything allowed
			Robots: &Robots{Status: 403},
			Pages: map[string]*Page{
				"/":          {Links: []string{"/logo.html"}},
				"/logo.html": {},
				"/robots-for-moved.txt": {ContentType: "text/plain; charset=utf-8",
					Body: "User-agent: *\nDisallow: /hidden/\n"},
			},
		},
		{
			Host:   "moved.test", // robots.txt redirects to a file on static.test
			Robots: &Robots{RedirectTo: "http://static.test/robots-for-moved.txt"},
			Pages: map[string]*Page{
				"/":              {Links: []string{"/open.html", "/hidden/a.html"}},
				"/open.html":     {},
				"/hidden/a.html": {Disallowed: true},
			},
		},
		{
			Host:   "down.test", // robots.txt 503: nothing but robots.txt
			Robots: &Robots{Status: 503},
			Pages:  map[string]*Page{"/": {Links: []string{"/a.html"}}, "/a.html": {}},
		},
		{
			Host:   "busy.test", // robots.txt 429: nothing but robots.txt
			Robots: &Robots{Status: 429},
			Pages:  map[string]*Page{"/": {}},
		},
	}
}
