package crawl_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/politecrawl/crawl/crawltest"
)

// nearDupPage is an HTML page whose main text is text and which links to links.
func nearDupPage(title, text string, links ...string) *crawltest.Page {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head><title>%s</title></head><body><nav><a href=\"/\">Home</a></nav><div class=\"story\"><h1>%s</h1>", title, title)
	for p := range strings.SplitSeq(text, "\n") {
		fmt.Fprintf(&b, "<p>%s</p>", p)
	}
	for _, l := range links {
		fmt.Fprintf(&b, "<p>Read on: <a href=\"%s\">the next page of this site</a></p>", l)
	}
	b.WriteString("</div><footer>Site footer</footer></body></html>")
	return &crawltest.Page{Body: b.String(), Links: append([]string{"/"}, links...)}
}

// nearDupText is a text of n sentences of words drawn from a vocabulary of 3,000.
func nearDupText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		for j := range 12 {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "w%d", r.IntN(3000))
		}
		b.WriteString(".")
		if i%4 == 3 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestCrawlSkipNearDuplicates crawls a site with near-duplicates planted in it, a
// calendar whose day pages differ in their date alone and articles whose session-id
// variants repeat them, beside distinct articles that each lead to one more: with
// extract.skip_near_duplicates the links of a near-duplicate are not followed. A page
// whose links were not followed (its one outlink of the site never fetched) is
// flagged; precision is the flagged pages that are planted near-duplicates, recall the
// planted near-duplicates fetched that are flagged. Both must be 1.
func TestCrawlSkipNearDuplicates(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 4))
	pages := map[string]*crawltest.Page{}
	next := map[string]string{} // each page's one outlink on the site
	planted := map[string]bool{}
	var home []string
	calendar := nearDupText(r, 12)
	for d := 1; d <= 30; d++ {
		path, child := fmt.Sprintf("/whatson/%d", d), fmt.Sprintf("/whatson/%d", d+1)
		pages[path] = nearDupPage("Events", fmt.Sprintf("Events on November %d, 2026.\n", d)+calendar, child)
		next[path] = child
		planted[path] = d > 1
	}
	home = append(home, "/whatson/1")
	for a := range 8 {
		text := nearDupText(r, 10)
		path := fmt.Sprintf("/a%d", a)
		more := fmt.Sprintf("/a%d/more", a)
		sid := func(n int) string { return fmt.Sprintf("/a%d/visit-%d", a, n) } // a session in the path
		pages[path] = nearDupPage("Article", text, more, sid(1))
		pages[more] = nearDupPage("More", nearDupText(r, 10), fmt.Sprintf("/a%d/end", a))
		pages[fmt.Sprintf("/a%d/end", a)] = nearDupPage("End", nearDupText(r, 10))
		next[more] = fmt.Sprintf("/a%d/end", a)
		planted[more] = false
		for n := 1; n <= 10; n++ {
			pages[sid(n)] = nearDupPage("Article", text, more, sid(n+1)) // the same page under another URL
			next[sid(n)] = sid(n + 1)
			planted[sid(n)] = true
		}
		home = append(home, path)
	}
	pages["/"] = &crawltest.Page{Links: home}
	farm := startFarm(t, []crawltest.Site{{Host: "dups.test", Pages: pages}})

	for _, on := range []bool{false, true} {
		dir := t.TempDir()
		cfg := testConfig(farm, dir)
		cfg.Extract.SkipNearDuplicates = on
		cfg.Storage.Text = true
		cfg.Scope.CalendarTrap = false // the calendar is this test's to catch
		runCrawl(t, cfg)
		fetched := map[string]string{} // path → simhash
		for _, line := range readJSONL(t, filepath.Join(dir, "pages.jsonl")) {
			u, _ := line["url"].(string)
			s, _ := line["simhash"].(string)
			fetched[strings.TrimPrefix(u, "http://dups.test")] = s
		}
		var tp, fp, fn int
		for path, child := range next {
			s, ok := fetched[path]
			if !ok {
				continue
			}
			if len(s) != 16 {
				t.Errorf("skip_near_duplicates %v: %s has simhash %q, want 16 hex digits", on, path, s)
			}
			_, followed := fetched[child]
			switch {
			case !followed && planted[path]:
				tp++
			case !followed:
				fp++
			case planted[path]:
				fn++
				if on {
					t.Logf("missed %s (%s), child %s fetched", path, s, child)
				}
			}
		}
		t.Logf("skip_near_duplicates %v: %d pages fetched; flagged %d planted near-duplicates and %d other pages, missed %d", on, len(fetched), tp, fp, fn)
		if !on {
			n := 0
			for path := range pages {
				if _, ok := fetched[path]; ok {
					n++
				}
			}
			if tp+fp != 0 || n != len(pages) {
				t.Errorf("off: %d pages fetched of %d, %d not followed; want all followed", len(fetched), len(pages), tp+fp)
			}
			continue
		}
		if fp != 0 || fn != 0 || tp == 0 {
			t.Errorf("on: precision %d/%d, recall %d/%d; want 1 and 1", tp, tp+fp, tp, tp+fn)
		}
	}
}
