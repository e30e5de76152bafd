package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTextGolden extracts the main text of every testdata/text/*.html, page shapes
// taken from real sites (Sphinx, DocBook XHTML, WordPress, a news site without
// semantic markup), as plain text and Markdown, and compares them with the .txt and
// .md files beside it.
func TestTextGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "text", "*.html"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(in, ".html")
		body, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			ext    string
			format TextFormat
		}{{".txt", TextPlain}, {".md", TextMarkdown}} {
			t.Run(filepath.Base(name)+f.ext, func(t *testing.T) {
				page, err := HTML(htmlTestURL, nil, body, HTMLOptions{WithText: true, TextFormat: f.format})
				if err != nil {
					t.Fatal(err)
				}
				got := []byte(page.Text + "\n")
				if *update {
					if err := os.WriteFile(name+f.ext, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(name + f.ext)
				if err != nil {
					t.Fatalf("%v (run go test ./extract -run TestTextGolden -update)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("HTML(%s).Text:\n\tgot\n%s\n\twant\n%s", in, got, want)
				}
			})
		}
	}
}

// TestTextStructure checks, on the same pages, what the golden files are meant to
// show: what must be kept and what must go.
func TestTextStructure(t *testing.T) {
	tests := []struct {
		file    string
		format  TextFormat
		with    []string
		without []string
	}{
		{"sphinx.html", TextPlain, []string{
			"Source code: Lib/json/__init__.py\nJSON (JavaScript",            // the <h1> repeating <title> is Page.Title
			">>> import json\n>>> def f(x):\n...     return json.dumps(x)\n", // lines and indentation
			"Python\tJSON\ndict\tobject\nlist, tuple\tarray\n",               // table rows
			"If skipkeys is true",
			"As noted in the errata for RFC 7159", // the footnote in <aside>
		}, []string{"json — JSON encoder and decoder", "¶", "Navigation", "Table of Contents", "Previous topic", "Report a bug", "Copyright"}},
		{"sphinx.html", TextMarkdown, []string{
			"# `json` — JSON encoder and decoder\n",
			"## Basic Usage\n",
			"```python3\n>>> import json\n>>> def f(x):\n...     return json.dumps(x)\n```\n",
			"| Python | JSON |\n| --- | --- |\n| dict | object |\n",
			"- If skipkeys is true", "[Lib/json/__init__.py](https://github.com/python/cpython/tree/3.13/Lib/json/__init__.py)",
		}, []string{"¶", "Table of Contents"}},
		{"docbook.html", TextPlain, []string{
			"This section describes",
			"Function\tReturn Type\tExample\nascii(text)\tint\tascii('x') → 120\n",
			"SELECT format('Hello %s', 'World');\nResult: Hello World\n\nSELECT format('Testing %s, %s, %s, %%', 'one', 'two', 'three');\n    -- indented comment",
		}, []string{"Prev", "Next", "Home", "Chapter 9. Functions and Operators", "#", "9.4. String Functions and Operators"}},
		{"docbook.html", TextMarkdown, []string{"## 9.4. String Functions and Operators\n\nThis section describes"}, nil},
		{"wordpress.html", TextPlain, []string{
			"Sourdough needs three things",
			"Feed the starter at 8 in the morning.\nMix the dough at 8 in the evening.\n",
			"the schedule matters less.",
		}, []string{"The loaf after 45 minutes", "Skip to content", "Recipes and notes", "Posted on", "Share this", "Twitter", "Ben", "I tried this schedule", "Leave a Reply", "Recent Posts", "A rye loaf", "WordPress"}},
		{"wordpress.html", TextMarkdown, []string{"1. Feed the starter", "2. Mix the dough", "3. Shape and bake"}, nil},
		{"news.html", TextPlain, []string{
			"The city council voted on Thursday",
			"most of it paid by a regional grant.\n“This is a good day",
			"Work is due to start next spring and to take about two years.",
		}, []string{"cookies", "Sport", "Home", "Read more", "Old bridge closed", "Tweet", "Most read", "Storm warning", "Newsletter", "All rights reserved"}},
	}
	for _, tt := range tests {
		body, err := os.ReadFile(filepath.Join("testdata", "text", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		page, err := HTML(htmlTestURL, nil, body, HTMLOptions{WithText: true, TextFormat: tt.format})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range tt.with {
			if !strings.Contains(page.Text, s) {
				t.Errorf("HTML(%s, format %d).Text lacks %q; text:\n%s", tt.file, tt.format, s, page.Text)
			}
		}
		for _, s := range tt.without {
			if strings.Contains(page.Text, s) {
				t.Errorf("HTML(%s, format %d).Text holds %q; text:\n%s", tt.file, tt.format, s, page.Text)
			}
		}
	}
}

// TestTextLargePage checks the main text of pages too large for a tree even without
// their scripts and styles (htmlMaxTreeBytes): a blog post followed by thousands of
// comments (rogerebert.com, fourhourworkweek.com) gives the post, chosen in the tree of
// the body's beginning; an article that runs on past it gives all the text of the
// page, as the token scan reads it; and a page whose tags are indented over many lines
// is read into a tree, the white space between attributes making no node.
func TestTextLargePage(t *testing.T) {
	var comments strings.Builder
	meta := strings.Repeat("x", 20000)
	for i := range 40 {
		comments.WriteString(`<li class="comment" id="comment-` + strconv.Itoa(i) + `" data-meta="` + meta + `"><div class="comment-author"><a href="/u/` + strconv.Itoa(i) + `">Reader ` + strconv.Itoa(i) +
			`</a></div><p>Great post, thanks for writing it, I read every word of it twice.</p></li>` + "\n")
	}
	var long strings.Builder
	for long.Len() <= htmlMaxTreeBytes {
		long.WriteString(textArticle(20))
	}
	indent := `<a` + strings.Repeat(" ", 200) + `href="/tag"` + strings.Repeat("\n\t", 100) + `class="tag">tag</a>`
	tests := []struct {
		name     string
		html     string
		fallback bool
		with     []string
		without  []string
	}{{
		name:     "post and comments",
		html:     `<div id="content"><div class="entry">` + textArticle(45) + `</div><div id="comments"><ol class="commentlist">` + comments.String() + `</ol></div></div><p><a href="/last">The last link</a></p>`,
		fallback: true,
		with:     []string{"Paragraph A", "Paragraph E"},
		without:  []string{"Great post", "Reader 1"},
	}, {
		name:     "article past the tree",
		html:     `<article>` + long.String() + `<p>The very last paragraph of the article, which the tree of the page's beginning does not hold.</p></article><p><a href="/last">The last link</a></p>`,
		fallback: true,
		with:     []string{"Paragraph A", "The very last paragraph"},
	}, {
		name:    "indented tags",
		html:    `<div class="post">` + textArticle(5) + `<ul class="tags">` + strings.Repeat("<li>"+indent+"</li>\n", 1500) + `</ul></div><p><a href="/last">The last link</a></p>`,
		with:    []string{"Paragraph A", "Paragraph E"},
		without: []string{"tag"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte("<!DOCTYPE html><html><head><title>A large page</title></head><body>" + tt.html + "</body></html>")
			if len(body) <= htmlMaxTreeBytes {
				t.Fatalf("the page is %d bytes, not larger than a tree's %d", len(body), htmlMaxTreeBytes)
			}
			page, err := HTML(htmlTestURL, nil, body, HTMLOptions{WithText: true, MaxTextBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if page.Fallback != tt.fallback {
				t.Errorf("Fallback %v, want %v", page.Fallback, tt.fallback)
			}
			if n := len(page.Links); n == 0 || page.Links[n-1].URL != "https://example.com/last" {
				t.Errorf("the page's last link is missing: %d links", n)
			}
			if page.SimHash != TextSimHash(page.Text) {
				t.Errorf("SimHash %x is not that of the text", page.SimHash)
			}
			for _, s := range tt.with {
				if !strings.Contains(page.Text, s) {
					t.Errorf("text lacks %q", s)
				}
			}
			for _, s := range tt.without {
				if strings.Contains(page.Text, s) {
					t.Errorf("text holds %q", s)
				}
			}
		})
	}
}

// TestTextBaseline checks the text of pages in which the heuristic finds none: their
// paragraphs, each once (textBaseline), within the limit, as Markdown paragraphs; and
// nothing where they hold too little to be a text.
func TestTextBaseline(t *testing.T) {
	para := func(n int) string {
		return "Paragraph " + strconv.Itoa(n) + " of a story told in a box that the page names for something else, long enough to be read as prose by anyone."
	}
	// All of the page's text sits in blocks that are boilerplate by their names (a
	// story shown once the reader consents, in two parts), none holding most of it.
	cta := func(s string) string {
		return `<div class="consent-gate"><h2>Part</h2>` + s + `</div>`
	}
	page := `<body>` + cta(`<p>`+para(1)+`</p><p>`+para(2)+`</p>`) + cta(`<p>`+para(3)+`</p><p>`+para(1)+`</p>`) +
		cta(`<p>`+para(4)+`</p><pre>line one
    line two</pre><script>var x = "<p>not text</p>"</script>`) + `</body>`
	want := para(1) + "\n" + para(2) + "\n" + para(3) + "\n" + para(4) + "\nline one\nline two"
	tests := []struct {
		name, body string
		format     TextFormat
		max        int
		want       string
	}{
		{"paragraphs once", page, TextPlain, 0, want},
		{"markdown", page, TextMarkdown, 0, strings.ReplaceAll(want, "\n", "\n\n")},
		{"limit", page, TextPlain, 50, para(1)[:50]},
		// Starcasm's post sits in an <aside> (a sidebar to the heuristic), and all it
		// finds besides is a comment form's heading and a line of links.
		{"aside", `<body><div id="container"><section id="leftColumn"><aside class="blogPost"><h1>Honey Boo Boo</h1><div class="blogContent"><p>` + para(1) + `</p><p>` + para(2) + `</p><p>` + para(3) + `</p><p>` + para(4) + `</p><p>` + para(5) + `</p><p>` + para(6) + `</p><p>` + para(7) + `</p></div></aside>` +
			`<div id="respond"><h3>SPEAK YOUR MIND</h3><p>Signed in as Guest <a href="/login">Sign in</a> or <a href="/join">Join</a></p></div></section>` +
			`</div><footer>` + textFeedItems(30, `<a href="/page%">Page % of the site's many sections</a> `) + `</footer></body>`,
			TextPlain, 0, para(1) + "\n" + para(2) + "\n" + para(3) + "\n" + para(4) + "\n" + para(5) + "\n" + para(6) + "\n" + para(7) + "\nSigned in as Guest Sign in or Join"},
		{"too little", `<body>` + cta(`<p>Difficulty: easy</p>`) + cta(`<p>Length: 5 miles</p>`) + cta(`<p>Steward: Dave</p>`) + `</body>`, TextPlain, 0, ""},
	}
	for _, tt := range tests {
		max := tt.max
		if max == 0 {
			max = DefaultMaxTextBytes
		}
		p, err := HTML(htmlTestURL, nil, []byte(tt.body), HTMLOptions{WithText: true, TextFormat: tt.format, MaxTextBytes: max})
		if err != nil {
			t.Fatal(err)
		}
		if p.Text != tt.want {
			t.Errorf("%s: text\n%q\nwant\n%q", tt.name, p.Text, tt.want)
		}
	}
}
