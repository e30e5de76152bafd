package extract_test

// Benchmarks of the extract hot paths, each beside a baseline measured in the same
// run, so that the ratio stays meaningful on a busy machine:
//
//	go test -run '^$' -bench . -count 5 ./extract/
//
// Inputs are generated in code, deterministically, and only when a benchmark runs.

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/politecrawl/crawl/extract"
)

// benchPageURL is the URL the benchmark page was fetched from.
const benchPageURL = "https://www.example.com/blog/2026/11/post.html?id=7"

// benchPageLinks is the number of <a href> elements in the benchmark page.
const benchPageLinks = 200

// benchPageSize is the size the benchmark page is padded to, in bytes.
const benchPageSize = 30 << 10

// benchPage returns a 30 KiB HTML page with 200 links of the kinds a crawler meets:
// relative paths with dot segments, root-relative and absolute URLs, query strings
// with tracking parameters, percent-encoding, a non-ASCII host, rel="nofollow", a
// few fragment and mailto links, anchors around images.
var benchPage = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Notes from the field: crawling politely, part 7</title>
<meta name="description" content="How a polite crawler reads robots.txt, sitemaps and pages.">
<meta name="robots" content="index, follow">
<link rel="canonical" href="/blog/2026/11/post.html">
<link rel="stylesheet" href="/static/site.css">
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
</head><body><header><nav><a href="/">Home</a> <a href="/blog/">Blog</a></nav></header>
<main><article><h1>Crawling politely</h1>
`)
	hrefs := []func(i int) string{
		func(i int) string { return fmt.Sprintf("/blog/2026/%02d/post-%d.html", i%12+1, i) },
		func(i int) string {
			return fmt.Sprintf("../%02d/post-%d.html?utm_source=blog&utm_medium=web&ref=%d", i%12+1, i, i)
		},
		func(i int) string {
			return fmt.Sprintf("https://other%d.example.org/path/to/page?q=go%%2dlang&page=%d", i%7, i)
		},
		func(i int) string { return fmt.Sprintf("./related/./article-%d/../article-%d", i, i) },
		func(i int) string { return fmt.Sprintf("http://www.example.com:80/tags/%%7Ecrawler/%d#comments", i) },
		func(i int) string { return fmt.Sprintf("https://bücher.example/kategorie/%d?sessionid=abc%d", i, i) },
		func(i int) string { return fmt.Sprintf("/search?q=polite+crawler&fbclid=IwAR%d&sort=new", i) },
		func(i int) string { return fmt.Sprintf("//cdn.example.net/assets/img-%d.html", i) },
		func(i int) string { return fmt.Sprintf("/wiki/Caf%%c3%%a9_%d", i) },
		func(i int) string {
			switch i % 3 {
			case 0:
				return "#top"
			case 1:
				return "mailto:editor@example.com"
			}
			return fmt.Sprintf("/archive/%d/", i)
		},
	}
	for i := range benchPageLinks {
		href := hrefs[i%len(hrefs)](i)
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "<p>Paragraph %d of the post: a polite crawler keeps to the rules a site sets and spaces its requests. <a href=\"%s\">Read more about item %d</a>.</p>\n", i, href, i)
		case 1:
			fmt.Fprintf(&b, "<a href=\"%s\" rel=\"nofollow ugc\">comment link %d</a>\n", href, i)
		case 2:
			fmt.Fprintf(&b, "<a href=\"%s\"><img src=\"/img/%d.png\" alt=\"Figure %d\"></a>\n", href, i, i)
		default:
			fmt.Fprintf(&b, "<li><a href=\"%s\" title=\"Entry %d\">entry %d</a></li>\n", href, i, i)
		}
	}
	b.WriteString("</article></main><footer>")
	for i := 0; b.Len() < benchPageSize-len("</footer></body></html>")-64; i++ {
		fmt.Fprintf(&b, "<span>Footer note %d: archived pages are kept for research.</span>\n", i)
	}
	b.WriteString("</footer></body></html>")
	return b.Bytes()
})

// BenchmarkHTML measures extract.HTML on a 30 KiB page with 200 links, beside a bare
// goquery parse that reads every a[href] of the same page.
func BenchmarkHTML(b *testing.B) {
	page := benchPage()
	base, err := url.Parse(benchPageURL)
	if err != nil {
		b.Fatal(err)
	}
	header := http.Header{"Content-Type": {"text/html; charset=utf-8"}}

	b.Run("goquery", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(page)))
		n := 0
		for b.Loop() {
			doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
			if err != nil {
				b.Fatal(err)
			}
			n = 0
			doc.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
				if href, ok := s.Attr("href"); ok && href != "" {
					n++
				}
			})
		}
		if n != benchPageLinks+2 { // the page's links and two in <nav>
			b.Fatalf("goquery found %d links, want %d", n, benchPageLinks+2)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	})
	for _, bc := range []struct {
		name string
		opts extract.HTMLOptions
	}{
		{"links", extract.HTMLOptions{Agent: "ExampleBot"}},
		{"links-tokenscan", extract.HTMLOptions{Agent: "ExampleBot", TokenScan: true}},
		{"links+text", extract.HTMLOptions{Agent: "ExampleBot", WithText: true}},
		{"links+text+language", extract.HTMLOptions{Agent: "ExampleBot", WithText: true, Language: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(page)))
			var p *extract.Page
			for b.Loop() {
				var err error
				if p, err = extract.HTML(base, header, page, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
			if len(p.Links) < benchPageLinks-benchPageLinks/10 {
				b.Fatalf("HTML found %d links, want about %d", len(p.Links), benchPageLinks)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}

// benchAbsURLs are absolute URLs as links and sitemaps give them: mixed-case schemes
// and hosts, default ports, dot segments, percent-encoding to normalise, tracking and
// session parameters, IDNA hosts, fragments.
var benchAbsURLs = []string{
	"https://www.example.com/",
	"https://www.example.com/blog/2026/11/post.html",
	"HTTP://WWW.Example.COM:80/a/./b/../c/index.html",
	"https://example.com:443/search?q=polite+crawler&utm_source=news&utm_medium=email&utm_campaign=fall",
	"https://example.com/wiki/Caf%c3%a9_au_lait?action=view#History",
	"http://bücher.example/kategorie/romane?seite=2",
	"https://xn--bcher-kva.example/kategorie/romane?seite=3",
	"https://shop.example.net/cart.jsp;jsessionid=0A1B2C3D?item=7&fbclid=IwAR0xyz",
	"https://example.org/%7Euser/files/report%2D2026.pdf",
	"https://example.org/a/b/c/../../d/./e?x=1&&y=2&",
	"http://192.168.0.1:8080/status?verbose=1",
	"https://news.example.com/article/12345-some-long-slug-for-seo-purposes?ref=home&gclid=abc123",
}

// benchRelURLs are hrefs found in a page at benchPageURL.
var benchRelURLs = []string{
	"/",
	"post-8.html",
	"../10/post-6.html?utm_source=blog&utm_medium=web",
	"./related/./article-3/../article-4",
	"/search?q=polite+crawler&fbclid=IwAR1&sort=new",
	"//cdn.example.net/assets/img-1.html",
	"/wiki/Caf%c3%a9_1#section",
	"?page=2",
	"../../2025/../2026/index.html",
	"https://Other.Example.org:443/x/%7Ey",
	"/tags/%e2%9c%93/",
	"archive/2026/",
}

// BenchmarkCanonical measures URLs per second through (*URLRules).Canonical with the
// default rules (absolute URLs) and (*URLRules).Resolve (hrefs against a page URL),
// each beside url.Parse and String, which do far less normalisation.
func BenchmarkCanonical(b *testing.B) {
	rules := extract.DefaultURLRules()
	base, err := url.Parse(benchPageURL)
	if err != nil {
		b.Fatal(err)
	}
	report := func(b *testing.B, n int) {
		b.ReportMetric(float64(b.N)*float64(n)/b.Elapsed().Seconds(), "urls/s")
	}
	b.Run("abs/url.Parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, raw := range benchAbsURLs {
				u, err := url.Parse(raw)
				if err != nil {
					b.Fatal(err)
				}
				_ = u.String()
			}
		}
		report(b, len(benchAbsURLs))
	})
	b.Run("abs/Canonical", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, raw := range benchAbsURLs {
				if _, err := rules.Canonical(raw); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b, len(benchAbsURLs))
	})
	b.Run("rel/url.Parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, href := range benchRelURLs {
				u, err := base.Parse(href)
				if err != nil {
					b.Fatal(err)
				}
				_ = u.String()
			}
		}
		report(b, len(benchRelURLs))
	})
	b.Run("rel/Resolve", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, href := range benchRelURLs {
				if _, err := rules.Resolve(base, href); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b, len(benchRelURLs))
	})
}

// benchSitemapURL is where the benchmark sitemap lives; every entry is under it.
const benchSitemapURL = "https://www.example.com/sitemap.xml"

// benchSitemapURLs is the number of entries of the benchmark sitemap, the protocol's
// maximum.
const benchSitemapURLs = 50000

// benchSitemap returns a urlset of 50,000 entries with lastmod, changefreq and
// priority, and the same bytes gzip-compressed.
var benchSitemap = sync.OnceValues(func() (plain, gz []byte) {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	freqs := []string{"daily", "weekly", "monthly"}
	for i := range benchSitemapURLs {
		fmt.Fprintf(&b, "<url><loc>https://www.example.com/products/%d/item-%d.html?color=blue&amp;size=%d</loc>"+
			"<lastmod>2026-%02d-%02dT12:%02d:00+00:00</lastmod><changefreq>%s</changefreq><priority>0.%d</priority></url>\n",
			i/100, i, i%5, i%12+1, i%28+1, i%60, freqs[i%3], i%10)
	}
	b.WriteString("</urlset>\n")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b.Bytes()) // writes to memory: cannot fail
	zw.Close()
	return b.Bytes(), z.Bytes()
})

// benchXMLTokens reads r with a bare encoding/xml token loop, the floor under any
// streaming sitemap parser, and returns the number of <loc> elements.
func benchXMLTokens(r io.Reader) (int, error) {
	d := xml.NewDecoder(r)
	d.Strict = false
	n := 0
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "loc" {
			n++
		}
	}
}

// BenchmarkSitemap measures sitemap URLs per second for a 50,000-entry urlset, plain
// and gzip-compressed, each beside a bare encoding/xml token loop over the same bytes
// (through compress/gzip for the compressed input, as Sitemap reads it).
func BenchmarkSitemap(b *testing.B) {
	plain, gz := benchSitemap()
	for _, in := range []struct {
		name string
		data []byte
	}{{"plain", plain}, {"gzip", gz}} {
		b.Run(in.name+"/xml", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(plain)))
			for b.Loop() {
				var r io.Reader = bytes.NewReader(in.data)
				if in.name == "gzip" {
					zr, err := gzip.NewReader(r)
					if err != nil {
						b.Fatal(err)
					}
					r = zr
				}
				n, err := benchXMLTokens(r)
				if err != nil || n != benchSitemapURLs {
					b.Fatalf("xml: %d locs, %v; want %d", n, err, benchSitemapURLs)
				}
			}
			b.ReportMetric(float64(b.N)*benchSitemapURLs/b.Elapsed().Seconds(), "urls/s")
		})
		b.Run(in.name+"/Sitemap", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(plain)))
			for b.Loop() {
				res, err := extract.Sitemap(bytes.NewReader(in.data), benchSitemapURL, extract.SitemapOptions{})
				if err != nil || len(res.URLs) != benchSitemapURLs {
					b.Fatalf("Sitemap: %d URLs, %v; want %d", len(res.URLs), err, benchSitemapURLs)
				}
			}
			b.ReportMetric(float64(b.N)*benchSitemapURLs/b.Elapsed().Seconds(), "urls/s")
		})
	}
}
