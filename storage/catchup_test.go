package storage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// withETag is exchange(uri, body) answered with an ETag.
func withETag(uri string, body []byte, etag string) *Exchange {
	ex := exchange(uri, body, "")
	ex.ResponseHeader = bytes.Replace(ex.ResponseHeader, []byte("Server: test\r\n"),
		[]byte("Server: test\r\nETag: "+etag+"\r\nLast-Modified: Tue, 01 Dec 2026 10:00:00 GMT\r\n"), 1)
	return ex
}

// responsesByDigest counts the response records of every WARC file in dir by payload
// digest.
func responsesByDigest(t *testing.T, dir string) map[string]int {
	t.Helper()
	paths, err := WARCFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = IndexWARC(f, filepath.Base(p), func(line []byte) error {
			if bytes.Contains(line, []byte(`"mime":"warc/revisit"`)) {
				return nil
			}
			_, rest, _ := bytes.Cut(line, []byte(`"digest":"`))
			d, _, _ := bytes.Cut(rest, []byte(`"`))
			counts[string(d)]++
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return counts
}

// TestCatchUpAfterKill: the digest index takes a page's digest and capture in batches,
// so a kill loses those of the last pages whose records are durable. The next open
// catches up from the WARC files: the same payloads become revisits, not responses
// stored again, and their URIs' captures keep their validators.
func TestCatchUpAfterKill(t *testing.T) {
	ctx := context.Background()
	for _, kill := range []int{1, 7, 40} { // pages written before the kill
		t.Run(fmt.Sprint(kill), func(t *testing.T) {
			dir := t.TempDir()
			w := openTest(t, WARCOptions{Dir: dir, MaxFileSize: 16 << 10})
			for i := range kill {
				u := fmt.Sprintf("http://a.example/p/%d", i)
				if _, err := w.WriteExchange(ctx, withETag(u, noise(i, 3000), fmt.Sprintf(`"e%d"`, i))); err != nil {
					t.Fatal(err)
				}
			}
			killed := snapshot(t, dir) // what a kill -9 leaves: durable records, the index as last persisted
			w.Close()

			w2 := openTest(t, WARCOptions{Dir: killed, MaxFileSize: 16 << 10})
			defer w2.Close()
			for i := range kill {
				c, ok, err := w2.LastCapture(fmt.Sprintf("http://a.example/p/%d", i))
				if err != nil {
					t.Fatal(err)
				}
				if !ok || c.ETag != fmt.Sprintf(`"e%d"`, i) || c.LastModified == "" {
					t.Fatalf("capture of page %d after the kill: %+v, %v; want its validators", i, c, ok)
				}
				loc, err := w2.WriteExchange(ctx, withETag(fmt.Sprintf("http://b.example/p/%d", i), noise(i, 3000), `"x"`))
				if err != nil {
					t.Fatal(err)
				}
				if !loc.Revisit {
					t.Errorf("page %d's payload, archived before the kill, stored again in full", i)
				}
			}
			for d, n := range responsesByDigest(t, killed) {
				if n > 1 {
					t.Errorf("payload %s stored in %d response records", d, n)
				}
			}
		})
	}
}
