package crawl

import (
	"path/filepath"
	"slices"

	"github.com/politecrawl/crawl/extract/lang"
	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/frontier"
)

// ParquetDirName is the directory of the Parquet index in the data directory, as
// Common Crawl's bucket names it: cc-index/crawl=NAME/subset=…/.
const ParquetDirName = "cc-index"

// parquetDir returns the directory of the crawl's Parquet index, or "" when
// storage.parquet is off.
func (c *Crawler) parquetDir(dataDir string) string {
	if !c.cfg.Storage.Parquet {
		return ""
	}
	return filepath.Join(dataDir, ParquetDirName)
}

// maxLanguages is how many languages a WET record and the Parquet index name, as
// Common Crawl's content_languages holds up to three.
const maxLanguages = 3

// textLanguages returns the ISO 639-3 codes of the languages detected in text, the
// main one first, as Common Crawl writes them in WARC-Identified-Content-Language.
func textLanguages(text string) []string {
	var codes []string
	for _, r := range lang.DetectAll(text) {
		if c := r.ISO6393(); c != "" && len(codes) < maxLanguages && !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	return codes
}

// isHTMLPage reports whether resp, fetched for lease l, is a page parsed as
// HTML: one that gets a conversion record in the WET file.
func isHTMLPage(l *frontier.Lease, resp *fetch.Response) bool {
	return resp.Status >= 200 && resp.Status < 300 && l.Kind != kindSitemap &&
		isHTML(resp.Header.Get("Content-Type"), resp.Body)
}
