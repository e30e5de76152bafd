package texteval

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/politecrawl/crawl/extract"
)

// ours extracts the main text of a page as the crawl does.
func ours(t testing.TB, p Page) string {
	u, err := url.Parse(p.URL)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		// The set has a few keys that are not URLs ("xhttps://...").
		u = &url.URL{Scheme: "https", Host: "example.com", Path: "/" + p.Name}
	}
	pg, err := extract.HTML(u, nil, p.HTML, extract.HTMLOptions{WithText: true})
	if err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	return pg.Text
}

// dump writes text to $POLITECRAWL_TEXTEVAL_DUMP/name.txt and the page's truth beside it
// (name.truth: the whole text, or the trafilatura set's snippets) when that is set.
func dump(t testing.TB, name, text, truth string) {
	dir := os.Getenv("POLITECRAWL_TEXTEVAL_DUMP")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".truth"), []byte(truth), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTrafilaturaSet scores our text on trafilatura's evaluation set, in
// $POLITECRAWL_TEXTEVAL_TRAF (a checkout's tests/ directory).
func TestTrafilaturaSet(t *testing.T) {
	dir := os.Getenv("POLITECRAWL_TEXTEVAL_TRAF")
	if dir == "" {
		t.Skip("POLITECRAWL_TEXTEVAL_TRAF not set")
	}
	pages, err := LoadTrafilatura(filepath.Join(dir, "evaldata.json"), filepath.Join(dir, "eval"))
	if err != nil {
		t.Fatal(err)
	}
	ref := reference(t)
	var s, r Snippets
	for _, p := range pages {
		text := ours(t, p)
		dump(t, p.Name, text, p.Truth)
		c := CountSnippets(p.With, p.Without, text)
		if testing.Verbose() && (c.FN > 0 || c.FP > 0) {
			t.Logf("%s: tp %d fp %d fn %d", p.Name, c.TP, c.FP, c.FN)
		}
		s.Add(c)
		if ref != nil {
			r.Add(CountSnippets(p.With, p.Without, ref[p.Name]))
		}
	}
	t.Logf("trafilatura set: %d pages, precision %.3f recall %.3f accuracy %.3f F1 %.4f (tp %d fp %d fn %d tn %d)",
		len(pages), s.Precision(), s.Recall(), s.Accuracy(), s.F1(), s.TP, s.FP, s.FN, s.TN)
	if ref != nil {
		t.Logf("reference on the same pages: precision %.3f recall %.3f accuracy %.3f F1 %.3f (tp %d fp %d fn %d tn %d)",
			r.Precision(), r.Recall(), r.Accuracy(), r.F1(), r.TP, r.FP, r.FN, r.TN)
	}
}

