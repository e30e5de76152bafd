package crawl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/storage"
)

// digestIndexPath returns where the crawl keeps the WARC payload-digest index: in the
// data directory beside frontier.db, not in warc/, so that warc/* matches WARC files
// only. An index an older version left in warc/ is moved there (a rename, so it is
// never half moved); moved reports that it was.
func digestIndexPath(dataDir string) (path string, moved bool, err error) {
	path = filepath.Join(dataDir, storage.DigestIndexName)
	old := filepath.Join(dataDir, "warc", storage.DigestIndexName)
	if _, err := os.Stat(path); err == nil {
		return path, false, nil
	}
	if _, err := os.Stat(old); err != nil {
		return path, false, nil
	}
	if err := os.Rename(old, path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", false, fmt.Errorf("moving the digest index out of warc/: %w", err)
	}
	return path, true, nil
}

// importDedup imports into the crawl's digest index what the crawls named by
// dedup_from archived (storage.ImportDedup): once per source file, resumed if a
// stop cut it, skipped when the file has not changed since. Damaged lines are
// logged and skipped; a source that cannot be read at all stops the crawl.
func (c *Crawler) importDedup(ctx context.Context) error {
	for _, from := range c.cfg.DedupFrom {
		files, err := storage.DedupSources(from)
		if err != nil {
			return fmtErr("dedup_from", err)
		}
		for _, f := range files {
			st, err := c.warc.ImportDedup(ctx, f)
			if err != nil {
				return fmtErr("importing dedup_from "+from, err)
			}
			if st.Unchanged {
				c.log.Debug("dedup_from: source unchanged since its import", "source", f)
				continue
			}
			c.log.Info("dedup_from: imported", "source", f, "kind", st.Kind, "digests", st.Digests,
				"captures", st.Captures, "resumed", st.Resumed, "damaged", st.Damaged)
			if st.Damaged > 0 {
				c.log.Warn("dedup_from: damaged entries skipped", "source", f, "damaged", st.Damaged,
					"examples", strings.Join(st.Examples, "; "))
			}
		}
	}
	return nil
}

// dedupRequest returns, without recrawl, what is known of the page's last capture,
// in a dedup_from crawl or this one, for dedupChanged. The request stays
// unconditional for a capture of a dedup_from crawl: a 304 would leave the page's
// body, and so its links, unknown to this crawl. A capture of this crawl (a page
// fetched again after a crash lost its record) makes it conditional.
func (c *Crawler) dedupRequest(req *fetch.Request) (*fetch.Request, *lastFetch, error) {
	capt, ok, err := c.warc.LastCapture(req.URL)
	if err != nil || !ok {
		return req, nil, err
	}
	if !capt.Imported {
		req.ETag, req.LastModified = capt.ETag, capt.LastModified
	}
	return req, &lastFetch{capture: &capt}, nil
}

// dedupChanged sets, without recrawl (which decides it in reschedule), whether a page
// an earlier crawl captured changed since (not a 304, nor a revisit of that capture)
// and when that capture was fetched.
func (c *Crawler) dedupChanged(page *storage.Page, loc *storage.Location, last *lastFetch) {
	if c.cfg.Recrawl.Interval > 0 || last == nil || last.capture == nil || page.Changed != nil {
		return
	}
	prev := last.capture
	changed := !loc.NotModified && !(loc.Revisit && loc.RefersTo == prev.RecordID && loc.RefersTo != "")
	page.Changed, page.PreviousFetch = &changed, prev.Fetched.UTC()
}
