package storage

// The cost of the CDXJ index beside the WARC write it belongs to, in one run:
//
//	go test -run '^$' -bench 'BenchmarkIndexCost' -count 5 ./storage/
//
// "write-exchange" is WriteExchange of a 30 KiB page (nosync: CPU alone), index
// included; "index-line" is what the index adds to it: the SURT key, the line,
// and its queueing and writing to the open index. identify-payload is the
// choice of WARC-Identified-Payload-Type, also part of write-exchange, of a page
// declared text/html (kept: no sniff) and of one declaring no type (sniffed).

import (
	"bytes"
	"testing"
)

func BenchmarkIndexCost(b *testing.B) {
	b.Run("write-exchange", func(b *testing.B) { benchWARCSerial(b, true, false) })
	b.Run("index-line", func(b *testing.B) {
		ex := benchExchange()
		respHead, _, _ := httpHead(ex.ResponseHeader, true)
		loc := Location{PayloadDigest: payloadDigest(ex.Body)}
		x := newCDXJWriter(b.TempDir(), true)
		defer x.close()
		d := warcDate(t0)
		b.ReportAllocs()
		var end int64
		for b.Loop() {
			ix := &indexLine{entry: cdxjEntry{url: ex.TargetURI, date: d, digest: loc.PayloadDigest}}
			ix.entry.status, ix.entry.mime = httpStatusAndType(respHead)
			ix.entry.detected = "text/html"
			ix.finish(1000, 9000)
			end += 10000
			x.add("bench.warc.gz", end, ix.line("bench.warc.gz", end-10000))
			x.durable("bench.warc.gz", end)
		}
	})
	b.Run("identify-payload", func(b *testing.B) {
		ex := benchExchange() // declared text/html: kept, nothing sniffed
		b.ReportAllocs()
		for b.Loop() {
			if identifyPayload(ex.ResponseHeader, ex.Body) != "" {
				b.Fatal("declared text/html not kept")
			}
		}
	})
	b.Run("identify-payload-untyped", func(b *testing.B) {
		ex := benchExchange()
		ex.ResponseHeader = bytes.Replace(ex.ResponseHeader, []byte("Content-Type: text/html; charset=utf-8\r\n"), nil, 1)
		b.ReportAllocs()
		for b.Loop() {
			if identifyPayload(ex.ResponseHeader, ex.Body) != "text/html" {
				b.Fatal("not identified as HTML")
			}
		}
	})
}
