package storage

// Packaging speed, in MB/s of WARC packaged:
//
//	go test -run '^$' -bench 'BenchmarkPackWACZ' -benchtime 5x -count 3 ./storage/
//
// A 64 MiB crawl (256 pages of 256 KiB that do not compress, in 64 MiB files)
// is packaged to io.Discard (the CPU: SHA-256 and CRC-32 of every byte, the
// index merge) and to a file (the CPU and the writes), from the page cache.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkPackWACZ(b *testing.B) {
	dir := b.TempDir()
	w, err := OpenWARC(WARCOptions{Dir: filepath.Join(dir, "warc"), NoSync: true, MaxFileSize: 64 << 20})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 256 {
		ex := exchange(fmt.Sprintf("http://a.example/big/%d", i), noise(i, 256<<10), "")
		_, err := w.WriteExchange(context.Background(), ex)
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, p := range warcFiles(b, filepath.Join(dir, "warc")) {
		fi, _ := os.Stat(p)
		size += fi.Size()
	}
	b.Run("discard", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if _, err := PackWACZ(io.Discard, filepath.Join(dir, "warc"), "", WACZOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("file", func(b *testing.B) {
		out := filepath.Join(b.TempDir(), "crawl.wacz")
		b.SetBytes(size)
		for b.Loop() {
			if _, err := PackWACZFile(out, filepath.Join(dir, "warc"), "", WACZOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
