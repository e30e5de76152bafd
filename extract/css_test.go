package extract

import (
	"net/http"
	"slices"
	"testing"
)

func TestCSSRequisites(t *testing.T) {
	const sheet = "https://example.com/css/site.css"
	tests := []struct {
		name, css string
		want      []string
	}{
		{"url forms",
			`a { background: url(a.png) } b { background: url( "b.png" ) } c { background: URL('c.png') } d { background: url(  d.png  ) }`,
			[]string{"image https://example.com/css/a.png", "image https://example.com/css/b.png", "image https://example.com/css/c.png", "image https://example.com/css/d.png"}},
		{"@import forms",
			`@charset "utf-8"; @import "a.css"; @import url(b.css) screen; @IMPORT url("c.css") layer(base) supports(display: grid);
@import 'd.css' print, url(not-a-sheet.png); body { color: red }`,
			[]string{"stylesheet https://example.com/css/a.css", "stylesheet https://example.com/css/b.css",
				"stylesheet https://example.com/css/c.css", "stylesheet https://example.com/css/d.css"}},
		{"@font-face",
			`@font-face { font-family: X; src: local("X"), url(/fonts/x.woff2) format("woff2"), url(/fonts/x.woff) format("woff"); }
@media screen { @font-face { src: url(y.ttf) } .z { background: url(z.png) } }`,
			[]string{"font https://example.com/fonts/x.woff2", "font https://example.com/fonts/x.woff", "font https://example.com/css/y.ttf", "image https://example.com/css/z.png"}},
		{"image-set",
			`a { background-image: image-set("a1.png" 1x, url(a2.png) 2x, "a.avif" type("image/avif")); }
b { background-image: -webkit-image-set(url(b1.png) 1x, 'b2.png' 2x) }`,
			[]string{"image https://example.com/css/a1.png", "image https://example.com/css/a2.png", "image https://example.com/css/a.avif",
				"image https://example.com/css/b1.png", "image https://example.com/css/b2.png"}},
		{"escapes",
			`a { background: url(a\)b.png) } b { background: url("q\"uote.png") } c { background: u\72l(c.png) } d { background: url(\64 .png) }
e { background: url("line\
continued.png") }`,
			[]string{"image https://example.com/css/a)b.png", "image https://example.com/css/q%22uote.png", "image https://example.com/css/c.png",
				"image https://example.com/css/d.png", "image https://example.com/css/linecontinued.png"}},
		{"comments and strings hide nothing they should not",
			`/* url(no1.png) */ a { content: "url(no2.png)"; background: url(yes.png) } /* @import "no3.css"; */`,
			[]string{"image https://example.com/css/yes.png"}},
		{"bad url and bad string",
			"a { background: url(bad url.png) } b { background: url(ok.png) } c { content: \"broken\n; background: url(after.png) }",
			[]string{"image https://example.com/css/ok.png", "image https://example.com/css/after.png"}},
		{"no function after a hash, a number or a dimension",
			`a { color: #url(x.png); width: 10url(y.png); }`,
			nil},
		{"@namespace names, does not fetch",
			`@namespace svg url(http://www.w3.org/2000/svg); @namespace "http://www.w3.org/1999/xhtml"; a { background: url(a.png) }`,
			[]string{"image https://example.com/css/a.png"}},
		{"src() and custom properties",
			`a { --bg: url(custom.png); background: src("src.png") } b { cursor: url(c.cur), auto; mask: url(#m) }`,
			[]string{"image https://example.com/css/custom.png", "image https://example.com/css/src.png", "image https://example.com/css/c.cur"}},
		{"cut by the end",
			`a { background: url(cut.png`,
			[]string{"image https://example.com/css/cut.png"}},
		{"data and fragments skipped",
			`a { background: url(data:image/png;base64,AAAA) } b { filter: url(#f) } c { background: url() }`,
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := CSSRequisites(mustURL(t, sheet), nil, []byte(tt.css), RequisiteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range r.Found {
				if q.From != "css" {
					t.Errorf("%s: From %q, want css", q.URL, q.From)
				}
				got = append(got, q.Kind.String()+" "+q.URL)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("CSSRequisites(%.60q…):\n\tgot  %q\n\twant %q", tt.css, got, tt.want)
			}
		})
	}
}

