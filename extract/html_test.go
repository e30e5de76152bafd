package extract

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/html and testdata/text")

// htmlTestURL is the page URL of every golden file.
var htmlTestURL = mustParse("https://example.com/dir/page.html?id=7")

func mustParse(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// htmlReadHeader reads name.header, HTTP header lines, if it exists.
func htmlReadHeader(t *testing.T, path string) http.Header {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(b, '\n')))).ReadMIMEHeader()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return http.Header(h)
}

// TestHTMLGolden extracts every testdata/html/*.html with the header in the matching
// .header file and compares the Page, as JSON, with the matching .json file.
func TestHTMLGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "html", "*.html"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(in, ".html")
		t.Run(filepath.Base(name), func(t *testing.T) {
			body, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			header := htmlReadHeader(t, name+".header")
			page, err := HTML(htmlTestURL, header, body, HTMLOptions{Agent: "ExampleBot/2.1 (+https://example.org/bot)", WithText: true})
			if err != nil {
				t.Fatalf("HTML: %v", err)
			}
			got, err := json.MarshalIndent(page, "", "\t")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			if *update {
				if err := os.WriteFile(name+".json", got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(name + ".json")
			if err != nil {
				t.Fatalf("%v (run go test ./extract -run TestHTMLGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("HTML(%s):\n\tgot\n%s\n\twant\n%s", in, got, want)
			}
		})
	}
}

func TestHTMLBadPageURL(t *testing.T) {
	tests := []struct {
		u    *url.URL
		want error
	}{
		{nil, ErrRelative},
		{&url.URL{Path: "/relative"}, ErrRelative},
		{mustParse("ftp://example.com/"), ErrScheme},
		{&url.URL{Scheme: "http", Host: "exa mple.com"}, ErrHost},
	}
	for _, tt := range tests {
		p, err := HTML(tt.u, nil, []byte("<a href=x>x</a>"), HTMLOptions{})
		var ue *URLError
		if p != nil || !errors.Is(err, tt.want) || !errors.As(err, &ue) || ue.Op != "html" {
			t.Errorf("HTML(%v):\n\tgot  %v, %v\n\twant nil, %v", tt.u, p, err, tt.want)
		}
	}
}

func TestHTMLLimits(t *testing.T) {
	var b strings.Builder
	for i := range 50 {
		fmt.Fprintf(&b, `<p>Some words of text here.</p><a href="/x%d">x</a>`, i)
	}
	body := []byte(b.String())
	p, err := HTML(htmlTestURL, nil, body, HTMLOptions{MaxLinks: 10, WithText: true, MaxTextBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Links) != 10 || p.Skipped["limit"] != 40 {
		t.Errorf("MaxLinks 10: got %d links, %d skipped for limit; want 10, 40", len(p.Links), p.Skipped["limit"])
	}
	if len(p.Text) > 100 || len(p.Text) < 90 {
		t.Errorf("MaxTextBytes 100: got %d bytes of text %q", len(p.Text), p.Text)
	}
	p, err = HTML(htmlTestURL, nil, body, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Links) != 50 || p.Text != "" || p.Skipped != nil {
		t.Errorf("zero options: got %d links, text %q, skipped %v; want 50, \"\", nil", len(p.Links), p.Text, p.Skipped)
	}
	// Text is cut at a character boundary.
	p, err = HTML(htmlTestURL, nil, []byte("<p>"+strings.Repeat("é", 100)), HTMLOptions{WithText: true, MaxTextBytes: 51})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Text) != 50 || !utf8.ValidString(p.Text) {
		t.Errorf("cut text: got %d bytes, valid UTF-8 %v; want 50, true", len(p.Text), utf8.ValidString(p.Text))
	}
}

func TestHTMLAnchorTextBounded(t *testing.T) {
	body := `<a href="/x">` + strings.Repeat("word ", 1000) + `</a>`
	p, err := HTML(htmlTestURL, nil, []byte(body), HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Links) != 1 || len(p.Links[0].Text) > htmlMaxAnchorText || len(p.Links[0].Text) < htmlMaxAnchorText-5 {
		t.Errorf("got %+v, want one link with about %d bytes of text", p.Links, htmlMaxAnchorText)
	}
}

func TestRobotsTag(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		agent string
		want  Directives
	}{
		{"none", nil, "ExampleBot", Directives{}},
		{"all robots", []string{"noindex"}, "ExampleBot", Directives{NoIndex: true}},
		{"none keyword", []string{"NONE"}, "", Directives{NoIndex: true, NoFollow: true}},
		{"several lines", []string{"noarchive", "nosnippet"}, "x", Directives{NoArchive: true, NoSnippet: true}},
		{"other agent", []string{"otherbot: noindex, nofollow"}, "ExampleBot", Directives{}},
		{"our agent", []string{"ExampleBot: noindex, nofollow"}, "examplebot", Directives{NoIndex: true, NoFollow: true}},
		{"whole user agent", []string{"examplebot: noindex"}, "ExampleBot/1.0 (+http://x)", Directives{NoIndex: true}},
		{"scope switch", []string{"nocache, otherbot: noindex, examplebot: nofollow"}, "ExampleBot", Directives{NoArchive: true, NoFollow: true}},
		{"valued directives", []string{"max-snippet: 0, unavailable_after: 25 Jun 2010 15:00:00 PST, noindex"}, "ExampleBot", Directives{NoIndex: true}},
		{"unknown tokens", []string{"index, follow, all, noimageindex"}, "ExampleBot", Directives{}},
		{"empty agent ignores prefixed", []string{"bot: noindex"}, "", Directives{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, l := range tt.lines {
				h.Add("X-Robots-Tag", l)
			}
			if got := RobotsTag(h, tt.agent); got != tt.want {
				t.Errorf("RobotsTag(%q, %q):\n\tgot  %+v\n\twant %+v", tt.lines, tt.agent, got, tt.want)
			}
		})
	}
}

