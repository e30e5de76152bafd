package extract

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzSitemap checks that Sitemap never panics, always returns a result within its
// limits, and keeps only entries its scope rules allow.
func FuzzSitemap(f *testing.F) {
	const sitemapURL = "https://example.com/maps/sitemap.xml"
	inputs, _ := filepath.Glob(filepath.Join("testdata", "sitemap", "*"))
	for _, in := range inputs {
		b, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) < 8192 {
			f.Add(b)
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`<urlset><url><loc>https://example.com/maps/a</loc><priority>0.7</priority></url></urlset>`))
	zw.Close()
	f.Add(gz.Bytes())
	f.Add([]byte("https://example.com/maps/x\r\nhttps://other.example/y\n\x00"))
	f.Add([]byte(`<?xml version="1.0"?><rss><channel><item><link>rel/page</link><pubDate>Mon, 02 Jan 2006 15:04:05 MST</pubDate></item></channel></rss>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		opts := SitemapOptions{MaxURLs: 50, MaxBytes: 1 << 16}
		res, err := Sitemap(bytes.NewReader(body), sitemapURL, opts)
		if res == nil {
			t.Fatalf("Sitemap returned a nil result (err %v)", err)
		}
		if res.Skipped == nil {
			t.Fatal("Skipped is nil")
		}
		if len(res.URLs)+len(res.Sitemaps) > opts.MaxURLs {
			t.Fatalf("%d URLs and %d sitemaps kept, limit %d", len(res.URLs), len(res.Sitemaps), opts.MaxURLs)
		}
		for _, u := range res.URLs {
			if !SitemapCovers(sitemapURL, u.Loc) {
				t.Fatalf("kept %q, which %s does not cover", u.Loc, sitemapURL)
			}
			if u.Priority != -1 && (u.Priority < 0 || u.Priority > 1) {
				t.Fatalf("priority %v out of range", u.Priority)
			}
			if !u.LastMod.IsZero() && u.LastMod.Location() != time.UTC {
				t.Fatalf("lastmod %v not in UTC", u.LastMod)
			}
		}
	})
}
