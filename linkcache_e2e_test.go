package crawl_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/frontier"
)

// TestCrawlHandsEachLinkOnce crawls a site whose pages all link to one another and
// checks that the frontier was handed about one link per page (the engine's cache of
// links handed lately), not one per link found, and that every page was still
// fetched once.
func TestCrawlHandsEachLinkOnce(t *testing.T) {
	const n = 12
	var all []string
	for i := range n {
		all = append(all, fmt.Sprintf("/p%d.html", i))
	}
	pages := map[string]*crawltest.Page{"/": {Links: all}}
	for _, p := range all {
		pages[p] = &crawltest.Page{Links: append([]string{"/"}, all...)}
	}
	farm := startFarm(t, []crawltest.Site{{Host: "mesh.test", Pages: pages}})
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	sum := runCrawl(t, cfg)
	if !sum.Complete || sum.Pages != n+1 {
		t.Fatalf("pages %d, complete %v: want %d, true", sum.Pages, sum.Complete, n+1)
	}
	auditOK(t, farm, 0)

	f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st := f.Stats()
	// The seed, then each page once from the seed page, "/" once more (found at
	// depth 2, after the seed was added), and the host's /favicon.ico, a requisite of
	// every page, once: 3 + n. Without the cache, every page's n+1 links and its icon.
	if handed := st.Added + st.Duplicates + st.Staged; handed > 3+n {
		t.Errorf("the frontier was handed %d URLs (added %d, duplicates %d, staged %d) for %d pages and a host icon, want at most %d",
			handed, st.Added, st.Duplicates, st.Staged, n+1, 3+n)
	}
}
