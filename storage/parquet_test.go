package storage

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestSetHost(t *testing.T) {
	s := func(v string) *string { return opt(v) }
	cases := []struct {
		host string
		want ccRow
	}{
		{"www.example.com", ccRow{URLHostName: "www.example.com", URLHostTLD: s("com"), URLHost2ndLastPart: s("example"), URLHost3rdLastPart: s("www"),
			URLHostRegistrySuffix: s("com"), URLHostRegisteredDomain: s("example.com"), URLHostPrivateSuffix: s("com"), URLHostPrivateDomain: s("example.com"),
			URLHostNameReversed: s("com.example.www")}},
		{"x.a.b.github.io", ccRow{URLHostName: "x.a.b.github.io", URLHostTLD: s("io"), URLHost2ndLastPart: s("github"), URLHost3rdLastPart: s("b"),
			URLHost4thLastPart: s("a"), URLHost5thLastPart: s("x"),
			URLHostRegistrySuffix: s("io"), URLHostRegisteredDomain: s("github.io"), URLHostPrivateSuffix: s("github.io"), URLHostPrivateDomain: s("b.github.io"),
			URLHostNameReversed: s("io.github.b.a.x")}},
		{"www.example.co.uk", ccRow{URLHostName: "www.example.co.uk", URLHostTLD: s("uk"), URLHost2ndLastPart: s("co"), URLHost3rdLastPart: s("example"),
			URLHost4thLastPart:    s("www"),
			URLHostRegistrySuffix: s("co.uk"), URLHostRegisteredDomain: s("example.co.uk"), URLHostPrivateSuffix: s("co.uk"), URLHostPrivateDomain: s("example.co.uk"),
			URLHostNameReversed: s("uk.co.example.www")}},
		{"127.0.0.1", ccRow{URLHostName: "127.0.0.1"}},
		{"co.uk", ccRow{URLHostName: "co.uk", URLHostTLD: s("uk"), URLHost2ndLastPart: s("co"), URLHostNameReversed: s("uk.co")}},
		{"site1.test", ccRow{URLHostName: "site1.test", URLHostTLD: s("test"), URLHost2ndLastPart: s("site1"),
			URLHostRegistrySuffix: s("test"), URLHostRegisteredDomain: s("site1.test"), URLHostPrivateSuffix: s("test"), URLHostPrivateDomain: s("site1.test"),
			URLHostNameReversed: s("test.site1")}},
	}
	for _, c := range cases {
		var got ccRow
		got.setHost(c.host)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("setHost(%q):\n\tgot  %s\n\twant %s", c.host, rowString(got), rowString(c.want))
		}
	}
}

// rowString shows a row's set columns.
func rowString(r ccRow) string {
	var b strings.Builder
	v := reflect.ValueOf(r)
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				continue
			}
			f = f.Elem()
		}
		if f.IsZero() {
			continue
		}
		b.WriteString(v.Type().Field(i).Name + "=" + strings.TrimSpace(f.String()) + " ")
	}
	return b.String()
}

