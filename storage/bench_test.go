package storage

// Benchmarks of the writers, each beside a baseline measured in the same run, so that
// the ratio stays meaningful on a busy machine:
//
//	go test -run '^$' -bench . -count 5 ./storage/
//
// "durable" runs use the writers' defaults: every write returns after an fsync, shared
// between concurrent writers by group commit. "nosync" runs set NoSync and measure the
// CPU cost alone. Parallel runs use benchWriters goroutines, as a crawl's fetch workers
// would.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// benchBodySize is the size of a benchmark response body, in bytes.
const benchBodySize = 30 << 10

// benchParallelism times GOMAXPROCS is the number of goroutines of a parallel run.
const benchParallelism = 8

// benchBody returns a 30 KiB HTML body that compresses about as well as real pages.
var benchBody = sync.OnceValue(func() []byte {
	words := []string{"crawler", "polite", "archive", "record", "digest", "payload",
		"robots", "sitemap", "frontier", "host", "delay", "the", "a", "of", "and", "to",
		"web", "page", "link", "index", "response", "request", "header", "body"}
	var b bytes.Buffer
	b.WriteString("<!doctype html><html lang=\"en\"><head><title>Benchmark page</title></head><body>\n")
	x := uint32(1)
	for i := 0; b.Len() < benchBodySize-64; i++ {
		fmt.Fprintf(&b, "<p id=\"p%d\">", i)
		for range 12 {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			b.WriteString(words[x%uint32(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "<a href=\"/item/%d?ref=%d\">item %d</a></p>\n", x%100000, i, i)
	}
	b.WriteString("</body></html>\n")
	for b.Len() < benchBodySize {
		b.WriteByte('\n')
	}
	return b.Bytes()[:benchBodySize]
})

// benchStamp writes n in hexadecimal over 16 bytes of body, so that each record has
// its own payload digest.
func benchStamp(body []byte, n uint64) {
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], n)
	hex.Encode(body[len(body)-17:], v[:])
}

// benchExchange returns an exchange of a 30 KiB page with its own copy of the body.
func benchExchange() *Exchange {
	return exchange("https://www.example.com/blog/2026/11/post.html", bytes.Clone(benchBody()), "")
}

// exchangeBytes is the number of input bytes an exchange hands to the writer.
func exchangeBytes(ex *Exchange) int64 {
	return int64(len(ex.Request) + len(ex.ResponseHeader) + len(ex.Body))
}

// BenchmarkWARC measures WriteExchange of 30 KiB responses beside a bare gzip (the
// writer's klauspost/compress/gzip at the writer's level) of the same bytes, one
// member for the request and one for the response, as the writer lays them out.
// MB/s counts the uncompressed input: request head, response head and body.
func BenchmarkWARC(b *testing.B) {
	for _, fsync := range []bool{false, true} {
		name := "gzip"
		if fsync {
			name = "gzip+fsync"
		}
		b.Run(name, func(b *testing.B) { benchGzip(b, fsync) })
	}
	for _, durable := range []bool{false, true} {
		mode := "nosync"
		if durable {
			mode = "durable"
		}
		for _, revisit := range []bool{false, true} {
			bodies := "distinct"
			if revisit {
				bodies = "identical"
			}
			b.Run(mode+"/"+bodies+"/serial", func(b *testing.B) {
				benchWARCSerial(b, !durable, revisit)
			})
			b.Run(mode+"/"+bodies+"/parallel", func(b *testing.B) {
				benchWARCParallel(b, !durable, revisit)
			})
		}
	}
}

// benchGzip compresses a 30 KiB exchange as the writer lays it out, one gzip member
// for the request and one for the response, and with fsync appends the members to a
// file and syncs it after every exchange, as a durable writer without group commit
// would.
func benchGzip(b *testing.B, fsync bool) {
	ex := benchExchange()
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "bench.warc.gz"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, DefaultGzipLevel)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(exchangeBytes(ex))
	var n uint64
	for b.Loop() {
		n++
		benchStamp(ex.Body, n)
		out.Reset()
		zw.Reset(&out)
		zw.Write(ex.Request) // writes to memory: cannot fail
		zw.Close()
		zw.Reset(&out)
		zw.Write(ex.ResponseHeader)
		zw.Write(ex.Body)
		zw.Close()
		if !fsync {
			continue
		}
		if _, err := f.Write(out.Bytes()); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// benchOpenWARC opens a writer in a new directory.
func benchOpenWARC(b *testing.B, noSync bool) *WARCWriter {
	b.Helper()
	w, err := OpenWARC(WARCOptions{Dir: b.TempDir(), Hostname: "bench-host", NoSync: noSync})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// benchWARCReport closes w and reports records and fsyncs per second, checking that
// revisit records were (or were not) written.
func benchWARCReport(b *testing.B, w *WARCWriter, revisit bool) {
	b.Helper()
	st := w.Stats()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if revisit && st.Revisits == 0 && b.N > 1 || !revisit && st.Revisits != 0 {
		b.Fatalf("%d responses, %d revisits: dedup path not as intended", st.Responses, st.Revisits)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "records/s")
	b.ReportMetric(float64(st.Syncs)/float64(b.N), "fsyncs/op")
}

func benchWARCSerial(b *testing.B, noSync, revisit bool) {
	ctx := context.Background()
	w := benchOpenWARC(b, noSync)
	ex := benchExchange()
	b.ReportAllocs()
	b.SetBytes(exchangeBytes(ex))
	var n uint64
	for b.Loop() {
		if !revisit {
			n++
			benchStamp(ex.Body, n)
		}
		if _, err := w.WriteExchange(ctx, ex); err != nil {
			b.Fatal(err)
		}
	}
	benchWARCReport(b, w, revisit)
}

func benchWARCParallel(b *testing.B, noSync, revisit bool) {
	ctx := context.Background()
	w := benchOpenWARC(b, noSync)
	var n atomic.Uint64
	b.ReportAllocs()
	b.SetBytes(exchangeBytes(benchExchange()))
	b.SetParallelism(benchParallelism)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ex := benchExchange()
		for pb.Next() {
			if !revisit {
				benchStamp(ex.Body, n.Add(1))
			}
			if _, err := w.WriteExchange(ctx, ex); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	benchWARCReport(b, w, revisit)
}

// benchPage returns a pages.jsonl entry as a crawl of text: false writes it.
func benchPage() *Page {
	return &Page{
		URL:           "https://www.example.com/blog/2026/11/post.html?id=7",
		FinalURL:      "https://www.example.com/blog/2026/11/post.html?id=7",
		Status:        200,
		ContentType:   "text/html; charset=utf-8",
		Length:        benchBodySize,
		FetchedAt:     time.Date(2026, 11, 22, 1, 2, 3, 456e6, time.UTC),
		PayloadDigest: "sha1:2WFJ6HYHOPSMDRMDFXQWLYRIEPHCAOSW",
		WARCFile:      "crawl-20261122010203-00001.warc.gz",
		WARCOffset:    123456789,
		WARCLength:    9876,
		Title:         "Notes from the field: crawling politely, part 7",
		Lang:          "en",
		Canonical:     "https://www.example.com/blog/2026/11/post.html",
		Links:         187,
		Depth:         3,
		FoundOn:       "https://www.example.com/blog/",
	}
}

// BenchmarkPages measures PagesWriter.Write beside its two unavoidable steps done by
// hand on an O_APPEND file: encoding the line and writing it ("write"), then also
// syncing the file after every line ("write+fsync"), which is what a durable writer
// without group commit would pay.
func BenchmarkPages(b *testing.B) {
	lines := func(b *testing.B) {
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	}
	for _, fsync := range []bool{false, true} {
		name := "write"
		if fsync {
			name = "write+fsync"
		}
		b.Run(name, func(b *testing.B) {
			f, err := os.OpenFile(filepath.Join(b.TempDir(), "pages.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			pg := benchPage()
			b.ReportAllocs()
			for b.Loop() {
				line, err := pg.MarshalJSON()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.Write(append(line, '\n')); err != nil {
					b.Fatal(err)
				}
				if fsync {
					if err := f.Sync(); err != nil {
						b.Fatal(err)
					}
				}
			}
			lines(b)
		})
	}
	open := func(b *testing.B, noSync bool) *PagesWriter {
		b.Helper()
		p, err := OpenPages(filepath.Join(b.TempDir(), "pages.jsonl"), PagesOptions{NoSync: noSync})
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	for _, durable := range []bool{false, true} {
		mode := "nosync"
		if durable {
			mode = "durable"
		}
		b.Run(mode+"/serial", func(b *testing.B) {
			ctx := context.Background()
			p := open(b, !durable)
			pg := benchPage()
			b.ReportAllocs()
			for b.Loop() {
				if err := p.Write(ctx, pg); err != nil {
					b.Fatal(err)
				}
			}
			if err := p.Close(); err != nil {
				b.Fatal(err)
			}
			lines(b)
		})
		b.Run(mode+"/parallel", func(b *testing.B) {
			ctx := context.Background()
			p := open(b, !durable)
			b.ReportAllocs()
			b.SetParallelism(benchParallelism)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				pg := benchPage()
				for pb.Next() {
					if err := p.Write(ctx, pg); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			if err := p.Close(); err != nil {
				b.Fatal(err)
			}
			lines(b)
		})
	}
}

// BenchmarkPageWrite measures what a crawler's worker does to make a page durable,
// from 64 goroutines (on 2 cores) on the real disk: "two-waits" writes the WARC records with
// WriteExchange (waiting for the WARC's group commit), then the pages.jsonl line with
// PagesWriter.Write (waiting for its own), as the engine did before; "group" writes the
// records with Append and the line with Group.Write, one wait for both. pages/s and
// the fsyncs per page of each are reported; the two run in the same process, so
// alternate them (-test.count) on a noisy machine.
func BenchmarkPageWrite(b *testing.B) {
	for _, mode := range []string{"two-waits", "group"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			dir := b.TempDir()
			w, err := OpenWARC(WARCOptions{Dir: filepath.Join(dir, "warc"), Hostname: "bench-host"})
			if err != nil {
				b.Fatal(err)
			}
			pages, err := OpenPages(filepath.Join(dir, "pages.jsonl"), PagesOptions{})
			if err != nil {
				b.Fatal(err)
			}
			skipped, err := OpenSkipped(filepath.Join(dir, "skipped.jsonl"), PagesOptions{})
			if err != nil {
				b.Fatal(err)
			}
			g := NewGroup(w, pages, skipped)
			var n atomic.Uint64
			b.SetParallelism(max(64/runtime.GOMAXPROCS(0), 1))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				ex, pg := benchExchange(), benchPage()
				for pb.Next() {
					benchStamp(ex.Body, n.Add(1))
					var loc Location
					var err error
					if mode == "group" {
						if loc, err = w.Append(ctx, ex); err == nil {
							pg.WARCFile, pg.WARCOffset, pg.WARCLength = loc.File, loc.Offset, loc.Length
							err = g.Write(ctx, pg)
						}
					} else if loc, err = w.WriteExchange(ctx, ex); err == nil {
						pg.WARCFile, pg.WARCOffset, pg.WARCLength = loc.File, loc.Offset, loc.Length
						err = pages.Write(ctx, pg)
					}
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			ps, gs, ws := pages.SyncStats(), g.SyncStats(), w.Stats()
			for _, err := range []error{g.Close(), skipped.Close(), pages.Close(), w.Close()} {
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
			b.ReportMetric(float64(ws.Syncs+ps.Syncs)/float64(b.N), "fsyncs/page")
			b.ReportMetric(float64(ws.Waits+ps.Waits+gs.Waits)/float64(b.N), "waits/page")
		})
	}
}
