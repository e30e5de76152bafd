package extract_test

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/politecrawl/crawl/extract"
)

func ExampleHTML() {
	page, _ := url.Parse("https://example.com/blog/post.html")
	header := http.Header{
		"Content-Type": {"text/html; charset=utf-8"},
		"X-Robots-Tag": {"otherbot: noindex"},
	}
	body := []byte(`<html lang="en"><head><title>A post</title>
<meta name="robots" content="noarchive">
<link rel="canonical" href="/blog/post.html?utm_source=rss">
</head><body><nav><a href="/">Home</a></nav>
<main><h1>Hello</h1><p>Read <a href="../about#team">about us</a>
or <a href="https://Other.Example/x" rel="nofollow">elsewhere</a>.</p></main>
<a href="mailto:me@example.com">mail</a></body></html>`)

	p, err := extract.HTML(page, header, body, extract.HTMLOptions{Agent: "ExampleBot", WithText: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("title:", p.Title, "lang:", p.Lang)
	fmt.Printf("robots: %+v\n", p.Robots)
	fmt.Println("canonical:", p.Canonical)
	for _, l := range p.Links {
		fmt.Println("link:", l.Tag, l.URL, l.Rel, l.NoFollow)
	}
	fmt.Println("skipped:", p.Skipped)
	fmt.Printf("text: %q\n", p.Text)
	// Output:
	// title: A post lang: en
	// robots: {NoIndex:false NoFollow:false NoArchive:true NoSnippet:false}
	// canonical: https://example.com/blog/post.html?utm_source=rss
	// link: link https://example.com/blog/post.html?utm_source=rss [canonical] false
	// link: a https://example.com/ [] false
	// link: a https://example.com/about [] false
	// link: a https://other.example/x [nofollow] true
	// skipped: map[mailto:1]
	// text: "Hello\nRead about us or elsewhere."
}

func ExampleURLRules_Canonical() {
	rules := extract.DefaultURLRules()
	for _, raw := range []string{
		"HTTP://Bücher.Example:80/a/./b/../%7ec?utm_source=x&q=go%2dlang#top",
		"https://example.com/cart.jsp;jsessionid=0A1B?item=7&fbclid=abc",
		"mailto:someone@example.com",
	} {
		c, err := rules.Canonical(raw)
		fmt.Println(c, err)
	}
	fmt.Println(extract.Authority("https://example.com:8443/x?y"))
	// Output:
	// http://xn--bcher-kva.example/a/~c?q=go-lang <nil>
	// https://example.com/cart.jsp?item=7 <nil>
	//  canonical "mailto:someone@example.com": extract: scheme is not http or https
	// https://example.com:8443
}

func ExampleURLRules_Resolve() {
	base, _ := url.Parse("https://example.com/docs/guide/")
	rules := extract.URLRules{SortQuery: true}
	u, err := rules.Resolve(base, "  ../api\\v2?b=2&a=1#intro\n")
	fmt.Println(u, err)
	// Output:
	// https://example.com/docs/api/v2?a=1&b=2 <nil>
}

func ExampleHTMLRequisites() {
	page, _ := url.Parse("https://example.com/docs/intro.html")
	header := http.Header{"Link": {`</fonts/body.woff2>; rel=preload; as=font; crossorigin`}}
	body := []byte(`<!DOCTYPE html><html><head><link rel="stylesheet" href="../css/site.css">
<link rel="icon" href="/favicon.ico"><style>h1 { background: url(banner.png) }</style></head>
<body><img src="figure.png" srcset="figure-2x.png 2x" alt="A figure">
<a href="next.html">Next</a><script src="/js/app.js"></script></body></html>`)
	r, err := extract.HTMLRequisites(page, header, body, extract.RequisiteOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, q := range r.Found {
		fmt.Println(q.Kind, q.URL, q.From)
	}

	sheet, _ := url.Parse("https://example.com/css/site.css")
	css := []byte(`@import "print.css" print; @font-face { src: url(/fonts/head.woff2) format("woff2") }
body { background: url(../img/paper.png) }`)
	r, _ = extract.CSSRequisites(sheet, nil, css, extract.RequisiteOptions{})
	for _, q := range r.Found {
		fmt.Println(q.Kind, q.URL, q.From)
	}
	// Output:
	// font https://example.com/fonts/body.woff2 link-header
	// stylesheet https://example.com/css/site.css link
	// icon https://example.com/favicon.ico link
	// image https://example.com/docs/banner.png style
	// image https://example.com/docs/figure.png img
	// image https://example.com/docs/figure-2x.png img
	// script https://example.com/js/app.js script
	// stylesheet https://example.com/css/print.css css
	// font https://example.com/fonts/head.woff2 css
	// image https://example.com/img/paper.png css
}
