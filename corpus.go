package crawl

import (
	"path/filepath"

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

// isHTMLPage reports whether resp, fetched for lease l, is a page parsed as
// HTML: one that gets a conversion record in the WET file.
func isHTMLPage(l *frontier.Lease, resp *fetch.Response) bool {
	return resp.Status >= 200 && resp.Status < 300 && l.Kind != kindSitemap &&
		isHTML(resp.Header.Get("Content-Type"), resp.Body)
}
