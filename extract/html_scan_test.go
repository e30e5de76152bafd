package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// htmlScanSoup lists the golden inputs whose tag soup the parser rearranges so that
// HTMLOptions.TokenScan gives some links another anchor text (and nothing else).
var htmlScanSoup = map[string]bool{
	"broken.html": true, // "four" sits in the unclosed "three" <a> of the tree
}

// TestHTMLTokenScanGolden checks that HTMLOptions.TokenScan finds on every golden
// input what the tree finds without text: the same Page, but for the anchor texts of
// the inputs listed in htmlScanSoup.
func TestHTMLTokenScanGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "html", "*.html"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			body, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			header := htmlReadHeader(t, strings.TrimSuffix(in, ".html")+".header")
			opts := HTMLOptions{Agent: "ExampleBot/2.1 (+https://example.org/bot)"}
			tree, err := HTML(htmlTestURL, header, body, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.TokenScan = true
			scan, err := HTML(htmlTestURL, header, body, opts)
			if err != nil {
				t.Fatal(err)
			}
			tree.Fallback = false // the deep input falls back to the scan
			if htmlScanSoup[filepath.Base(in)] {
				for _, p := range []*Page{tree, scan} {
					for i := range p.Links {
						p.Links[i].Text = ""
					}
				}
			}
			got, _ := json.MarshalIndent(scan, "", "\t")
			want, _ := json.MarshalIndent(tree, "", "\t")
			if string(got) != string(want) {
				t.Errorf("HTML(%s) with TokenScan:\n\tgot\n%s\n\twant (the tree)\n%s", in, got, want)
			}
		})
	}
}

// TestHTMLTokenScan checks the token scan against the tree on the markup where a
// scan that reads tags alone goes wrong: elements whose content the tokenizer would
// read as text, and anchor texts taken from elsewhere than the anchor's text.
func TestHTMLTokenScan(t *testing.T) {
	tests := []struct {
		name, body string
		want       []Link
	}{
		{"noscript in body", `<body><noscript><a href="/n">no script</a></noscript>`,
			[]Link{{URL: "https://example.com/n", Tag: "a", Text: "no script"}}},
		{"noscript in head", `<head><noscript><link rel=canonical href="/c"></noscript></head>`,
			[]Link{{URL: "https://example.com/c", Tag: "link", Rel: []string{"canonical"}}}},
		{"svg title is no raw text", `<svg><title>t</svg><a href="/after">after</a>`,
			[]Link{{URL: "https://example.com/after", Tag: "a", Text: "after"}}},
		{"svg integration points", `<svg><a href="/svg">svg</a><title><a href="/t">t</a></title><foreignObject><a href="/f">f</a></foreignObject></svg>`,
			[]Link{{URL: "https://example.com/t", Tag: "a", Text: "t"}, {URL: "https://example.com/f", Tag: "a", Text: "f"}}},
		{"math integration point", `<math><mi><a href=/m>m</a></mi><mrow><a href=/no>no</a></mrow></math>`,
			[]Link{{URL: "https://example.com/m", Tag: "a", Text: "m"}}},
		{"image alt", `<a href="/i"><img src=x.png alt=" An  image "></a>`,
			[]Link{{URL: "https://example.com/i", Tag: "a", Text: "An image"}}},
		{"first alt", `<a href="/i"><img src=x.png><span><img alt="second"></span><img alt=third></a>`,
			[]Link{{URL: "https://example.com/i", Tag: "a", Text: "second"}}},
		{"title", `<a href="/t" title="The title"><img src=x.png></a>`,
			[]Link{{URL: "https://example.com/t", Tag: "a", Text: "The title"}}},
		{"text before alt", `<a href="/t" title="no"><img alt="no">yes</a>`,
			[]Link{{URL: "https://example.com/t", Tag: "a", Text: "yes"}}},
		{"script in anchor", `<a href="/s">one<script>var x = "two";</script><style>p{}</style> three</a>`,
			[]Link{{URL: "https://example.com/s", Tag: "a", Text: "one three"}}},
		{"anchor closed by anchor", `<p><a href=/one>one <a href=/two>two</a>`,
			[]Link{{URL: "https://example.com/one", Tag: "a", Text: "one"}, {URL: "https://example.com/two", Tag: "a", Text: "two"}}},
		{"self-closing anchor", `<a href="/x"/>text<p>`,
			[]Link{{URL: "https://example.com/x", Tag: "a", Text: "text"}}},
		{"script hides markup", `<script>document.write('<a href="/js">js</a>')</script><textarea><a href="/ta"></textarea>`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, scan := range []bool{false, true} {
				p, err := HTML(mustParse("https://example.com/"), nil, []byte(tt.body), HTMLOptions{TokenScan: scan})
				if err != nil {
					t.Fatal(err)
				}
				got, _ := json.Marshal(p.Links)
				want, _ := json.Marshal(tt.want)
				if string(got) != string(want) {
					t.Errorf("HTML(%q), TokenScan %v:\n\tgot  %s\n\twant %s", tt.body, scan, got, want)
				}
			}
		})
	}
}