// reference loads the texts of $POLITECRAWL_TEXTEVAL_REFERENCE, the output of
// .ci/readability.js on the same pages; nil when it is not set.
func reference(t *testing.T) map[string]string {
	path := os.Getenv("POLITECRAWL_TEXTEVAL_REFERENCE")
	if path == "" {
		return nil
	}
	ref, err := LoadReference(path)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// scoreShingles scores our text on pages with the benchmark's shingle metric and logs
// the set's figures as name, and Readability.js's on the same pages when
// $POLITECRAWL_TEXTEVAL_REFERENCE names its output; each page whose name begins with one
// of groups is also counted in that group, logged apart. In verbose mode the pages whose
// TP is under 0.95 are logged.
func scoreShingles(t *testing.T, name string, pages []Page, groups ...string) {
	if len(pages) == 0 {
		t.Fatalf("%s: no pages", name)
	}
	ref := reference(t)
	groups = append(groups, "") // the whole set, last
	counts := make(map[string][]Counts)
	refCounts := make(map[string][]Counts)
	for _, p := range pages {
		text := ours(t, p)
		dump(t, p.Name, text, p.Truth)
		c := Shingles(p.Truth, text)
		if testing.Verbose() && c.TP < 0.95 {
			t.Logf("%s: tp %.3f fp %.3f fn %.3f", p.Name, c.TP, c.FP, c.FN)
		}
		for _, g := range groups {
			if strings.HasPrefix(p.Name, g) {
				counts[g] = append(counts[g], c)
				if ref != nil {
					refCounts[g] = append(refCounts[g], Shingles(p.Truth, ref[p.Name]))
				}
			}
		}
	}
	for _, g := range groups {
		label := name
		if g != "" {
			label = "  " + strings.TrimSuffix(g, "-") + " pages"
		}
		s := Mean(counts[g])
		t.Logf("%s: %d pages, F1 %.4f precision %.4f recall %.4f", label, s.Pages, s.F1, s.Precision, s.Recall)
		if ref != nil {
			r := Mean(refCounts[g])
			t.Logf("%s: reference on the same pages: F1 %.3f precision %.3f recall %.3f", label, r.F1, r.Precision, r.Recall)
		}
	}
}

// TestBenchmarkSet scores our text on the article extraction benchmark, in
// $POLITECRAWL_TEXTEVAL_AEB (a checkout of scrapinghub/article-extraction-benchmark).
func TestBenchmarkSet(t *testing.T) {
	scoreDir(t, "POLITECRAWL_TEXTEVAL_AEB", LoadBenchmark, "benchmark")
}

// TestReadabilitySet scores our text against Readability.js's expected output on its
// own test pages, in $POLITECRAWL_TEXTEVAL_RDB (a checkout's test/test-pages), with the
// benchmark's shingle metric: a measure of agreement with Readability.js more than a
// truth, which weighs boilerplate kept.
func TestReadabilitySet(t *testing.T) {
	scoreDir(t, "POLITECRAWL_TEXTEVAL_RDB", LoadReadability, "readability test pages")
}

// TestNewsSet scores our text on the news set built by newsset.sh in
// $POLITECRAWL_TEXTEVAL_NEWS (L3S-GN1's and Dragnet's news and blog pages, whole
// article texts chosen by people), with the benchmark's shingle metric, for the whole
// set and for each of its two sources; and Readability.js's text on the same pages when
// $POLITECRAWL_TEXTEVAL_REFERENCE names its output.
func TestNewsSet(t *testing.T) {
	scoreDir(t, "POLITECRAWL_TEXTEVAL_NEWS", LoadNews, "news set", "gn1-", "dragnet-")
}

// TestModernSet scores our text on the modern set built by modernset.sh in
// $POLITECRAWL_TEXTEVAL_MODERN (GoogleTrends-2017's pages of 2017, the article bodies
// their annotators labelled), with the benchmark's shingle metric; and Readability.js's
// text on the same pages when $POLITECRAWL_TEXTEVAL_REFERENCE names its output.
func TestModernSet(t *testing.T) {
	scoreDir(t, "POLITECRAWL_TEXTEVAL_MODERN", LoadModern, "modern set")
}

// TestWCXBSet scores our text on the WCXB set built by wcxbset.sh in
// $POLITECRAWL_TEXTEVAL_WCXB (WCXB 1.0's development split: pages of 2025 of seven
// types, their main text reviewed by people), with the benchmark's shingle metric, for
// the whole set and for each page type; and Readability.js's text on the same pages
// when $POLITECRAWL_TEXTEVAL_REFERENCE names its output. Its article pages are the
// held-back benchmark's kind.
func TestWCXBSet(t *testing.T) {
	scoreDir(t, "POLITECRAWL_TEXTEVAL_WCXB", LoadWCXB, "wcxb set", "wcxb-article-", "wcxb-collection-", "wcxb-documentation-",
		"wcxb-forum-", "wcxb-listing-", "wcxb-product-", "wcxb-service-")
}

// scoreDir scores with scoreShingles, as name, the pages load reads from the directory
// the environment variable env names; the test is skipped when it names none.
func scoreDir(t *testing.T, env string, load func(dir string) ([]Page, error), name string, groups ...string) {
	dir := os.Getenv(env)
	if dir == "" {
		t.Skip(env + " not set")
	}
	pages, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	scoreShingles(t, name, pages, groups...)
}