func TestCharsetDecode(t *testing.T) {
	tests := []struct {
		name, contentType string
		body              []byte
		want, charset     string
	}{
		{"utf-8 as is", "text/html", []byte("<p>naïve</p>"), "<p>naïve</p>", "utf-8"},
		{"utf-8 bom stripped", "", []byte("\xef\xbb\xbfhi"), "hi", "utf-8"},
		{"header charset", "text/html; charset=ISO-8859-1", []byte("caf\xe9"), "café", "windows-1252"},
		{"meta charset", "", []byte(`<meta charset="koi8-r">` + "\xf0\xd2\xc9"), `<meta charset="koi8-r">При`, "koi8-r"},
		{"ascii default", "", []byte("plain"), "plain", "windows-1252"},
		{"bad utf-8", "text/html; charset=utf-8", []byte("a\xffb"), "a\uFFFDb", "utf-8"},
		{"utf-16be bom", "", []byte("\xfe\xff\x00h\x00i"), "hi", "utf-16be"},
		{"odd utf-16", "", []byte("\xff\xfeh\x00i"), "h\uFFFD", "utf-16le"},
		{"bad content type", "text/html; charset", []byte("x"), "x", "windows-1252"},
		{"utf-8 after 1024 bytes", "", []byte(strings.Repeat(" ", 1024) + "caf\xc3\xa9"), strings.Repeat(" ", 1024) + "café", "utf-8"},
		{"latin-1 after 1024 bytes", "", []byte(strings.Repeat(" ", 1024) + "caf\xe9"), strings.Repeat(" ", 1024) + "café", "windows-1252"},
		{"script charset, utf-8 after 1024 bytes", "", []byte(`<script charset="utf-8"></script>` + strings.Repeat(" ", 1024) + "\xc3\xa9"), `<script charset="utf-8"></script>` + strings.Repeat(" ", 1024) + "é", "utf-8"},
		{"meta windows-1252, utf-8 bytes", "", []byte(`<meta charset="windows-1252">` + strings.Repeat(" ", 1024) + "\xc3\xa9"), `<meta charset="windows-1252">` + strings.Repeat(" ", 1024) + "Ã©", "windows-1252"},
		{"meta gb2312, utf-8 text", "", []byte(`<meta http-equiv="Content-Type" content="text/html; charset=gb2312"><p>人工智能公司开发出一款能够用自己的记忆学习新知识的计算机。`), `<meta http-equiv="Content-Type" content="text/html; charset=gb2312"><p>人工智能公司开发出一款能够用自己的记忆学习新知识的计算机。`, "utf-8"},
		{"meta gb2312, gbk text", "", []byte(`<meta charset="gb2312"><p>` + "\xc8\xcb\xb9\xa4\xd6\xc7\xc4\xdc" + strings.Repeat("\xb9\xab\xcb\xbe", 8)), `<meta charset="gb2312"><p>人工智能` + strings.Repeat("公司", 8), "gbk"},
		{"header windows-1252, utf-8 text", "text/html; charset=windows-1252", []byte(strings.Repeat("caf\xc3\xa9 ", 20)), strings.Repeat("cafÃ© ", 20), "windows-1252"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cs := charsetDecode(tt.body, tt.contentType)
			if string(got) != tt.want || cs != tt.charset {
				t.Errorf("charsetDecode(%q, %q):\n\tgot  %q, %q\n\twant %q, %q", tt.body, tt.contentType, got, cs, tt.want, tt.charset)
			}
		})
	}
}

