package extract

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlParsed is HTML with text as it reads a page through golang.org/x/net/html's
// parser rather than htmlTree: the oracle of TestHTMLTreeDifferential.
func htmlParsed(t testing.TB, header http.Header, body []byte, opts HTMLOptions) *Page {
	t.Helper()
	base, err := (*URLRules)(nil).canonParse(htmlTestURL.String())
	if err != nil {
		t.Fatal(err)
	}
	body, rest := htmlPrefix(body, opts.MaxHTMLBytes)
	text, cs := charsetDecode(body, header.Get("Content-Type"))
	p := &Page{Charset: cs, Truncated: rest != nil}
	if len(text) > htmlMaxTreeBytes {
		s, ok := htmlStrip(text, htmlMaxTreeBytes)
		if !ok {
			return nil
		}
		text = s
	}
	root, err := html.ParseWithOptions(bytes.NewReader(text), html.ParseOptionEnableScripting(false))
	if err != nil {
		return nil
	}
	htmlFromTree(p, &base, root, htmlRefsOf(root), opts)
	return htmlFinish(p, header, &base, nil, opts)
}

// htmlDiffPages returns the pages TestHTMLTreeDifferential reads: those of testdata,
// the sample of trafilatura's pages CI keeps, and every *.html of
// $POLITECRAWL_HTML_PAGES when set (trafilatura's tests/eval, say).
func htmlDiffPages(t *testing.T) []string {
	var files []string
	for _, dir := range []string{"testdata/html", "testdata/text", "../crawltest/texteval/testdata/trafilatura/eval", os.Getenv("POLITECRAWL_HTML_PAGES")} {
		if dir == "" {
			continue
		}
		f, err := filepath.Glob(filepath.Join(dir, "*.html"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f...)
	}
	if len(files) < 50 {
		t.Fatalf("%d pages", len(files))
	}
	return files
}

// TestHTMLTreeDifferential reads real pages through htmlTree and through the HTML
// parser: links, metadata and directives must be the same, and the main text nearly so
// (htmlTree leaves out foster parenting and the reopening of formatting elements).
func TestHTMLTreeDifferential(t *testing.T) {
	var pages, same, words, lost, added, texts, skips int
	for _, f := range htmlDiffPages(t) {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		header := http.Header{}
		if h, err := os.ReadFile(strings.TrimSuffix(f, ".html") + ".header"); err == nil {
			header.Set("Content-Type", strings.TrimSpace(string(h)))
		}
		opts := HTMLOptions{Agent: "ExampleBot", WithText: true, MaxTextBytes: DefaultMaxTextBytes, MaxLinks: DefaultMaxLinks, MaxHTMLBytes: DefaultMaxHTMLBytes}
		want := htmlParsed(t, header, body, opts)
		if want == nil {
			continue // no tree: both read it with the token scan
		}
		got, err := HTML(htmlTestURL, header, body, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		gt, wt := got.Text, want.Text
		got.Text, want.Text, got.SimHash, want.SimHash = "", "", 0, 0
		// The parser makes copies of an <a> that a block cuts in two (the adoption
		// agency), which htmlTree does not: the anchor text of such a link, and the
		// count of links skipped, may differ. The links themselves may not.
		for i := range min(len(got.Links), len(want.Links)) {
			if got.Links[i].Text != want.Links[i].Text {
				texts++
				got.Links[i].Text, want.Links[i].Text = "", ""
			}
		}
		if !maps.Equal(got.Skipped, want.Skipped) {
			skips++
			got.Skipped, want.Skipped = nil, nil
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s: links and metadata:\n\tgot  %s\n\twant %s", f, g, w)
		}
		if gt == wt {
			same++
		}
		gw, ww := strings.Fields(gt), strings.Fields(wt)
		words += len(ww)
		slices.Sort(gw)
		slices.Sort(ww)
		l, a := htmlWordDiff(ww, gw)
		lost += l
		added += a
		if testing.Verbose() && gt != wt {
			t.Logf("%s: text differs: %d of %d words lost, %d added", f, l, len(ww), a)
		}
	}
	t.Logf("%d pages: text the same on %d; of %d words, %d lost and %d added; %d anchor texts and the skipped counts of %d pages differ", pages, same, words, lost, added, texts, skips)
	if lost*200 > words || added*200 > words {
		t.Errorf("text differs by more than 0.5%% of its words: %d lost, %d added of %d", lost, added, words)
	}
}

// htmlWordDiff counts the words of sorted want missing from sorted got, and those of
// got not in want.
func htmlWordDiff(want, got []string) (lost, added int) {
	i, j := 0, 0
	for i < len(want) && j < len(got) {
		switch {
		case want[i] == got[j]:
			i++
			j++
		case want[i] < got[j]:
			lost++
			i++
		default:
			added++
			j++
		}
	}
	return lost + len(want) - i, added + len(got) - j
}

// FuzzHTMLTree checks htmlTree on arbitrary bodies: no panic; and the links HTML finds
// with it are those it finds with the HTML parser's tree, the same URLs (their anchor
// text may differ where the parser copies an <a> that a block cuts in two).
func FuzzHTMLTree(f *testing.F) {
	for _, b := range htmlFuzzSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte(`<p><a href=/a>a<div>b</a>c</div><table><a href=/t>t</a><tr><td><a href=/d>d<td>e</table><select><a href=/s>s</a><option>o</select><frame src=/f>`))
	f.Add([]byte(`<svg><foreignObject><a href=/fo>f</a></foreignObject><a href=/sa>s</a></svg><math><mi><a href=/mi>m</a></mi></math><noscript><a href=/n>n</a></noscript>`))
	f.Add([]byte(strings.Repeat("<div>", 600) + `<a href=/deep>deep</a>`))
	f.Add([]byte(`<p ` + strings.Repeat(`a=1 `, 5000) + `><a href=/x class=c>x</a>`))
	long := strings.Repeat("if (a < b) { c = '</scrip' }\n", 20)
	f.Add([]byte(`<script>` + long + `</script><a href=/s>s</a><script>` + long + `<!--<script>` + long + `</script>-->` + long + `</script><a href=/e>e</a>`))
	f.Add([]byte(`<style>` + long + `</STYLE ><a href=/t>t</a><svg><script>` + long + `<a href=/v>v</a></script></svg><script>` + long))
	f.Fuzz(func(t *testing.T, body []byte) {
		opts := HTMLOptions{WithText: true, MaxTextBytes: 1000, MaxLinks: 100, MaxHTMLBytes: 1 << 16}
		got, err := HTML(htmlTestURL, nil, body, opts)
		if err != nil {
			t.Fatal(err)
		}
		want := htmlParsed(t, http.Header{}, body, opts)
		if want == nil || got.Fallback || htmlHasUnended(body, "") {
			return // too deep for one of the trees, or read otherwise by design
		}
		urls := func(p *Page) []string {
			var u []string
			for _, l := range p.Links {
				u = append(u, l.Tag+" "+l.URL)
			}
			slices.Sort(u)
			return u
		}
		if g, w := urls(got), urls(want); !slices.Equal(g, w) {
			t.Errorf("links of %q:\n\tgot  %q\n\twant %q", body, g, w)
		}
		if got.Title != want.Title || got.Lang != want.Lang || got.Canonical != want.Canonical || got.Base != want.Base || got.Robots != want.Robots || got.Description != want.Description {
			t.Errorf("metadata of %q:\n\tgot  %+v\n\twant %+v", body, got, want)
		}
	})
}

// TestHTMLKinds checks that the table htmlIs reads agrees with the lists it is built
// from, for every atom.
func TestHTMLKinds(t *testing.T) {
	lists := []struct {
		k    htmlKind
		list map[atom.Atom]bool
	}{
		{htmlKindClosesP, htmlClosesP}, {htmlKindHead, htmlHeadElements},
		{htmlKindHeadNoscript, htmlHeadNoscript}, {htmlKindMarker, htmlMarkers},
		{htmlKindVoid, htmlVoidElements}, {htmlKindSpecial, htmlSpecial},
	}
	for a := range atom.Atom(1 << 20) { // offsets into the atoms' text up to 4096
		for _, l := range lists {
			if got, want := htmlIs(a, l.k), l.list[a]; got != want {
				t.Fatalf("htmlIs(%q, %d) = %v, want %v", a, l.k, got, want)
			}
		}
	}
}

// htmlRawEndOracle returns the length of the text the tokenizer reads after a start
// tag of element tag, as it reads it: the oracle of htmlRawEnd.
func htmlRawEndOracle(tag string, raw []byte) int {
	z := html.NewTokenizer(bytes.NewReader(append([]byte("<"+tag+">"), raw...)))
	z.Next()
	if z.Next() != html.TextToken {
		return 0
	}
	return len(z.Raw())
}

// TestHTMLRawEnd checks where htmlRawEnd ends the text of a script or a style against
// where the tokenizer ends it.
func TestHTMLRawEnd(t *testing.T) {
	for _, tc := range []struct {
		tag, raw string
		ok       bool
	}{
		{"script", `if (a < b && c </d) x = "</scrip"; </script>after`, true},
		{"script", `x </SCRIPT >`, true},
		{"script", `x </script/>`, true},
		{"script", "x </script\n>", true},
		{"script", `x </scripts></script>`, true},
		{"script", `x </script`, true}, // no character after the name: text to the end
		{"script", `no end tag at all`, true},
		{"script", `</script>`, true},
		{"script", `<!-- document.write("<script></script>") --></script>`, false},
		{"script", `a </script> b <!-- c`, true}, // the comment opener comes after the end
		{"style", `p { color: red } </STYLE>`, true},
		{"style", `<!-- p {} --></style>`, true}, // no escape rules in raw text
		{"style", `</styles></style>`, true},
	} {
		end, ok := htmlRawEnd([]byte(tc.raw), tc.tag)
		if ok != tc.ok {
			t.Errorf("htmlRawEnd(%q, %q): ok %v, want %v", tc.raw, tc.tag, ok, tc.ok)
		}
		if want := htmlRawEndOracle(tc.tag, []byte(tc.raw)); ok && end != want {
			t.Errorf("htmlRawEnd(%q, %q) = %d, want %d", tc.raw, tc.tag, end, want)
		}
	}
}

// FuzzHTMLRawEnd compares htmlRawEnd with the tokenizer on arbitrary texts.
func FuzzHTMLRawEnd(f *testing.F) {
	f.Add(`a < b </script> c`, true)
	f.Add(`<!-- <script> </script> --> </script>`, true)
	f.Add(`p {} </style x>`, false)
	f.Fuzz(func(t *testing.T, raw string, script bool) {
		tag := "style"
		if script {
			tag = "script"
		}
		end, ok := htmlRawEnd([]byte(raw), tag)
		if want := htmlRawEndOracle(tag, []byte(raw)); ok && end != want {
			t.Errorf("htmlRawEnd(%q, %q) = %d, want %d", raw, tag, end, want)
		}
	})
}

// TestHTMLUnended reads pages whose <title> or <textarea> never ends, as damaged
// copies in archives have them: the element's text ends at the next tag, and the rest
// is the page (the parser would make it all the title's text, leaving no body), with
// the tree and with the token scan alike. A title that ends keeps its text raw.
func TestHTMLUnended(t *testing.T) {
	article := `<p>The council voted on Tuesday to rebuild the old bridge across the river, ending a debate that had lasted for ten years.</p>`
	tests := []struct {
		name, body, title, text string
		links                   []string
	}{
		{"title cut off by a script",
			`<html><head><title>Bridge vote (The Times)ntById("font"); x.size = 1; } //--> </script><script src=/s.js></script></head><body><a href=/home>Home</a>` + article + `</body></html>`,
			`Bridge vote (The Times)ntById("font"); x.size = 1; } //-->`, "The council voted", []string{"/home"}},
		{"title cut off by a link element",
			"<head>\n<title>Television - Intww.example.com/search.xml\" />\n<link rel=alternate href=/feed>\n</head><body>" + article + `<a href=/next>Next</a></body>`,
			`Television - Intww.example.com/search.xml" />`, "ending a debate", []string{"/feed", "/next"}},
		{"textarea never ended",
			`<title>Bridge</title><body><form><textarea name=c>Your comment` + article + `<a href=/more>More</a>`,
			"Bridge", "rebuild the old bridge", []string{"/more"}},
		{"title that ends keeps its markup as text",
			`<title>a <b>bold</b> title</title><body>` + article,
			"a <b>bold</b> title", "The council voted", nil},
		{"svg title is no raw text",
			`<title>Page</title><body><svg><title>icon</svg>` + article + `<a href=/x>x</a>`,
			"Page", "The council voted", []string{"/x"}},
	}
	for _, tt := range tests {
		for _, scan := range []bool{false, true} {
			opts := HTMLOptions{WithText: true, TokenScan: scan, MaxTextBytes: DefaultMaxTextBytes, MaxLinks: DefaultMaxLinks}
			p, err := HTML(htmlTestURL, nil, []byte(tt.body), opts)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if p.Title != tt.title {
				t.Errorf("%s (scan %v): title %q, want %q", tt.name, scan, p.Title, tt.title)
			}
			if !strings.Contains(p.Text, tt.text) {
				t.Errorf("%s (scan %v): text %q lacks %q", tt.name, scan, p.Text, tt.text)
			}
			var got []string
			for _, l := range p.Links {
				got = append(got, strings.TrimPrefix(l.URL, "https://example.com"))
			}
			if !slices.Equal(got, tt.links) {
				t.Errorf("%s (scan %v): links %q, want %q", tt.name, scan, got, tt.links)
			}
		}
	}
}

// htmlHasUnended reports whether body, decoded as HTML decodes it with that
// Content-Type, may hold a <title> or a <textarea> that never ends, which htmlTree reads
// otherwise than the parser by design (TestHTMLUnended): a start tag of either, in
// HTML or foreign content, with no end tag after it.
func htmlHasUnended(body []byte, contentType string) bool {
	body, _ = charsetDecode(body, contentType)
	z := html.NewTokenizer(bytes.NewReader(body))
	var ends htmlEndsSeen
	for pos := 0; ; {
		tt := z.Next()
		if tt == html.ErrorToken {
			return false
		}
		pos += len(z.Raw())
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, _ := z.TagName()
		if string(name) == "noscript" {
			z.NextIsNotRawText() // scripting is off, as for the tree
		}
		if (string(name) == "title" || string(name) == "textarea") && htmlUnended(body, pos, string(name), ends.of(atom.Lookup(name))) {
			return true
		}
	}
}

// TestHTMLUnendedMany reads a page of many <textarea>s that never end, each followed by
// an end tag of another element: each one's look for its end tag would read the rest of
// the page, were the answer not kept (htmlEndSeen), and the page would take time
// quadratic in its length.
func TestHTMLUnendedMany(t *testing.T) {
	body := strings.Repeat("<textarea></b>", 100000) + `<p>The council voted on Tuesday to rebuild the old bridge across the river, ending a debate that had lasted for ten years.</p>`
	for _, scan := range []bool{false, true} {
		p, err := HTML(htmlTestURL, nil, []byte(body), HTMLOptions{WithText: true, TokenScan: scan, MaxTextBytes: DefaultMaxTextBytes, MaxLinks: DefaultMaxLinks, MaxHTMLBytes: DefaultMaxHTMLBytes})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Text, "rebuild the old bridge") {
			t.Errorf("scan %v: text %q", scan, htmlCut(p.Text, 200))
		}
	}
}
