package capture

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadLogged sums a pages.jsonl of 200,000 lines (about 100 MB): a third
// pages with a requisites object, the rest image requisites, as a crawl of pages
// of two images each writes them.
func BenchmarkReadLogged(b *testing.B) {
	dir := b.TempDir()
	f, err := os.Create(filepath.Join(dir, "pages.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	const common = `"status":200,"length":30000,"fetched_at":"2026-11-28T03:00:00.000Z","payload_digest":"sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567","warc_file":"crawl-20261128030000-00001.warc.gz","warc_length":1000,"title":"A page title of some length","lang":"en","canonical":"","noindex":false,"nofollow":false,"depth":3,"found_on":"http://h.test/x"`
	for i := range 200_000 {
		u := fmt.Sprintf("http://h%d.test/p%d", i%100, i)
		if i%3 == 0 {
			fmt.Fprintf(w, `{"url":%q,"final_url":%q,%s,"content_type":"text/html","warc_offset":%d,"links":50,"requisites":{"found":12,"queued":11,"excluded":1}}`+"\n", u, u, common, i*1000)
		} else {
			u += ".png"
			fmt.Fprintf(w, `{"url":%q,"final_url":%q,%s,"content_type":"image/png","warc_offset":%d,"links":0,"requisite":"image"}`+"\n", u, u, common, i*1000)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		lg, err := ReadLogged(dir)
		if err != nil || lg.Pages+lg.Requisites != 200_000 {
			b.Fatalf("ReadLogged: %+v, %v", lg, err)
		}
	}
}
