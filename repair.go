package crawl

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/storage"
)

// maxLoggedURLs bounds the URLs listed in one warning about lost records; crawl.log
// gets every one of them at info level.
const maxLoggedURLs = 20

// reportRepairs says what opening the data directory repaired or found damaged, in
// crawl.log and on stderr, and gives back to the frontier the URLs whose records a
// repair lost: their pages.jsonl lines, pointing past the end of a WARC file, are
// dropped, and the URLs fetched again. Nothing is repaired silently.
func (c *Crawler) reportRepairs() error {
	if n := c.front.Stats().Recovered; n > 0 {
		c.log.Warn("frontier: URLs leased by the previous run and not finished are queued again", "leases", n)
	}
	var removed []string
	repairs := c.warc.Repairs()
	for _, r := range repairs {
		switch {
		case !strings.HasSuffix(r.File, ".warc.gz"):
			c.log.Warn("warc: removed a file left by a crash while it started", "file", r.File, "bytes", r.Cut)
		case r.Removed:
			removed = append(removed, r.File)
			c.log.Warn("warc: removed the newest file of the previous run: it held no whole record",
				"file", r.File, "bytes", r.Cut)
		default:
			c.log.Warn("warc: cut a torn tail off the newest file of the previous run",
				"file", r.File, "kept_bytes", r.Kept, "cut_bytes", r.Cut)
		}
	}
	damaged := c.warc.Damaged()
	for _, d := range damaged {
		c.log.Error("warc: damaged file (left as it is; crawl verify tells more)",
			"file", d.File, "bytes", d.Size, "whole_up_to", d.End, "problem", d.Problem)
	}
	c.reportTail("pages.jsonl", c.pages.Repair())
	c.reportTail("skipped.jsonl", c.skipped.Repair())

	// Lines a crash lost after their WARC records were synced: the records carry them.
	rebuilt, err := c.pages.Rebuild(filepath.Join(c.cfg.DataDir, "warc"))
	if err != nil {
		return err
	}
	if rebuilt.Lines > 0 {
		c.log.Warn(fmt.Sprintf("pages.jsonl: %d lines rebuilt from the WARC", rebuilt.Lines),
			"lines", rebuilt.Lines, "cause", "lost by a crash after their WARC records reached disk")
	}
	if rebuilt.Unreadable > 0 {
		c.log.Warn(fmt.Sprintf("pages.jsonl: %d lines carried in the WARC are not a page's line; left out", rebuilt.Unreadable),
			"lines", rebuilt.Unreadable, "cause", "a metadata record's pages-line field does not parse")
	}

	// Lines pointing past the end of a WARC file: after a repair, anywhere in the
	// file; otherwise only near its end, where a crash during the last start leaves
	// them.
	all := len(repairs) > 0 || len(damaged) > 0
	lost, err := c.pages.FindLost(filepath.Join(c.cfg.DataDir, "warc"), removed, all)
	if err != nil {
		return err
	}
	if len(lost) == 0 {
		return nil
	}
	entries := make([]frontier.Entry, 0, len(lost))
	var urls []string
	for _, l := range lost {
		entries = append(entries, lostEntry(&l.Page))
		c.log.Info("pages.jsonl: line dropped, its WARC record is lost; URL queued again",
			"url", l.URL, "warc_file", l.WARCFile, "warc_offset", l.WARCOffset, "warc_length", l.WARCLength)
		if len(urls) < maxLoggedURLs {
			urls = append(urls, l.URL)
		}
	}
	// Queued first, then dropped: a crash in between leaves the lines, found again at
	// the next start, and queueing a queued URL again does nothing.
	n, err := c.front.Requeue(context.Background(), entries...)
	if err != nil {
		return fmtErr("requeue lost pages", err)
	}
	if err := c.pages.Drop(lost); err != nil {
		return err
	}
	c.log.Warn("pages.jsonl: dropped lines whose WARC records were lost; their URLs are fetched again",
		"lines", len(lost), "queued", n, "urls", strings.Join(urls, " "))
	return nil
}

// lostEntry is the frontier entry that fetches a lost page again. pages.jsonl says
// whether it was a page requisite (of hop 1: the line keeps no hop count), but not
// whether it was a sitemap: a URL found on a robots.txt is a sitemap, as
// queueSitemaps queues them.
func lostEntry(pg *storage.Page) frontier.Entry {
	e := frontier.Entry{URL: pg.URL, Depth: pg.Depth, FoundOn: pg.FoundOn, Kind: kindPage, Priority: priorityLink}
	if k, err := extract.ParseKind(pg.Requisite); pg.Requisite != "" && err == nil {
		e.Kind, e.Priority = requisiteEntryKind(k, 1), priorityRequisite
		return e
	}
	switch u, err := url.Parse(pg.FoundOn); {
	case pg.FoundOn == "":
		e.Priority = prioritySeed
	case err == nil && u.Path == "/robots.txt":
		e.Kind, e.Priority = kindSitemap, prioritySitemap
	}
	return e
}

// reportTail logs what opening the JSON-lines file name repaired at its end.
func (c *Crawler) reportTail(name string, r storage.TailRepair) {
	if r.Cut > 0 {
		c.log.Warn(name+": cut a torn tail left by a crash",
			"bytes", r.Cut, "lines", r.Lines, "dropped", r.Dropped)
	} else if r.Newline {
		c.log.Warn(name + ": the last line lacked only its newline: kept, newline added")
	}
}
