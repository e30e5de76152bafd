package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/storage"
)

// TestKillStoresNoBodyTwice crawls 60 pages that share 3 bodies, killing the crawl
// command with SIGKILL at three points and running it again each time: a body archived
// before a kill is written as a revisit after it, so every body has one response record
// but for the page in flight at each kill (one worker). The digest index takes digests
// in batches; before it caught up from the WARC files at start, every restart stored
// each body in full again.
func TestKillStoresNoBodyTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the crawl command four times")
	}
	const pages, bodies, kills = 60, 3, 3
	site := crawltest.Site{Host: "same.test", Pages: map[string]*crawltest.Page{"/": {}}}
	for i := range pages {
		p := fmt.Sprintf("/p%d.html", i)
		site.Pages["/"].Links = append(site.Pages["/"].Links, p)
		site.Pages[p] = &crawltest.Page{Body: fmt.Sprintf("<!doctype html><title>shared %d</title><p>%s</p>", i%bodies, strings.Repeat("body ", 200))}
	}
	farm, err := crawltest.Start(site)
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()
	dir := t.TempDir()
	args := farmCrawlArgs(t, farm, filepath.Join(dir, "data"), farm.Seeds(), 1, 20*time.Millisecond)
	for k := 1; k <= kills; k++ {
		killAfterRequests(t, farm, k*pages/(kills+1), args...)
	}
	last := crawlProcess(t, args...)
	if out, err := last.CombinedOutput(); err != nil || !strings.Contains(string(out), "complete") {
		t.Fatalf("last run: %v\n%s", err, out)
	}

	responses := map[string]int{} // payload digest → response records of pages
	paths, err := storage.WARCFiles(filepath.Join(dir, "data", "warc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = storage.IndexWARC(f, filepath.Base(p), func(line []byte) error {
			if !bytes.Contains(line, []byte(`"url":"http://same.test/p`)) || bytes.Contains(line, []byte(`"mime":"warc/revisit"`)) {
				return nil
			}
			_, rest, _ := bytes.Cut(line, []byte(`"digest":"`))
			d, _, _ := bytes.Cut(rest, []byte(`"`))
			responses[string(d)]++
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	extra := 0
	for _, n := range responses {
		extra += n - 1
	}
	if len(responses) != bodies || extra > kills {
		t.Errorf("%d bodies in %v response records: %d stored again, want at most %d (one page in flight at each kill)",
			len(responses), responses, extra, kills)
	}
	t.Logf("%d kills: response records per body %v", kills, responses)
}
