package crawl_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// Sizes of the farm of BenchmarkSecondCrawl.
const (
	benchHosts    = 100
	benchPerHost  = 200 // 20,000 pages
	benchPageSize = 30 << 10
)

// BenchmarkSecondCrawl measures what a second crawl of an unchanged 20,000-page
// farm stores and fetches beside the first, in two ways: recrawl in the same data
// directory (conditional GET from the first round's validators, identical-payload
// revisits for pages without validators), and a new crawl with dedup_from naming
// the first crawl's data directory. Pages are 30 KiB of words drawn from a
// 2,000-word vocabulary (they compress about as HTML does, unlike crawltest's
// repeated filler); half have an ETag, a quarter a Last-Modified, a quarter
// neither. It reports WARC bytes of each crawl, their ratio, the bytes by record
// type, and the requests and response bytes the farm served. Run it once:
//
//	go test -run '^$' -bench SecondCrawl -benchtime 1x -timeout 30m .
func BenchmarkSecondCrawl(b *testing.B) {
	farm, err := crawltest.Start(benchSites()...)
	if err != nil {
		b.Fatal(err)
	}
	defer farm.Close()
	pages := benchHosts * benchPerHost
	for b.Loop() {
		b.Run("dedup_from", func(b *testing.B) {
			first, second := b.TempDir(), b.TempDir()
			farm.Reset()
			cfg := benchConfig(farm, first)
			benchRun(b, cfg, nil, pages)
			r1 := farmFigures(farm)
			farm.Reset()
			cfg = benchConfig(farm, second)
			cfg.DedupFrom = []string{first}
			start := time.Now()
			benchRun(b, cfg, nil, pages)
			b.Logf("second crawl with dedup_from (import included): %s", time.Since(start).Round(time.Millisecond))
			benchReport(b, "dedup_from", warcBytes(b, first), warcBytes(b, second), r1, farmFigures(farm))
		})
		b.Run("recrawl", func(b *testing.B) {
			dir := b.TempDir()
			farm.Reset()
			cfg := benchConfig(farm, dir)
			cfg.Recrawl.Interval = config.Duration(time.Hour)
			benchRun(b, cfg, nil, pages)
			before := warcBytes(b, dir)
			r1 := farmFigures(farm)
			farm.Reset()
			// The second round: the crawler's clock two hours on, so that every page
			// is due (robots.txt is still cached: 24 hours).
			later := func() time.Time { return time.Now().Add(2 * time.Hour) }
			benchRun(b, cfg, later, 2*pages)
			benchReport(b, "recrawl", before, warcBytes(b, dir).minus(before), r1, farmFigures(farm))
		})
	}
}

// benchSites is the farm of BenchmarkSecondCrawl: benchHosts sites of benchPerHost
// pages, each linking to 10 pages of its site (a tree from "/" and random pages).
func benchSites() []crawltest.Site {
	rng := rand.New(rand.NewPCG(16, 16))
	vocab := make([]string, 2000)
	for i := range vocab {
		w := make([]byte, 3+rng.IntN(8))
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		vocab[i] = string(w)
	}
	lm := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	sites := make([]crawltest.Site, benchHosts)
	for h := range sites {
		host := fmt.Sprintf("site%05d.test", h)
		s := crawltest.Site{Host: host, Pages: map[string]*crawltest.Page{}}
		path := func(i int) string {
			if i == 0 {
				return "/"
			}
			return "/p/" + strconv.Itoa(i) + ".html"
		}
		for i := range benchPerHost {
			var links []string
			for c := 5*i + 1; c <= 5*i+5 && c < benchPerHost; c++ {
				links = append(links, path(c))
			}
			for range 5 {
				links = append(links, path(rng.IntN(benchPerHost)))
			}
			var body strings.Builder
			fmt.Fprintf(&body, "<!doctype html><html><head><title>%s%s</title></head><body>\n", host, path(i))
			for _, l := range links {
				fmt.Fprintf(&body, "<a href=\"%s\">%s</a>\n", l, l)
			}
			body.WriteString("<p>")
			for body.Len() < benchPageSize {
				body.WriteString(vocab[rng.IntN(len(vocab))])
				body.WriteByte(' ')
			}
			body.WriteString("</p></body></html>\n")
			p := &crawltest.Page{Body: body.String(), Links: links}
			switch i % 4 {
			case 0, 1:
				p.ETag = fmt.Sprintf(`"%d-%d"`, h, i)
			case 2:
				p.LastModified = lm
			}
			s.Pages[path(i)] = p
		}
		sites[h] = s
	}
	return sites
}