func TestTextWriter(t *testing.T) {
	w := textWriter{max: 100, lines: true}
	w.block()
	w.write("  a \t b\n")
	w.block()
	w.block()
	w.write("c\u00a0\u2003d ")
	w.write("e")
	if got, want := w.String(), "a b\nc d e"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := htmlCollapse("  x \n\n y  "); got != "x y" {
		t.Errorf("htmlCollapse: got %q, want %q", got, "x y")
	}
}

// TestHTMLHostileSingleLine feeds a 10 MB page with no newline: minified markup with
// many links, one huge attribute and one huge text run. It must finish without panic,
// keep the limits, and return valid UTF-8.
func TestHTMLHostileSingleLine(t *testing.T) {
	const size = 10 << 20
	var b bytes.Buffer
	b.Grow(size + 1024)
	b.WriteString(`<html><head><title>big</title></head><body><main>`)
	b.WriteString(`<div title="`)
	b.Write(bytes.Repeat([]byte("x"), size/4))
	b.WriteString(`">`)
	b.Write(bytes.Repeat([]byte("text "), size/4/5))
	for i := 0; b.Len() < size-64; i++ {
		fmt.Fprintf(&b, `<a href="/p?i=%d">l</a><span>w</span>`, i)
	}
	b.WriteString(`<a href="/last">`)
	b.Write(bytes.Repeat([]byte("\xff"), 63-len(`<a href="/last">`)))
	if bytes.IndexByte(b.Bytes(), '\n') >= 0 {
		t.Fatal("test page has a newline")
	}
	p, err := HTML(htmlTestURL, nil, b.Bytes(), HTMLOptions{WithText: true, MaxHTMLBytes: size})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Links) != DefaultMaxLinks || p.Skipped["limit"] == 0 {
		t.Errorf("got %d links and %d over the limit, want %d and more", len(p.Links), p.Skipped["limit"], DefaultMaxLinks)
	}
	if len(p.Text) > DefaultMaxTextBytes || !utf8.ValidString(p.Text) || p.Title != "big" {
		t.Errorf("got %d bytes of text (valid %v), title %q", len(p.Text), utf8.ValidString(p.Text), p.Title)
	}
}

// FuzzHTML checks that HTML never fails or panics on any body and header, and that
// what it returns keeps its promises: valid UTF-8, absolute http(s) links that are
// already in normalised form, limits kept; with the tree and with TokenScan.
func FuzzHTML(f *testing.F) {
	for _, b := range htmlFuzzSeeds(f) {
		f.Add(b, "text/html")
	}
	f.Add([]byte(`<base href="//h/"><a href="\\x">`), "text/html; charset=utf-16")
	f.Add([]byte(`<svg><a href="/s"><title>t</title></a></svg><math><mi><a href=/m>`), "")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		h := http.Header{"Content-Type": {contentType}, "X-Robots-Tag": {contentType}}
		for _, opts := range []HTMLOptions{
			{Agent: "ExampleBot", WithText: true, MaxTextBytes: 300, MaxLinks: 20},
			{Agent: "ExampleBot", TokenScan: true, MaxLinks: 20},
		} {
			fuzzHTMLCheck(t, h, body, opts)
		}
	})
}

// htmlFuzzSeeds returns the golden inputs small enough to seed a fuzz target.
func htmlFuzzSeeds(f *testing.F) [][]byte {
	f.Helper()
	inputs, _ := filepath.Glob(filepath.Join("testdata", "html", "*.html"))
	var seeds [][]byte
	for _, in := range inputs {
		b, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) < 4096 {
			seeds = append(seeds, b)
		}
	}
	return seeds
}

// fuzzHTMLCheck runs HTML on body and checks what FuzzHTML promises.
func fuzzHTMLCheck(t *testing.T, h http.Header, body []byte, opts HTMLOptions) {
	p, err := HTML(htmlTestURL, h, body, opts)
	if err != nil {
		t.Fatalf("HTML: %v", err)
	}
	for _, s := range []string{p.Title, p.Lang, p.Canonical, p.Description, p.Text, p.Base} {
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 %q", s)
		}
	}
	if len(p.Text) > opts.MaxTextBytes || len(p.Links) > opts.MaxLinks {
		t.Fatalf("limits: %d bytes of text, %d links", len(p.Text), len(p.Links))
	}
	seen := make(map[string]bool, len(p.Links))
	for _, l := range p.Links {
		if seen[l.URL] {
			t.Fatalf("link %q twice in Links", l.URL)
		}
		seen[l.URL] = true
		if again, err := (*URLRules)(nil).Canonical(l.URL); err != nil || again != l.URL {
			t.Fatalf("link %q is not normalised: %q, %v", l.URL, again, err)
		}
		if !utf8.ValidString(l.Text) || len(l.Text) > htmlMaxAnchorText {
			t.Fatalf("anchor text %q", l.Text)
		}
	}
}
