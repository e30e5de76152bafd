package extract

import (
	"bytes"
	"slices"
	"testing"

	"golang.org/x/net/html"
)

// htmlAttrsBoth reads every start tag of body with htmlTagAttrs and with the
// tokenizer's TagAttr, and reports the first tag they read differently.
func htmlAttrsBoth(t *testing.T, body []byte, keep func([]byte) bool) (tags, fallbacks int) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return tags, fallbacks
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		raw := slices.Clone(z.Raw())
		_, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		tags++
		got, ok := htmlTagAttrs(nil, raw, keep)
		want := htmlReadAttrs(nil, z, keep)
		if !ok {
			fallbacks++
			continue
		}
		if !slices.Equal(got, want) {
			t.Fatalf("attributes of %q:\n\tgot  %q\n\twant %q", raw, got, want)
		}
	}
}

// TestHTMLTagAttrs checks the attributes htmlTagAttrs reads from raw tags against the
// tokenizer's.
func TestHTMLTagAttrs(t *testing.T) {
	for _, tc := range []struct {
		body      string
		fallbacks int // tags read through TagAttr when only htmlTreeKeeps's are kept
	}{
		{`<a href="/x" class='c d' id=e title = "t">`, 0},
		{`<A HREF=/x Class=c CLASS=d>`, 0}, // the first of each name, in lower case
		{`<div =x a=b =c>`, 0},             // an "=" first is part of the name
		{`<img / src=a.png alt="" / >`, 0}, // "/" between attributes
		{`<p a=b/ c>`, 0},                  // "/" in an unquoted value
		{`<p a=b>`, 0},                     // an unquoted value ends at ">"
		{`<p a= >`, 0},                     // "=" then ">": an empty value
		{`<p a b c=>`, 0},                  // names without values
		{"<p\tclass\n=\f'x'\r\nid=y>", 0},  // white space around "="
		{`<p class="a"b=c>`, 0},            // no space after a quoted value
		{`<a href="/x?a=1&amp;b=2">`, 1},   // a character reference in a value kept
		{"<a title=\"a\r\nb\">", 1},        // a carriage return in a value kept
		{"<a cla\x00ss=x>", 0},             // NUL in a name not kept
		{"<a class=\"x\x00\">", 1},         // NUL in a value kept
		{`<a data-x="&amp;" href=/y>`, 0},  // a reference in a value not kept
		{`<p ` + string(bytes.Repeat([]byte("x"), 40)) + `=1 class=c>`, 0}, // a long name
	} {
		htmlAttrsBoth(t, []byte(tc.body), nil)
		if _, fallbacks := htmlAttrsBoth(t, []byte(tc.body), htmlTreeKeeps); fallbacks != tc.fallbacks {
			t.Errorf("%q: %d tags read through TagAttr, want %d", tc.body, fallbacks, tc.fallbacks)
		}
	}
}

// FuzzHTMLTagAttrs compares htmlTagAttrs with the tokenizer's TagAttr on arbitrary
// bodies.
func FuzzHTMLTagAttrs(f *testing.F) {
	for _, b := range htmlFuzzSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte(`<a href="/x" class='c d' id=e title = "t"><div =x a=b =c><img / src=a.png alt="" / ><p a=b/ c>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		htmlAttrsBoth(t, body, nil)
		htmlAttrsBoth(t, body, htmlTreeKeeps)
	})
}
