package crawltest

import (
	"maps"
	"slices"
	"testing"
)

func startFarm(t *testing.T, sites ...Site) *Farm {
	t.Helper()
	f, err := Start(sites...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

func sortedKeys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

func TestExpectedDemo(t *testing.T) {
	f := startFarm(t, DemoSites()...)
	want := []string{
		"http://blog.test/",
		"http://blog.test/2026/hello.html",
		"http://blog.test/caf%C3%A9.html",
		"http://blog.test/feed.txt",
		"http://moved.test/",
		"http://moved.test/open.html",
		"http://news.test/",
		"http://news.test/articles/1.html",
		"http://news.test/articles/2.html",
		"http://news.test/front.html",
		"http://news.test/gone.html",
		"http://news.test/old-front-page",
		"http://news.test/private/press/release.html",
		"http://news.test/sitemap-articles.xml.gz",
		"http://news.test/sitemap.xml",
		"http://news.test/sport.html",
		"http://news.test/world.html",
		"http://shop.test/",
		"http://shop.test/about.html",
		"http://shop.test/products/1.html",
		"http://shop.test/products/2.html",
		"http://static.test/",
		"http://static.test/logo.html",
	}
	if got := sortedKeys(f.Expected()); !slices.Equal(got, want) {
		t.Errorf("Expected():\n\tgot  %q\n\twant %q", got, want)
	}
	wantRobots := []string{
		"http://blog.test/robots.txt",
		"http://busy.test/robots.txt",
		"http://down.test/robots.txt",
		"http://moved.test/robots.txt",
		"http://news.test/robots.txt",
		"http://shop.test/robots.txt",
		"http://static.test/robots-for-moved.txt",
		"http://static.test/robots.txt",
	}
	if got := sortedKeys(f.ExpectedRobots()); !slices.Equal(got, wantRobots) {
		t.Errorf("ExpectedRobots():\n\tgot  %q\n\twant %q", got, wantRobots)
	}
	// The hosts of a 2xx HTML page: not down.test (robots.txt 503), busy.test
	// (429); none serves an icon.
	wantIcons := []string{
		"http://blog.test/favicon.ico",
		"http://moved.test/favicon.ico",
		"http://news.test/favicon.ico",
		"http://shop.test/favicon.ico",
		"http://static.test/favicon.ico",
	}
	if got := sortedKeys(f.ExpectedIcons()); !slices.Equal(got, wantIcons) {
		t.Errorf("ExpectedIcons():\n\tgot  %q\n\twant %q", got, wantIcons)
	}
	wantNoFollow := []string{
		"http://news.test/ads/tracker.html",
		"http://news.test/sport/scores.html",
		"http://shop.test/products/secret.html",
	}
	if got := sortedKeys(f.NoFollowOnly()); !slices.Equal(got, wantNoFollow) {
		t.Errorf("NoFollowOnly():\n\tgot  %q\n\twant %q", got, wantNoFollow)
	}
}

// TestExpectedIcons: a host icon is expected where a crawler fetches a 2xx HTML
// page, served or not, with its redirect; not where robots.txt forbids it, where
// only a non-HTML document or an error page is fetched, nor where a page links
// to it (then it is a page).
func TestExpectedIcons(t *testing.T) {
	f := startFarm(t,
		Site{Host: "icon.test", Icon: true, Pages: map[string]*Page{"/": {Links: []string{"http://feed.test/"}}}},
		Site{Host: "plain.test", Pages: map[string]*Page{"/": {}}},
		Site{Host: "blocked.test", Robots: &Robots{Body: "User-agent: *\nDisallow: /favicon.ico\n"}, Icon: true,
			Pages: map[string]*Page{"/": {}, "/favicon.ico": {Disallowed: true}}},
		Site{Host: "moved.test", Pages: map[string]*Page{"/": {}, "/favicon.ico": {RedirectTo: "http://icon.test/img/icon.ico"}}},
		Site{Host: "feed.test", Pages: map[string]*Page{"/": {ContentType: "text/plain", Body: "no page"}}},
		Site{Host: "error.test", Pages: map[string]*Page{"/": {Status: 500}}},
		Site{Host: "linked.test", Icon: true, Pages: map[string]*Page{"/": {Links: []string{"/favicon.ico"}}}},
	)
	want := []string{
		"http://icon.test/favicon.ico",
		"http://icon.test/img/icon.ico",
		"http://moved.test/favicon.ico",
		"http://plain.test/favicon.ico",
	}
	if got := sortedKeys(f.ExpectedIcons()); !slices.Equal(got, want) {
		t.Errorf("ExpectedIcons():\n\tgot  %q\n\twant %q", got, want)
	}
	if !f.Expected()["http://linked.test/favicon.ico"] {
		t.Errorf("Expected() lacks the icon a page links to: %q", sortedKeys(f.Expected()))
	}
}
