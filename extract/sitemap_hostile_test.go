package extract

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
)

// smBomb returns a gzip stream of head followed by n copies of chunk, built as
// concatenated gzip members (one compressed chunk repeated) so that a 100 MB bomb
// costs a few hundred kilobytes and milliseconds to make.
func smBomb(t testing.TB, head string, chunk []byte, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.Write(smGzip(t, []byte(head)))
	member := smGzip(t, chunk)
	for range n {
		buf.Write(member)
	}
	return buf.Bytes()
}

// smAllocs runs f and returns the bytes it allocated.
func smAllocs(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// smCountingReader counts the bytes read through it.
type smCountingReader struct {
	r io.Reader
	n int64
}

func (c *smCountingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

func TestSitemapGzipBomb(t *testing.T) {
	const mb = 1 << 20
	tests := []struct {
		name      string
		head      string
		chunk     []byte
		wantErr   bool
		maxAllocs uint64 // bytes
	}{
		// 100 MB of NULs: binary, refused at the first bytes.
		{name: "zeros", chunk: make([]byte, mb), wantErr: true, maxAllocs: 4 * mb},
		// A urlset then 100 MB of spaces: one endless text node, cut at 1 MiB.
		{name: "endless text node", head: "<urlset>", chunk: bytes.Repeat([]byte(" "), mb), wantErr: true, maxAllocs: 16 * mb},
		// 100 MB of blank lines: a text sitemap read to MaxBytes, holding nothing.
		{name: "blank lines", head: "https://example.com/a\n", chunk: bytes.Repeat([]byte("\n"), mb), maxAllocs: 4 * mb},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bomb := smBomb(t, tt.head, tt.chunk, 100)
			t.Logf("%d compressed bytes for %d MB", len(bomb), 100)
			var res *SitemapResult
			var err error
			allocs := smAllocs(func() {
				res, err = Sitemap(bytes.NewReader(bomb), "https://example.com/sitemap.xml.gz", SitemapOptions{})
			})
			if (err != nil) != tt.wantErr {
				t.Errorf("Sitemap: got error %v, want error: %v", err, tt.wantErr)
			}
			if allocs > tt.maxAllocs {
				t.Errorf("Sitemap allocated %d bytes, want at most %d", allocs, tt.maxAllocs)
			}
			if len(res.URLs) > 1 {
				t.Errorf("URLs: got %d, want at most 1", len(res.URLs))
			}
		})
	}
}

func TestSitemapURLBomb(t *testing.T) {
	// 100 MB of url entries, gzip-compressed: 50,000 kept, the rest counted up to
	// the 50 MiB read limit.
	entry := []byte("<url><loc>https://example.com/page</loc><priority>0.5</priority></url>\n")
	chunk := bytes.Repeat(entry, (1<<20)/len(entry))
	bomb := smBomb(t, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`, chunk, 100)
	gz, err := gzip.NewReader(bytes.NewReader(bomb))
	if err != nil {
		t.Fatal(err)
	}
	counted := &smCountingReader{r: gz}
	res, err := Sitemap(counted, "https://example.com/sitemap.xml", SitemapOptions{})
	if err != nil {
		t.Fatalf("Sitemap: %v", err)
	}
	if len(res.URLs) != DefaultSitemapMaxURLs {
		t.Errorf("URLs: got %d, want %d", len(res.URLs), DefaultSitemapMaxURLs)
	}
	if !res.Truncated {
		t.Error("Truncated: got false, want true")
	}
	if res.Skipped[SkipLimit] == 0 {
		t.Errorf("Skipped: got %v, want a limit count", res.Skipped)
	}
	if max := int64(DefaultSitemapMaxBytes + 64<<10); counted.n > max {
		t.Errorf("read %d uncompressed bytes, want at most %d", counted.n, max)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 128<<20 {
		t.Errorf("heap after parse: %d bytes, want under 128 MiB", ms.HeapAlloc)
	}
	runtime.KeepAlive(res)
}

func TestSitemapBillionLaughs(t *testing.T) {
	body, err := os.ReadFile("testdata/sitemap/billion-laughs.xml")
	if err != nil {
		t.Fatal(err)
	}
	var res *SitemapResult
	allocs := smAllocs(func() {
		res, err = Sitemap(bytes.NewReader(body), "https://example.com/sitemap.xml", SitemapOptions{})
	})
	if err != nil {
		t.Fatalf("Sitemap: %v", err)
	}
	if allocs > 1<<20 {
		t.Errorf("Sitemap allocated %d bytes, want at most 1 MiB", allocs)
	}
	// References are not expanded: they stay as they were written.
	want := []string{"https://example.com/&lol9;", "https://example.com/&ext;", "https://example.com/ok"}
	got := smLocs(res)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("URLs:\n\tgot %q\n\twant %q", got, want)
	}
	if res.Skipped[SkipBadLastMod] != 1 {
		t.Errorf("Skipped: got %v, want bad-lastmod: 1", res.Skipped)
	}
	_ = errors.New
}
