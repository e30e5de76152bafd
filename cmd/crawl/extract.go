package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
)

func init() {
	register("extract", "print what a crawl extracts from one HTML file, as JSON", runExtract)
}

func runExtract(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("extract", "usage: crawl extract [-url URL] [-format plain|markdown] [-content-type TYPE] [-config FILE] FILE|-\n\n"+
		"Prints one JSON object: what a crawl extracts from the HTML document in FILE (or\n"+
		"standard input for -), through the crawl's own code: title, lang (declared),\n"+
		"language (detected in the main text), text (the main text), simhash, canonical,\n"+
		"robots (the meta robots directives), links and requisites, resolved against -url.")
	pageURL := fs.String("url", "https://example.com/", "the `URL` the document was fetched from: links resolve against it")
	format := fs.String("format", "", "the main text's `form`, plain or markdown (default: extract.text_format of -config, else plain)")
	contentType := fs.String("content-type", "", "the Content-Type header the document came with (its charset is read)")
	configFile := fs.String("config", "", "read user_agent, scope.max_links_per_page and the extract section from this YAML `file`, as a crawl does")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		fs.Usage()
		return usagef("extract: give one FILE, or - for standard input")
	}
	cfg, err := loadConfig(*configFile)
	if err != nil {
		return err
	}
	if *format != "" {
		if _, ok := config.TextFormat(*format); !ok {
			return usagef("extract: -format %q: want plain or markdown", *format)
		}
		cfg.Extract.TextFormat = *format
	}
	u, err := url.Parse(*pageURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("extract: -url %q is not an absolute http or https URL", *pageURL)
	}
	// A crawl reads at most fetch.max_body_size of a response.
	var body []byte
	if files[0] == "-" {
		body, err = io.ReadAll(io.LimitReader(os.Stdin, int64(cfg.Fetch.MaxBodySize)))
	} else {
		body, err = readLimited(files[0], int64(cfg.Fetch.MaxBodySize))
	}
	if err != nil {
		return usagef("extract: %v", err)
	}
	var header http.Header
	if *contentType != "" {
		header = http.Header{"Content-Type": {*contentType}}
	}
	doc, err := crawl.ExtractDocument(cfg, u, header, body)
	if err != nil {
		return usagef("extract: %v", err)
	}
	enc := json.NewEncoder(m.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
