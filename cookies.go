package crawl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/politecrawl/crawl/fetch"
)

// CookiesName is the file in the data directory that keeps the crawl's cookie jar
// across runs, in the Netscape cookies.txt format, readable by the operator alone.
// Each cookie goes only to the site (domain and path) that set it or that
// fetch.cookies_file gave it for.
const CookiesName = "cookies.txt"

// loadCookies fills the jar: the cookies kept by the last run, then those of
// fetch.cookies_file over them, so that a fresh export replaces a stale session.
func (c *Crawler) loadCookies() error {
	data, err := os.ReadFile(filepath.Join(c.cfg.DataDir, CookiesName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("crawl: %s: %w", CookiesName, err)
	default:
		kept, err := fetch.ParseCookiesTxt(data)
		if err != nil {
			// A damaged jar costs the sessions, not the crawl.
			c.log.Warn("cookie jar unreadable, starting without it", "path", CookiesName, "err", err)
		}
		c.jar.Add(kept)
	}
	if expired := c.jar.Add(c.startCookies); expired > 0 {
		c.log.Warn("cookies already expired, not sent", "file", c.cfg.Fetch.CookiesFile, "cookies", expired)
	}
	return nil
}

// saveCookies writes the jar to the data directory when it changed, replacing
// the file whole.
func (c *Crawler) saveCookies() error {
	if c.jar == nil || !c.jar.Changed() {
		return nil
	}
	path := filepath.Join(c.cfg.DataDir, CookiesName)
	tmp := path + ".tmp"
	data := fetch.AppendCookiesTxt(nil, c.jar.All())
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("crawl: %s: %w", CookiesName, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("crawl: %s: %w", CookiesName, err)
	}
	return nil
}
