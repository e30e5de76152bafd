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
	wantNoFollow := []string{
		"http://news.test/ads/tracker.html",
		"http://news.test/sport/scores.html",
		"http://shop.test/products/secret.html",
	}
	if got := sortedKeys(f.NoFollowOnly()); !slices.Equal(got, wantNoFollow) {
		t.Errorf("NoFollowOnly():\n\tgot  %q\n\twant %q", got, wantNoFollow)
	}
}
