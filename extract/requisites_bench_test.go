package extract_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/politecrawl/crawl/extract"
)

// BenchmarkRequisites measures HTMLRequisites on the benchmark page beside HTML's
// token scan of the same page (what a crawl without requisites pays), and
// CSSRequisites on a 64 KiB stylesheet:
//
//	go test -run '^$' -bench Requisites -count 5 ./extract/
func BenchmarkRequisites(b *testing.B) {
	page := benchPage()
	base, err := url.Parse(benchPageURL)
	if err != nil {
		b.Fatal(err)
	}
	header := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	b.Run("links-tokenscan", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			if _, err := extract.HTML(base, header, page, extract.HTMLOptions{TokenScan: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("html", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(page)))
		var r *extract.Requisites
		for b.Loop() {
			if r, err = extract.HTMLRequisites(base, header, page, extract.RequisiteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		if len(r.Found) == 0 {
			b.Fatal("no requisites found")
		}
	})
	var css strings.Builder
	for i := 0; css.Len() < 64<<10; i++ {
		css.WriteString(".c")
		css.WriteString(strings.Repeat("x", i%7))
		css.WriteString(" { color: #333; margin: 0 auto; background: url(../img/i")
		css.WriteString(strings.Repeat("y", i%11))
		css.WriteString(".png) no-repeat; font: 14px/1.4 sans-serif }\n/* a comment */\n")
	}
	sheet := []byte(css.String())
	b.Run("css", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(sheet)))
		var r *extract.Requisites
		for b.Loop() {
			if r, err = extract.CSSRequisites(base, nil, sheet, extract.RequisiteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		if len(r.Found) == 0 {
			b.Fatal("no requisites found")
		}
	})
}
