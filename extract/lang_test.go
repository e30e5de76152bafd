package extract_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/politecrawl/crawl/extract"
)

// TestHTMLLanguages: with Language, Page.Languages are those of the main text (a
// German article in a page whose navigation is English), whatever the page declares
// and in whatever format the text is given; without it, or without text, none.
func TestHTMLLanguages(t *testing.T) {
	page := []byte(`<!doctype html><html lang="en"><head><title>Pakete</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/contact">Contact</a></nav>
<main><h1>Debian-Pakete bauen</h1>
<p>Eines ist wohl sicher: um Debian-Pakete richtig zu bauen und zu warten, brauchen Sie viel Zeit.
Schätzen Sie das nicht falsch ein; damit unser System funktioniert, müssen die Betreuer nicht
nur technisch kompetent sein, sondern auch sorgfältig arbeiten.</p>
<p>この文書の最新版は常にネットワーク経由で入手できます。</p></main></body></html>`)
	base, _ := url.Parse("https://example.org/de/pakete")
	header := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	for _, tt := range []struct {
		name  string
		opts  extract.HTMLOptions
		codes []string
	}{
		{"text and language", extract.HTMLOptions{WithText: true, Language: true}, []string{"de", "ja"}},
		{"markdown", extract.HTMLOptions{WithText: true, Language: true, TextFormat: extract.TextMarkdown}, []string{"de", "ja"}},
		{"token scan", extract.HTMLOptions{WithText: true, Language: true, TokenScan: true}, []string{"de", "ja"}},
		{"text only", extract.HTMLOptions{WithText: true}, nil},
		{"language without text", extract.HTMLOptions{Language: true}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := extract.HTML(base, header, page, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var codes []string
			for _, l := range p.Languages {
				codes = append(codes, l.Code)
			}
			if len(codes) != len(tt.codes) || len(codes) > 0 && (codes[0] != tt.codes[0] || codes[1] != tt.codes[1]) {
				t.Errorf("HTML(%+v).Languages:\n\tgot %v\n\twant %v", tt.opts, p.Languages, tt.codes)
			}
			if p.Lang != "en" {
				t.Errorf("HTML(%+v).Lang = %q, want the declared \"en\"", tt.opts, p.Lang)
			}
		})
	}
}