// readParquetDir reads every row of the Parquet index under dir, by subset.
func readParquetDir(t *testing.T, dir string) map[string][]ccRow {
	t.Helper()
	got := map[string][]ccRow{}
	paths, _ := filepath.Glob(filepath.Join(dir, "crawl=*", "subset=*", "*"+ParquetSuffix))
	for _, p := range paths {
		rows, err := parquet.ReadFile[ccRow](p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		sub := strings.TrimPrefix(filepath.Base(filepath.Dir(p)), "subset=")
		got[sub] = append(got[sub], rows...)
	}
	for _, rows := range got {
		sort.Slice(rows, func(i, j int) bool { return rows[i].URL < rows[j].URL })
	}
	return got
}

// TestParquetIndex writes a crawl's kinds of capture, reads its Parquet index
// back: a row per response and revisit record in its subset, with the columns
// the exchange gives, whose (warc_filename, warc_record_offset,
// warc_record_length) reads back the record of its url. A rebuild from the WARC
// (and WET) files writes the same rows, and OpenWARC writes the index of a WARC
// file that has none.
func TestParquetIndex(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	warcDir := filepath.Join(data, "warc")
	index := filepath.Join(data, "cc-index")
	opts := WARCOptions{Dir: warcDir, WET: true, Parquet: index, CrawlName: "TEST-1", NoSync: true}
	w := openTest(t, opts)
	status := func(ex *Exchange, head string) *Exchange {
		ex.ResponseHeader = []byte(head)
		return ex
	}
	page := exchange("http://www.example.com/a?q=1", []byte("<p>a</p>"), "")
	page.Conversion = &Conversion{Text: "a", Languages: []string{"eng", "fra"}}
	page.Metadata = &Metadata{TargetURI: page.TargetURI, Robots: &RobotsDecision{URL: "http://www.example.com/robots.txt",
		Rule: "allow: /a", Allowed: true, ContentSignal: "ai-train=no"}, OptOut: "tdmrep: reserved"}
	page.Page = &Page{URL: page.TargetURI, SimHash: "0123456789abcdef"}
	robots := exchange("http://www.example.com/robots.txt", []byte("User-agent: *\n"), "")
	robots.Kind = "robots"
	moved := status(exchange("http://www.example.com:8080/old", nil, ""), "HTTP/1.1 301 Moved\r\nLocation: /new\r\nContent-Length: 0\r\n\r\n")
	missing := status(exchange("http://b.example.org/gone", []byte("no"), ""), "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\n")
	again := exchange("http://b.example.org/copy", []byte("<p>a</p>"), "") // the page's payload: a revisit
	big := exchange("http://b.example.org/big", []byte(strings.Repeat("x", 100)), "")
	big.Truncated = true
	for _, ex := range []*Exchange{page, robots, moved, missing, again, big} {
		if _, err := w.WriteExchange(ctx, ex); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readParquetDir(t, index)
	s := func(v string) *string { return opt(v) }
	check := func(sub, url string, want func(r *ccRow) bool) {
		t.Helper()
		for _, r := range got[sub] {
			if r.URL == url {
				if !want(&r) {
					t.Errorf("%s row of %s: %s", sub, url, rowString(r))
				}
				rec := readAt(t, data, r.WARCFilename, int64(r.WARCRecordOffset), int64(r.WARCRecordLength))
				if rec.get("WARC-Target-URI") != url {
					t.Errorf("%s: record at %s:%d is of %s", url, r.WARCFilename, r.WARCRecordOffset, rec.get("WARC-Target-URI"))
				}
				return
			}
		}
		t.Errorf("no %s row for %s in %v", sub, url, got[sub])
	}
	eq := func(a, b *string) bool { return reflect.DeepEqual(a, b) }
	check("warc", page.TargetURI, func(r *ccRow) bool {
		return r.URLSurtkey == "com,example)/a?q=1" && r.URLProtocol == "http" && r.URLPath == "/a" && eq(r.URLQuery, s("q=1")) &&
			r.URLPort == nil && r.FetchStatus == 200 && eq(r.ContentMimeType, s("text/html")) && eq(r.ContentCharset, s("UTF-8")) &&
			eq(r.ContentMimeDetected, s("text/html")) && eq(r.ContentLanguages, s("eng,fra")) && r.ContentTruncated == nil &&
			strings.HasPrefix(r.WARCFilename, "warc/crawl-") && r.WARCSegment == "20261122010203" && r.WARCRecordType == "response" &&
			eq(r.RobotsRule, s("allow: /a")) && eq(r.ContentSignal, s("ai-train=no")) && eq(r.OptOut, s("tdmrep: reserved")) && eq(r.SimHash, s("0123456789abcdef")) &&
			r.ContentDigest != nil && !strings.HasPrefix(*r.ContentDigest, "sha1:") && r.FetchTime.Equal(t0)
	})
	check("robotstxt", robots.TargetURI, func(r *ccRow) bool { return r.FetchStatus == 200 })
	check("crawldiagnostics", moved.TargetURI, func(r *ccRow) bool {
		return r.FetchStatus == 301 && eq(r.FetchRedirect, s("http://www.example.com:8080/new")) && r.URLPort != nil && *r.URLPort == 8080
	})
	check("crawldiagnostics", missing.TargetURI, func(r *ccRow) bool { return r.FetchStatus == 404 && eq(r.ContentMimeType, s("text/plain")) })
	check("warc", again.TargetURI, func(r *ccRow) bool { return r.WARCRecordType == "revisit" && r.ContentMimeDetected == nil })
	check("warc", big.TargetURI, func(r *ccRow) bool { return eq(r.ContentTruncated, s("length")) })
	if n := len(got["warc"]) + len(got["robotstxt"]) + len(got["crawldiagnostics"]); n != 6 {
		t.Errorf("%d rows, want 6", n)
	}

	// A rebuild from the files writes the same rows.
	rebuilt := filepath.Join(data, "rebuilt")
	if err := RebuildParquet(warcDir, rebuilt, "TEST-1", nil); err != nil {
		t.Fatal(err)
	}
	if again := readParquetDir(t, rebuilt); !reflect.DeepEqual(again, got) {
		t.Errorf("rebuilt rows differ:\n\tgot  %v\n\twant %v", again, got)
	}

	// A WARC file without its index (a crash before it closed) has it written at open.
	if err := os.RemoveAll(index); err != nil {
		t.Fatal(err)
	}
	w = openTest(t, opts)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if again := readParquetDir(t, index); !reflect.DeepEqual(again, got) {
		t.Errorf("rows written at open differ:\n\tgot  %v\n\twant %v", again, got)
	}
}

// TestParquetMaxFileSize: offsets are 32 bits in Common Crawl's schema.
func TestParquetMaxFileSize(t *testing.T) {
	_, err := OpenWARC(WARCOptions{Dir: t.TempDir(), Parquet: t.TempDir(), MaxFileSize: 4 << 30})
	if err == nil {
		t.Fatal("OpenWARC with 4 GiB files and a Parquet index: no error")
	}
}
