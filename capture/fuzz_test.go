package capture_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/politecrawl/crawl/capture"
)

// FuzzReadWARC reads arbitrary bytes as a WARC file: it never panics, and the report
// adds up (each page's counts sum to its found, the pages' to the totals).
func FuzzReadWARC(f *testing.F) {
	dir := crawlDir(f, nil, []fetched{
		{url: "http://a.test/", status: "200 OK", ctype: "text/html", body: page1, gzip: true},
		{url: "http://a.test/site.css", status: "200 OK", ctype: "text/css", requisite: "stylesheet", body: `@import "deep.css";`},
	}, nil)
	files, _ := filepath.Glob(filepath.Join(dir, "warc", "*.warc.gz"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.test/\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: 70\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<img src=x.png><link rel=stylesheet href=s.css>\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := capture.New(capture.Options{})
		if err := r.ReadWARC(bytes.NewReader(b)); err != nil {
			return
		}
		rep := r.Report()
		var sum capture.Counts
		for _, p := range rep.PageReports {
			c := p.Counts
			if c.Archived+c.Blocked+c.Failed+c.Limit+c.Excluded+c.Missing != c.Found {
				t.Fatalf("%s: counts %+v do not add up", p.URL, c)
			}
			sum.Found += c.Found
			sum.Missing += c.Missing
		}
		if sum.Found != rep.Totals.Found || sum.Missing != rep.Totals.Missing {
			t.Fatalf("pages sum to %+v, totals %+v", sum, rep.Totals)
		}
	})
}
