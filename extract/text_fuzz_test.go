package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// FuzzHTMLText extracts the main text of any input in both formats: no panic, valid
// UTF-8, never more than MaxTextBytes, and plain text never holds a permalink mark
// written alone as a link's text; the SimHash is that of the plain text in both, and
// the two texts written from one textChosen are those written from one each
// (textWritesAgree).
func FuzzHTMLText(f *testing.F) {
	for _, dir := range []string{"text", "html"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.html"))
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`<pre>a<pre>b</pre><li><table><tr><td><h1>x<a href="#y">¶</a>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		const max = 300
		var sums []SimHash
		for _, format := range []TextFormat{TextPlain, TextMarkdown} {
			p, err := HTML(htmlTestURL, nil, body, HTMLOptions{WithText: true, TextFormat: format, MaxTextBytes: max})
			if err != nil {
				t.Fatal(err)
			}
			sums = append(sums, p.SimHash)
			if !utf8.ValidString(p.Text) {
				t.Fatalf("text is not UTF-8: %q", p.Text)
			}
			if len(p.Text) > max {
				t.Fatalf("text has %d bytes, more than %d", len(p.Text), max)
			}
		}
		if sums[0] != sums[1] {
			t.Fatalf("SimHash with Markdown %x, with plain text %x: not that of the same plain text", sums[1], sums[0])
		}
		textWritesAgree(t, "the input", body, max)
	})
}

// FuzzHTMLStrip checks that htmlStrip keeps what the tree needs: the document built
// from the stripped body has the links the original has, but for comments, scripts,
// styles and SVG; and that htmlTree, stripping as it builds, builds the tree of the
// stripped body.
func FuzzHTMLStrip(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "text", "*.html"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<p>a<script>var s = "<a href=x>";</script><svg><a href="y"><text>t</text></a></svg><!-- <a href=z> --><a href=w>w</a><style>p{}</style>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s, ok := htmlStrip(body, len(body)+1)
		if !ok {
			t.Fatalf("htmlStrip(%q) refused a body within its bound", body)
		}
		if len(s) > len(body) {
			t.Fatalf("htmlStrip grew %d bytes to %d", len(body), len(s))
		}
		want, got := stripLinks(t, body), stripLinks(t, s)
		if !slices.Equal(got, want) {
			t.Fatalf("links of %q:\n\tgot  %q\n\twant %q (stripped %q)", body, got, want, s)
		}
		stripped, _, err1 := htmlTree(body, nil, len(body)+1)
		built, _, err2 := htmlTree(s, nil, 0)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("htmlTree(%q) stripping: %v; of the stripped body: %v", body, err1, err2)
		}
		if err1 == nil {
			var g, w strings.Builder
			if err := html.Render(&g, stripped); err != nil {
				t.Fatal(err)
			}
			if err := html.Render(&w, built); err != nil {
				t.Fatal(err)
			}
			if g.String() != w.String() {
				t.Fatalf("htmlTree(%q) stripping:\n\tgot  %s\n\twant %s", body, g.String(), w.String())
			}
		}
	})
}

// stripLinks returns the page's link URLs as HTML finds them with a tree.
func stripLinks(t *testing.T, body []byte) []string {
	if _, err := html.Parse(bytes.NewReader(body)); err != nil {
		t.Skip() // too deep for a tree
	}
	p, err := HTML(htmlTestURL, nil, body, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, l := range p.Links {
		urls = append(urls, l.Tag+" "+l.URL)
	}
	return urls
}
