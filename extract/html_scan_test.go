package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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

// long is a run of text longer than the scan jumps over.
var long = strings.Repeat("Words &amp; more words\n", 2*htmlSkipText/20)

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
		// Long runs of text, which the scan jumps over when it has no use for them.
		{"long text", `<p>` + long + `<a href="/x">x</a>` + long + `< b ` + long + `<a href="/y">y</a>` + long,
			[]Link{{URL: "https://example.com/x", Tag: "a", Text: "x"}, {URL: "https://example.com/y", Tag: "a", Text: "y"}}},
		{"long anchor text", `<a href="/x">` + long + `<b>bold</b></a>`,
			[]Link{{URL: "https://example.com/x", Tag: "a", Text: htmlCut(htmlCollapse(strings.ReplaceAll(long, "&amp;", "&")), htmlMaxAnchorText)}}},
		{"long raw text", `<script>` + long + `<a href="/js">` + long + `</script><style>` + long + `<a href="/css"></style>` +
			`<textarea>` + long + `<a href="/ta"></textarea><xmp>` + long + `<a href="/xmp"></xmp><a href="/z">z</a>`,
			[]Link{{URL: "https://example.com/z", Tag: "a", Text: "z"}}},
		{"long noscript", `<noscript>` + long + `<a href="/n">n</a></noscript>`,
			[]Link{{URL: "https://example.com/n", Tag: "a", Text: "n"}}},
		{"long attribute", `<a title="` + long + `>` + long + `" href="/t">t</a>`,
			[]Link{{URL: "https://example.com/t", Tag: "a", Text: "t"}}},
		{"long comment", `<!--` + long + `<a href="/c">` + long + `-->` + long + `<a href="/d">d</a>`,
			[]Link{{URL: "https://example.com/d", Tag: "a", Text: "d"}}},
		{"long plaintext", `<plaintext>` + long + `<a href="/p">p</a>`, nil},
		{"long svg text", `<svg><text>` + long + `</text><title>` + long + `<a href="/s">s</a></title></svg>`,
			[]Link{{URL: "https://example.com/s", Tag: "a", Text: "s"}}},
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

// TestHTMLTokenScanSkipsText checks that the scan does not read long runs of text it
// has no use for into its buffer: a page of 4 MiB of text costs far less than its size.
func TestHTMLTokenScanSkipsText(t *testing.T) {
	body := []byte("<html><body><p>" + strings.Repeat("Lorem ipsum dolor sit amet. ", 4<<20/28) + `<a href="/x">x</a>`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p, err := HTML(mustParse("https://example.com/"), nil, body, HTMLOptions{TokenScan: true, MaxHTMLBytes: 8 << 20})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Links) != 1 || p.Links[0].URL != "https://example.com/x" {
		t.Errorf("links: %+v", p.Links)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("HTML with TokenScan allocated %d bytes for %d bytes of text, want at most 1 MiB", n, len(body))
	}
}

// FuzzHTMLScanSkip checks that jumping over runs of text changes nothing the token scan
// finds: jumping over every run (of one byte or more) gives the Page of reading them all.
func FuzzHTMLScanSkip(f *testing.F) {
	for _, b := range htmlFuzzSeeds(f) {
		f.Add(b, false)
	}
	f.Add([]byte(`<p>text<script>a<b</script><a href=/x>x</a>t<svg><title>t<a href=/s>s</a></title>t</svg>`), true)
	f.Add([]byte(`<noscript>n<a href=/n>n</a></noscript><plaintext>p<a href=/p>`), false)
	f.Add([]byte(`<svg><use href=#i><div><a href=/d>d</a><svg><font size=1><meta name=robots content=nofollow>`), false)
	f.Add([]byte(`a < b <!-- c <a href=/c> --> d &amp e<title>t<a href=/t></title><xmp>x<a href=/x></xmp>`), true)
	base, err := (*URLRules)(nil).canonParse(htmlTestURL.String())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, withText bool) {
		opts := HTMLOptions{Agent: "ExampleBot", WithText: withText, MaxTextBytes: 300, MaxLinks: 20}
		all, skipped := &Page{}, &Page{}
		htmlScan(all, &base, body, opts, len(body)+1, nil)
		htmlScan(skipped, &base, body, opts, 1, nil)
		got, _ := json.Marshal(skipped)
		want, _ := json.Marshal(all)
		if string(got) != string(want) {
			t.Errorf("scan jumping over text:\n\tgot  %s\n\twant %s", got, want)
		}
	})
}

// TestHTMLTokenScanBreakout: an HTML element such as <div>, <p> or <meta> ends the
// <svg> or <math> it is in, as the parser reads it, so that a page that leaves an
// <svg> open keeps its links and its meta robots with TokenScan as with the tree.
func TestHTMLTokenScanBreakout(t *testing.T) {
	tests := []struct {
		in       string
		links    []string
		nofollow bool
	}{
		{`<svg><use href=#i></svg<div><ul><li><a href=/a>a</a></ul></div>`, []string{"https://example.com/a"}, false},
		{`<svg><p><a href=/b>b</a>`, []string{"https://example.com/b"}, false},
		{`<math><mi><svg><div><a href=/c>c</a></div></svg></mi></math>`, []string{"https://example.com/c"}, false},
		{`<svg><font color=red><a href=/d>d</a></font></svg>`, []string{"https://example.com/d"}, false},
		{`<svg><font><a href=/svg-a>e</a></font></svg><a href=/e>e</a>`, []string{"https://example.com/e"}, false},
		{`<svg><br/><a href=/f>f</a>`, []string{"https://example.com/f"}, false},
		{`<body><svg><meta name=robots content=nofollow></svg><a href=/g>g</a>`, []string{"https://example.com/g"}, true},
		{`<svg><img alt=i><a href=/h><img src=x alt=h></a></svg>`, []string{"https://example.com/h"}, false},
	}
	for _, tt := range tests {
		for _, scan := range []bool{false, true} {
			p, err := HTML(htmlTestURL, nil, []byte(tt.in), HTMLOptions{Agent: "ExampleBot", TokenScan: scan})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range p.Links {
				got = append(got, l.URL)
			}
			if !slices.Equal(got, tt.links) || p.Robots.NoFollow != tt.nofollow {
				t.Errorf("HTML(%q), TokenScan %v:\n\tgot links %q, nofollow %v\n\twant %q, %v", tt.in, scan, got, p.Robots.NoFollow, tt.links, tt.nofollow)
			}
		}
	}
}
