package crawl

import (
	"bufio"
	"bytes"
	"net/http"
	"net/url"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/robots"
	"github.com/politecrawl/crawl/storage"
)

// RebuildWET writes the WET file of every WARC file in warcDir anew from the WARC
// files (storage.RebuildWET), extracting each HTML page's main text and languages as a
// crawl with cfg does (its user agent, extract.max_html_bytes and fetch.max_decoded_size).
// fn, when not nil, is called after each file with its path and its number of
// conversion records.
func RebuildWET(cfg config.Config, warcDir string, fn func(path string, records int)) error {
	agent := robots.AgentToken(cfg.UserAgent)
	convert := func(uri string, head, body []byte) *storage.Conversion {
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(head)), nil)
		if err != nil || resp.StatusCode < 200 || resp.StatusCode >= 300 {
			return nil
		}
		decoded, err := fetch.DecodeBody(body, resp.Header.Values("Content-Encoding"), int64(cfg.Fetch.MaxDecodedSize))
		if err != nil || !isHTML(resp.Header.Get("Content-Type"), decoded) {
			return nil
		}
		base, err := url.Parse(uri)
		if err != nil {
			return nil
		}
		doc, err := extract.HTML(base, resp.Header, decoded, extract.HTMLOptions{Agent: agent, WithText: true,
			Language: cfg.Storage.Language, MaxLinks: cfg.Scope.MaxLinksPerPage, MaxHTMLBytes: int(cfg.Extract.MaxHTMLBytes)})
		if err != nil {
			return &storage.Conversion{} // unparsable HTML: a page without text, as the crawl writes it
		}
		return &storage.Conversion{Text: doc.Text, Languages: iso6393(doc.Languages)}
	}
	return storage.RebuildWET(warcDir, convert, fn)
}
