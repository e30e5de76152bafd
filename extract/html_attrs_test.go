package extract

import (
	"bytes"
	"slices"
	"testing"

	"golang.org/x/net/html"
)

// htmlAttrsBoth reads every tag of body with htmlTagAttrs and htmlBuilder.tagName,
// and with the tokenizer's TagAttr and TagName, and reports the first tag they read
// differently. It returns the number of start tags with attributes and of those
// htmlTagAttrs left to TagAttr.
func htmlAttrsBoth(t *testing.T, body []byte, keep func([]byte) bool) (tags, fallbacks int) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(body))
	b := htmlBuilder{z: html.NewTokenizer(bytes.NewReader(body))} // in step with z
	for {
		tt := z.Next()
		b.z.Next()
		if tt == html.ErrorToken {
			return tags, fallbacks
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken && tt != html.EndTagToken {
			continue
		}
		raw := slices.Clone(z.Raw())
		got := slices.Clone(b.tagName())
		name, hasAttr := z.TagName()
		if !bytes.Equal(got, name) {
			t.Fatalf("name of %q: got %q, want %q", raw, got, name)
		}
		if tt == html.EndTagToken || !hasAttr {
			continue
		}
		tags++
		attrs, ok := htmlTagAttrs(nil, raw, keep)
		want := htmlReadAttrs(nil, z, keep)
		if !ok {
			fallbacks++
			continue
		}
		if !slices.Equal(attrs, want) {
			t.Fatalf("attributes of %q:\n\tgot  %q\n\twant %q", raw, attrs, want)
		}
	}
}

// TestHTMLTagAttrs checks the names and attributes htmlTree reads from raw tags against
// the tokenizer's.
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
		{"<DiV Class=x></DIV ><br/><svg:Rect></svg:Rect><x\x00y class=z></x\x00y>", 0},
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
