package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// extractPage is a news page: navigation, an article with an image and a code block, a
// sidebar and a footer.
const extractPage = `<!DOCTYPE html><html lang="en"><head><title>Bridge approved</title>
<meta name="robots" content="noarchive">
<link rel="canonical" href="/news/bridge"><link rel="stylesheet" href="/site.css"></head>
<body><nav><a href="/">Home</a> <a href="/sport">Sport</a></nav>
<div class="story"><h1>Bridge approved</h1>
<p>The city council voted on Thursday to build a new footbridge over the river, ending a debate that has lasted more than ten years.</p>
<img src="/img/bridge.jpg" alt="The river">
<p>The bridge, which will link the old market to the railway station, is expected to cost 12 million euros, most of it paid by a regional grant.</p>
<pre>if approved {
    build()
}</pre></div>
<div class="sidebar"><a href="/a">Storm warning for the weekend</a></div>
<footer>All rights reserved</footer></body></html>`

func TestExtract(t *testing.T) {
	file := writeFile(t, "page.html", extractPage)
	code, out, errOut := run(t, "extract", "-url", "https://news.example/2026/bridge.html", file)
	if code != 0 {
		t.Fatalf("crawl extract: exit %d, stderr %q", code, errOut)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("crawl extract printed %d lines, want one JSON object on one line", strings.Count(out, "\n"))
	}
	var doc struct {
		URL       string `json:"url"`
		Title     string `json:"title"`
		Lang      string `json:"lang"`
		Canonical string `json:"canonical"`
		Language  struct {
			Code   string  `json:"code"`
			Script string  `json:"script"`
			Conf   float64 `json:"confidence"`
		} `json:"language"`
		Text       string `json:"text"`
		SimHash    string `json:"simhash"`
		Robots     struct{ NoArchive bool }
		Links      []struct{ URL string }
		Requisites []struct{ URL, Kind string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("crawl extract: %v in %s", err, out)
	}
	if doc.Title != "Bridge approved" || doc.Lang != "en" || doc.Canonical != "https://news.example/news/bridge" {
		t.Errorf("title %q, lang %q, canonical %q", doc.Title, doc.Lang, doc.Canonical)
	}
	if doc.Language.Code != "en" || doc.Language.Script != "Latn" || doc.Language.Conf <= 0 {
		t.Errorf("language %+v, want en, Latn", doc.Language)
	}
	if !strings.Contains(doc.Text, "ending a debate that has lasted more than ten years.\nThe bridge") ||
		!strings.Contains(doc.Text, "if approved {\n    build()\n}") ||
		strings.Contains(doc.Text, "Sport") || strings.Contains(doc.Text, "Storm") || strings.Contains(doc.Text, "rights") {
		t.Errorf("text:\n%s", doc.Text)
	}
	if len(doc.SimHash) != 16 || !doc.Robots.NoArchive {
		t.Errorf("simhash %q, robots %+v", doc.SimHash, doc.Robots)
	}
	if len(doc.Links) < 4 || doc.Links[0].URL != "https://news.example/news/bridge" {
		t.Errorf("links %+v", doc.Links)
	}
	var img, css bool
	for _, r := range doc.Requisites {
		img = img || r.URL == "https://news.example/img/bridge.jpg"
		css = css || r.URL == "https://news.example/site.css"
	}
	if !img || !css {
		t.Errorf("requisites %+v, want the image and the stylesheet", doc.Requisites)
	}

	code, out, errOut = run(t, "extract", "-format", "markdown", file)
	if code != 0 || !strings.Contains(out, `"text":"# Bridge approved\n\nThe city council`) || !strings.Contains(out, "```\\nif approved {\\n    build()\\n}\\n```") {
		t.Errorf("crawl extract -format markdown: exit %d, stdout %s, stderr %q", code, out, errOut)
	}
}

func TestExtractUsage(t *testing.T) {
	file := writeFile(t, "page.html", extractPage)
	for _, args := range [][]string{
		{"extract"},
		{"extract", file, file},
		{"extract", "-format", "html", file},
		{"extract", "-url", "ftp://example.com/", file},
		{"extract", file + ".missing"},
	} {
		if code, out, errOut := run(t, args...); code != 2 || out != "" || !strings.Contains(errOut, "extract") {
			t.Errorf("crawl %q: exit %d, stdout %q, stderr %q; want exit 2 and a message", args, code, out, errOut)
		}
	}
}
