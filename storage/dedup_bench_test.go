package storage

import (
	"context"
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkDedupLookup measures what deduplication costs a page beside its WARC
// write, in the same run: the payload-digest lookup (a digest found, and one
// not found) and the last-capture lookup a conditional GET starts with, in a
// digest index holding 20,000 digests and captures (a crawl of 20,000 pages,
// or one imported with ImportDedup); and WriteExchange of a 30 KiB page
// (distinct bodies, no fsync), which includes one digest lookup.
//
//	go test -run '^$' -bench DedupLookup -count 5 ./storage/
func BenchmarkDedupLookup(b *testing.B) {
	const entries = 20000
	w := benchOpenWARC(b, true)
	err := w.db.Update(func(tx *bolt.Tx) error {
		db, cb := tx.Bucket(bucketDigests), tx.Bucket(bucketCaptures)
		for i := range entries {
			uri := fmt.Sprintf("http://site%05d.test/p/%d.html", i/200, i%200)
			if _, err := putDigest(db, benchDigest(i), digestRef{ID: newRecordID(), Date: "2026-11-24T01:02:03Z", URI: uri}); err != nil {
				return err
			}
			c := Capture{RecordID: newRecordID(), Date: "2026-11-24T01:02:03Z", URI: uri, Fetched: t0, ETag: `"e1"`}
			if _, err := putCapture(cb, []byte(uri), c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("digest/hit", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, ok, err := w.lookup(benchDigest(i % entries)); err != nil || !ok {
				b.Fatal(ok, err)
			}
			i++
		}
	})
	b.Run("digest/miss", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, ok, err := w.lookup(benchDigest(entries + i)); err != nil || ok {
				b.Fatal(ok, err)
			}
			i++
		}
	})
	b.Run("capture/hit", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			uri := fmt.Sprintf("http://site%05d.test/p/%d.html", (i%entries)/200, i%200)
			if _, ok, err := w.LastCapture(uri); err != nil || !ok {
				b.Fatal(ok, err)
			}
			i++
		}
	})
	b.Run("write/nosync/distinct", func(b *testing.B) {
		ctx := context.Background()
		ex := benchExchange()
		b.ReportAllocs()
		b.SetBytes(exchangeBytes(ex))
		var n uint64
		for b.Loop() {
			n++
			benchStamp(ex.Body, n)
			if _, err := w.WriteExchange(ctx, ex); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchDigest is the i-th digest of the benchmark, shaped as payloadDigest's.
func benchDigest(i int) string {
	return fmt.Sprintf("sha1:%032X", i)
}