func benchConfig(farm *crawltest.Farm, dir string) config.Config {
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.Seeds = farm.Seeds()
	cfg.Workers = 32
	cfg.Politeness.MinDelay = config.Duration(time.Nanosecond) // no delay (see crawlbench's noDelay)
	cfg.Network.AllowPrivate = true
	cfg.Network.Resolve = farm.Resolve()
	return cfg
}

// benchRun runs a crawl of cfg (with the clock now, if not nil) until it ends or
// pages.jsonl holds lines lines, then stops it.
func benchRun(b *testing.B, cfg config.Config, now func() time.Time, lines int) {
	b.Helper()
	c, err := crawl.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	c.Now = now
	c.Stderr = io.Discard
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	for {
		select {
		case err := <-done:
			if err != nil {
				b.Fatalf("crawl: %v", err)
			}
			if n := countLines(b, filepath.Join(cfg.DataDir, "pages.jsonl")); n < lines {
				b.Fatalf("crawl ended with %d pages.jsonl lines, want %d", n, lines)
			}
			return
		case <-time.After(200 * time.Millisecond):
		}
		if countLines(b, filepath.Join(cfg.DataDir, "pages.jsonl")) >= lines {
			cancel()
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				b.Fatalf("crawl: %v", err)
			}
			return
		}
	}
}

func countLines(b *testing.B, path string) int {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		b.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}

// recordBytes are compressed WARC bytes by record type (and revisit profile).
type recordBytes map[string]int64

func (r recordBytes) total() int64 {
	var n int64
	for _, v := range r {
		n += v
	}
	return n
}

func (r recordBytes) minus(o recordBytes) recordBytes {
	out := recordBytes{}
	for k, v := range r {
		if d := v - o[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func (r recordBytes) String() string {
	var parts []string
	for _, k := range []string{"warcinfo", "request", "response", "revisit/identical-payload-digest",
		"revisit/server-not-modified", "metadata", "other"} {
		if r[k] != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, r[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// warcBytes sums the gzip members of the WARC files of dir by record type.
func warcBytes(b *testing.B, dir string) recordBytes {
	b.Helper()
	out := recordBytes{}
	files, _ := filepath.Glob(filepath.Join(dir, "warc", "*.warc.gz"))
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		cr := &countingReader{r: f}
		br := bufio.NewReaderSize(cr, 64<<10)
		for {
			start := cr.n - int64(br.Buffered())
			zr, err := gzip.NewReader(br)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatalf("%s: %v", p, err)
			}
			zr.Multistream(false)
			tp := textproto.NewReader(bufio.NewReader(zr))
			tp.ReadLine() // WARC/1.1
			h, err := tp.ReadMIMEHeader()
			if err != nil {
				b.Fatalf("%s: record header: %v", p, err)
			}
			io.Copy(io.Discard, tp.R)
			zr.Close()
			kind := h.Get("WARC-Type")
			if kind == "revisit" {
				kind += "/" + h.Get("WARC-Profile")[strings.LastIndex(h.Get("WARC-Profile"), "/")+1:]
			}
			switch kind {
			case "warcinfo", "request", "response", "metadata", "revisit/identical-payload-digest", "revisit/server-not-modified":
			default:
				kind = "other"
			}
			out[kind] += cr.n - int64(br.Buffered()) - start
		}
		f.Close()
	}
	return out
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// farmSide is what the farm served during one crawl.
type farmSide struct {
	requests, notModified int
	bodyBytes             int64
}

func farmFigures(farm *crawltest.Farm) farmSide {
	var f farmSide
	for _, r := range farm.Requests() {
		f.requests++
		if r.Status == 304 {
			f.notModified++
		}
		f.bodyBytes += int64(r.Bytes)
	}
	return f
}

func benchReport(b *testing.B, name string, first, second recordBytes, r1, r2 farmSide) {
	ratio := 100 * float64(second.total()) / float64(first.total())
	b.ReportMetric(ratio, "%bytes")
	b.ReportMetric(float64(r2.notModified), "304s")
	b.Logf("%s: first crawl %d WARC bytes (%s); second %d bytes (%s): %.2f%%", name,
		first.total(), first, second.total(), second, ratio)
	b.Logf("%s: farm served the first crawl %d requests, %d body bytes; the second %d requests (%d answered 304), %d body bytes (%.2f%%)",
		name, r1.requests, r1.bodyBytes, r2.requests, r2.notModified, r2.bodyBytes, 100*float64(r2.bodyBytes)/float64(r1.bodyBytes))
}
