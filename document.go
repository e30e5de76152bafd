package crawl

import (
	"net/http"
	"net/url"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/extract/lang"
	"github.com/politecrawl/crawl/robots"
)

// Document is what the crawl reads out of one HTML document, as `crawl extract`
// prints it: the same extraction as a crawl's, with the requisites a page would queue
// and the language detected in its main text.
type Document struct {
	URL       string `json:"url"`       // the URL links are resolved against
	Title     string `json:"title"`     // the first <title>
	Lang      string `json:"lang"`      // the language the document declares (<html lang>, meta, Content-Language)
	Canonical string `json:"canonical"` // <link rel="canonical">, resolved; "" when absent
	// Language is the language detected in the main text (ISO 639-1 code, ISO 15924
	// script, confidence from 0 to 1); nil when the text has no letters or
	// storage.language is off.
	Language *lang.Result `json:"language"`
	// Text is the main text in the configuration's extract.text_format.
	Text string `json:"text"`
	// SimHash is the 64-bit SimHash of the main text as plain text, 16 hex digits.
	SimHash extract.SimHash `json:"simhash"`
	// Robots are the directives of meta robots tags and the X-Robots-Tag header.
	Robots extract.Directives `json:"robots"`
	// Links are the outgoing links, one per URL, as the crawl finds them (before
	// scope rules and the crawl's URL rules).
	Links []extract.Link `json:"links"`
	// Requisites are what a browser loads to show the document: the Link header's and
	// the HTML's (images, stylesheets, scripts, fonts, frames, icons).
	Requisites []extract.Requisite `json:"requisites"`
	// Charset is the encoding the document was read in.
	Charset string `json:"charset"`
	// Truncated is true when only the first extract.max_html_bytes were parsed.
	Truncated bool `json:"truncated,omitempty"`
	// Skipped counts the hrefs not in Links, by reason.
	Skipped map[string]int `json:"skipped,omitempty"`
}

// ExtractDocument reads one HTML document as a crawl with cfg reads the pages it
// fetches: pageURL is the URL it came from, header its response header (nil is
// allowed). Text is always extracted, in cfg.Extract.TextFormat. It fetches nothing;
// the only error is a pageURL that is not an absolute http or https URL.
func ExtractDocument(cfg config.Config, pageURL *url.URL, header http.Header, body []byte) (*Document, error) {
	doc, err := readHTML(cfg, robots.AgentToken(cfg.UserAgent), pageURL, header, body, true, true)
	if err != nil {
		return nil, err
	}
	d := &Document{
		URL: pageURL.String(), Title: doc.Title, Lang: doc.Lang, Canonical: doc.Canonical,
		Text: doc.Text, SimHash: doc.SimHash, Robots: doc.Robots, Links: doc.Links,
		Charset: doc.Charset, Truncated: doc.Truncated, Skipped: doc.Skipped,
	}
	if d.Links == nil {
		d.Links = []extract.Link{}
	}
	if len(doc.Languages) > 0 {
		d.Language = &doc.Languages[0]
	}
	d.Requisites = doc.Requisites.Found
	if d.Requisites == nil {
		d.Requisites = []extract.Requisite{}
	}
	return d, nil
}

// readHTML extracts a page's links, metadata, when withText its main text and when
// withRequisites its requisites, with the options of cfg: what pageLinks and
// ExtractDocument share.
func readHTML(cfg config.Config, agent string, base *url.URL, header http.Header, body []byte, withText, withRequisites bool) (*extract.Page, error) {
	format, _ := config.TextFormat(cfg.Extract.TextFormat) // Validate checked it
	// Without text, no tree is built: the token scan finds the same links and
	// metadata for about half the CPU, and the engine reads no anchor text.
	return extract.HTML(base, header, body, extract.HTMLOptions{Agent: agent, WithText: withText, TokenScan: !withText,
		Language: cfg.Storage.Language, TextFormat: format, MaxLinks: cfg.Scope.MaxLinksPerPage,
		MaxHTMLBytes: int(cfg.Extract.MaxHTMLBytes), WithRequisites: withRequisites}) // memBudget's parse cost must use the same MaxHTMLBytes
}