// TestCSSEncoding checks the choice of a stylesheet's encoding and that URLs are
// read in it: é is 0xE9 in windows-1252, 0xC3 0xA9 in UTF-8.
func TestCSSEncoding(t *testing.T) {
	const utf8URL, latin = "https://example.com/caf%C3%A9.png", "a { background: url(/caf\xe9.png) }"
	tests := []struct {
		name, contentType, fallback, body, wantCharset string
	}{
		{"no word: UTF-8", "text/css", "", "a { background: url(/caf\xc3\xa9.png) }", "utf-8"},
		{"charset parameter", "text/css; charset=ISO-8859-1", "", latin, "windows-1252"},
		{"@charset rule", "text/css", "", `@charset "windows-1252"; ` + latin, "windows-1252"},
		{"parameter before @charset", "text/css; charset=windows-1252", "", `@charset "utf-8"; ` + latin, "windows-1252"},
		{"BOM before all", "text/css; charset=windows-1252", "", "\xef\xbb\xbfa { background: url(/caf\xc3\xa9.png) }", "utf-8"},
		{"referring document", "text/css", "windows-1252", latin, "windows-1252"},
		{"@charset utf-16 means utf-8", "", "", `@charset "utf-16le"; a { background: url(/caf` + "\xc3\xa9" + `.png) }`, "utf-8"},
		{"utf-16le with BOM", "", "", "\xff\xfea\x00{\x00b\x00a\x00c\x00k\x00g\x00r\x00o\x00u\x00n\x00d\x00:\x00u\x00r\x00l\x00(\x00/\x00c\x00a\x00f\x00\xe9\x00.\x00p\x00n\x00g\x00)\x00}\x00", "utf-16le"},
		{"@charset not at the very start", "", "", ` @charset "windows-1252"; a { background: url(/caf` + "\xc3\xa9" + `.png) }`, "utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.contentType != "" {
				h.Set("Content-Type", tt.contentType)
			}
			r, err := CSSRequisites(mustURL(t, "https://example.com/s.css"), h, []byte(tt.body), RequisiteOptions{Charset: tt.fallback})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Found) != 1 || r.Found[0].URL != utf8URL || r.Charset != tt.wantCharset {
				t.Errorf("found %q in %s, want %s in %s", found(r), r.Charset, utf8URL, tt.wantCharset)
			}
		})
	}
}

func TestCSSRequisitesLimits(t *testing.T) {
	css := []byte(`a { background: url(a.png) } b { background: url(b.png) } c { background: url(c.png) }`)
	r, err := CSSRequisites(mustURL(t, "https://example.com/"), nil, css, RequisiteOptions{MaxRequisites: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Found) != 2 || r.Skipped["limit"] != 1 {
		t.Errorf("MaxRequisites 2: found %q, skipped %v", found(r), r.Skipped)
	}
	r, err = CSSRequisites(mustURL(t, "https://example.com/"), nil, css, RequisiteOptions{MaxCSSBytes: 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Found) != 1 || !r.Truncated {
		t.Errorf("MaxCSSBytes 30: found %q, truncated %v", found(r), r.Truncated)
	}
}

func TestLinkHeaderRequisites(t *testing.T) {
	h := http.Header{"Link": {
		`</a.css>; rel=stylesheet, </b.woff2>; rel="preload"; as="font"; type="font/woff2"; crossorigin`,
		`<https://cdn.example.net/c.js>;rel=modulepreload,<d.jpg>; rel=preload; as=image, </next>; rel=next, </pf>; rel=prefetch`,
		`garbage, <e.js>; rel="preload"; as=script; title="a, b; c", </f.css>; rel="alternate stylesheet"`,
		`</g; with space>; rel=preload; as=style, <>; rel=preload, </h.json>; rel=preload`,
		`</i.css>; REL=Stylesheet; rel=preload; as=font`,
		`</unclosed; rel=preload`,
	}}
	r, err := LinkHeaderRequisites(mustURL(t, "https://example.com/dir/page"), h)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"stylesheet https://example.com/a.css link-header", "font https://example.com/b.woff2 link-header",
		"script https://cdn.example.net/c.js link-header", "image https://example.com/dir/d.jpg link-header",
		"script https://example.com/dir/e.js link-header", "stylesheet https://example.com/f.css link-header",
		"stylesheet https://example.com/g;%20with%20space link-header", "other https://example.com/h.json link-header",
		"stylesheet https://example.com/i.css link-header",
	}
	if got := found(r); !slices.Equal(got, want) || r.Skipped["empty"] != 1 {
		t.Errorf("LinkHeaderRequisites:\n\tgot  %q (skipped %v)\n\twant %q (one empty)", got, r.Skipped, want)
	}
}
