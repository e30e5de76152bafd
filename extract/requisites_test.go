package extract

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// found renders requisites as "kind url from" lines, for comparison.
func found(r *Requisites) []string {
	var s []string
	for _, q := range r.Found {
		s = append(s, q.Kind.String()+" "+q.URL+" "+q.From)
	}
	return s
}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestHTMLRequisites(t *testing.T) {
	const page = "http://example.com/docs/page.html"
	tests := []struct {
		name, body string
		want       []string
	}{
		{"img src and srcset",
			`<img src="a.png" srcset="a-2x.png 2x, /img/a-640.png 640w,b,c.png 3x">`,
			[]string{"image http://example.com/docs/a.png img", "image http://example.com/docs/a-2x.png img",
				"image http://example.com/img/a-640.png img", "image http://example.com/docs/b,c.png img"}}, // a comma inside a URL is part of it
		{"lazy-loaded images",
			`<img src="placeholder.gif" data-src="photo.jpg" data-srcset="photo-2x.jpg 2x" class="lazyload"><picture><source data-srcset="/p.webp"></picture>`,
			[]string{"image http://example.com/docs/placeholder.gif img", "image http://example.com/docs/photo.jpg img",
				"image http://example.com/docs/photo-2x.jpg img", "image http://example.com/p.webp source"}},
		{"picture",
			`<picture><source srcset="w.webp 1x, w2.webp 2x" type="image/webp"><source media="(min-width: 800px)" srcset="big.jpg"><img src="small.jpg"></picture>`,
			[]string{"image http://example.com/docs/w.webp source", "image http://example.com/docs/w2.webp source",
				"image http://example.com/docs/big.jpg source", "image http://example.com/docs/small.jpg img"}},
		{"links",
			`<head><link rel="stylesheet" href="/s.css"><link rel="alternate stylesheet" href="alt.css">
<link rel="icon" href="/favicon.ico"><link rel="shortcut icon" href="/f2.ico"><link rel="apple-touch-icon" href="/t.png">
<link rel="manifest" href="/m.json"><link rel="preload" href="/f.woff2" as="font" crossorigin>
<link rel="preload" href="/hero.jpg" as="image" imagesrcset="/hero-2x.jpg 2x"><link rel="preload" href="/d.json" as="fetch">
<link rel="modulepreload" href="/m.js"><link rel="canonical" href="/c"><link rel="alternate" href="/feed"><link rel="prefetch" href="/next.html"></head>`,
			[]string{"stylesheet http://example.com/s.css link", "stylesheet http://example.com/docs/alt.css link",
				"icon http://example.com/favicon.ico link", "icon http://example.com/f2.ico link", "icon http://example.com/t.png link",
				"manifest http://example.com/m.json link", "font http://example.com/f.woff2 link",
				"image http://example.com/hero.jpg link", "image http://example.com/hero-2x.jpg link", "other http://example.com/d.json link",
				"script http://example.com/m.js link"}},
		{"scripts and frames",
			`<script src="app.js"></script><script>var s = "<img src='no.png'>";</script><script type="module" src="/mod.js"></script>
<iframe src="frame.html"><img src="not-markup.png"></iframe><frameset><frame src="f1.html"></frameset>`,
			[]string{"script http://example.com/docs/app.js script", "script http://example.com/mod.js script",
				"frame http://example.com/docs/frame.html iframe", "frame http://example.com/docs/f1.html frame"}},
		{"media",
			`<video src="v.mp4" poster="p.jpg"><source src="v.webm"><track src="en.vtt"></video>
<audio src="a.mp3"><source src="a.ogg"><track src="a.vtt"></audio><source src="lost.mp4">`,
			[]string{"video http://example.com/docs/v.mp4 video", "image http://example.com/docs/p.jpg video",
				"video http://example.com/docs/v.webm source", "video http://example.com/docs/en.vtt track",
				"audio http://example.com/docs/a.mp3 audio", "audio http://example.com/docs/a.ogg source", "audio http://example.com/docs/a.vtt track"}},
		{"object, embed, input",
			`<object data="diagram.svg" type="image/svg+xml"></object><embed src="movie.swf"><input type="IMAGE" src="go.gif"><input type="text" src="no.gif">`,
			[]string{"object http://example.com/docs/diagram.svg object", "object http://example.com/docs/movie.swf embed", "image http://example.com/docs/go.gif input"}},
		{"svg",
			`<svg><image href="i.png"/><use xlink:href="sprite.svg#icon"/><use href="#local"/><image xlink:href="j.png"></image></svg><image src="k.png">`,
			[]string{"image http://example.com/docs/i.png svg:image", "image http://example.com/docs/sprite.svg svg:use",
				"image http://example.com/docs/j.png svg:image", "image http://example.com/docs/k.png img"}},
		{"style block and attributes",
			`<style>@import "print.css"; body { background: url(bg.png) } @font-face { src: url('f.woff2') format('woff2') }</style>
<div style="background-image: url(&quot;div.png&quot;)"></div><p style="color: red">x</p>`,
			[]string{"stylesheet http://example.com/docs/print.css style", "image http://example.com/docs/bg.png style",
				"font http://example.com/docs/f.woff2 style", "image http://example.com/docs/div.png style"}},
		{"base href applies to all, first one wins",
			`<head><link rel="stylesheet" href="s.css"><base href="/root/"><base href="/other/"></head><img src="i.png"><div style="background:url(d.png)">`,
			[]string{"stylesheet http://example.com/root/s.css link", "image http://example.com/root/i.png img", "image http://example.com/root/d.png style"}},
		{"legacy background",
			`<body background="b.gif"><table background="t.gif"><tr><td background="c.gif">x</td></tr></table>`,
			[]string{"image http://example.com/docs/b.gif body", "image http://example.com/docs/t.gif table", "image http://example.com/docs/c.gif td"}},
		{"noscript is markup, comments are not",
			`<noscript><img src="ns.png"></noscript><!-- <img src="comment.png"> --><textarea><img src="t.png"></textarea>`,
			[]string{"image http://example.com/docs/ns.png img"}},
		{"one per URL, and what is not fetched",
			`<img src="a.png"><img src="a.png#x"><img src="data:image/png;base64,AAAA"><img src=""><img src="javascript:void(0)">
<img src="ftp://example.com/x.png"><img src="http://[bad/x.png"><link rel="preload" href="a.png">`,
			[]string{"image http://example.com/docs/a.png img"}},
		{"XHTML beginning with <?xml",
			`<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><head><link rel="stylesheet" type="text/css" href="stylesheet.css" /></head><body><img src="x.png" alt="" /></body></html>`,
			[]string{"stylesheet http://example.com/docs/stylesheet.css link", "image http://example.com/docs/x.png img"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := HTMLRequisites(mustURL(t, page), nil, []byte(tt.body), RequisiteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := found(r); !slices.Equal(got, tt.want) {
				t.Errorf("HTMLRequisites(%.60q…):\n\tgot  %q\n\twant %q", tt.body, got, tt.want)
			}
		})
	}
}

func TestHTMLRequisitesSkipped(t *testing.T) {
	body := `<img src="a.png"><img src="a.png"><img src="data:image/png;base64,AAAA"><img src=""><img src="javascript:x()">
<use href="#i"><img src="ftp://x/y.png"><img src="b.png"><img src="c.png">`
	r, err := HTMLRequisites(mustURL(t, "https://example.com/"), nil, []byte(body), RequisiteOptions{MaxRequisites: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"data": 1, "empty": 1, "javascript": 1, "scheme": 1, "limit": 1}
	if got := found(r); len(got) != 2 || !mapsEqual(r.Skipped, want) {
		t.Errorf("found %q, skipped %v; want 2 found, skipped %v", got, r.Skipped, want)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestHTMLRequisitesLinkHeaderAndCharset(t *testing.T) {
	h := http.Header{
		"Content-Type": {"text/html; charset=windows-1252"},
		"Link":         {`</fonts/a.woff2>; rel=preload; as=font; crossorigin, <https://cdn.example.net/s.css>; rel="stylesheet"`},
	}
	body := []byte("<base href=\"/elsewhere/\"><img src=\"caf\xe9.png\">")
	r, err := HTMLRequisites(mustURL(t, "http://example.com/a/b.html"), h, body, RequisiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"font http://example.com/fonts/a.woff2 link-header", "stylesheet https://cdn.example.net/s.css link-header",
		"image http://example.com/elsewhere/caf%C3%A9.png img"}
	if got := found(r); !slices.Equal(got, want) || r.Charset != "windows-1252" {
		t.Errorf("got %q in %s, want %q in windows-1252", got, r.Charset, want)
	}
}

func TestHTMLRequisitesTruncated(t *testing.T) {
	body := `<img src="a.png">` + strings.Repeat("<p>filler</p>", 100) + `<img src="b.png">`
	r, err := HTMLRequisites(mustURL(t, "http://example.com/"), nil, []byte(body), RequisiteOptions{MaxHTMLBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	if got := found(r); !r.Truncated || len(got) != 1 {
		t.Errorf("truncated %v, found %q; want truncated and a.png alone", r.Truncated, got)
	}
}

func TestRequisitesBadURL(t *testing.T) {
	var ue *URLError
	if _, err := HTMLRequisites(nil, nil, nil, RequisiteOptions{}); !errors.As(err, &ue) {
		t.Errorf("HTMLRequisites(nil): %v, want a *URLError", err)
	}
	if _, err := CSSRequisites(mustURL(t, "/relative.css"), nil, nil, RequisiteOptions{}); !errors.As(err, &ue) {
		t.Errorf("CSSRequisites(relative): %v, want a *URLError", err)
	}
	if _, err := LinkHeaderRequisites(mustURL(t, "ftp://example.com/"), nil); !errors.As(err, &ue) {
		t.Errorf("LinkHeaderRequisites(ftp): %v, want a *URLError", err)
	}
}

func TestSrcsetURLs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a.png", []string{"a.png"}},
		{" a.png 1x , b.png 2x ", []string{"a.png", "b.png"}},
		{"a.png,b.png", []string{"a.png,b.png"}},      // a URL runs to white space
		{"a.png, b.png,", []string{"a.png", "b.png"}}, // a comma ending it separates
		{"a,b.png 1x, c.png", []string{"a,b.png", "c.png"}},
		{"a.png 100w (junk, more), b.png", []string{"a.png", "b.png"}},
		{"data:image/png;base64,AAA= 1x, x.png 2x", []string{"data:image/png;base64,AAA=", "x.png"}},
		{",,, ,", nil},
		{"", nil},
	}
	for _, tt := range tests {
		got := slices.Collect(srcsetURLs(tt.in))
		if !slices.Equal(got, tt.want) {
			t.Errorf("srcsetURLs(%q):\n\tgot  %q\n\twant %q", tt.in, got, tt.want)
		}
	}
}

func TestKindText(t *testing.T) {
	for _, k := range Kinds() {
		b, _ := k.MarshalText()
		var back Kind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("%v: round trip gave %v, %v", k, back, err)
		}
	}
	if _, err := ParseKind("flash"); err == nil {
		t.Error(`ParseKind("flash"): no error`)
	}
}
