package extract

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// smLocs returns the locations of a result's URLs.
func smLocs(res *SitemapResult) []string {
	var locs []string
	for _, u := range res.URLs {
		locs = append(locs, u.Loc)
	}
	return locs
}

// smGzip compresses b.
func smGzip(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSitemapFiles(t *testing.T) {
	tests := []struct {
		file     string
		format   string
		locs     []string
		sitemaps []string
		skipped  map[string]int
	}{
		{
			file:   "urlset.xml",
			format: "urlset",
			locs: []string{
				"https://example.com/",
				"https://example.com/a?x=1&y=2", // entity decoded, white space trimmed
				"https://example.com/b",         // CDATA
				"https://example.com/c",
				"https://example.com/z?q=a&b", // bare & tolerated
			},
			skipped: map[string]int{
				SkipBadChangeFreq: 1, SkipBadLastMod: 1, SkipBadPriority: 1,
				SkipCrossHost: 2, // other.example.com, and http: on an https sitemap
				SkipMalformed: 2, // relative loc, missing loc
				SkipScheme:    1,
			},
		},
		{
			file:     "index.xml",
			format:   "sitemapindex",
			sitemaps: []string{"https://example.com/sitemap-1.xml.gz", "https://example.com/blog/sitemap-2.xml"},
			skipped:  map[string]int{SkipCrossHost: 1},
		},
		{
			file:    "urls.txt",
			format:  "text",
			locs:    []string{"https://example.com/one", "https://example.com/two", "https://example.com/three"},
			skipped: map[string]int{SkipMalformed: 1},
		},
		{
			file:    "rss.xml",
			format:  "rss",
			locs:    []string{"https://example.com/posts/one", "https://example.com/posts/two", "https://example.com/posts/three"},
			skipped: map[string]int{SkipBadLastMod: 1, SkipMalformed: 1},
		},
		{
			file:    "rdf.xml",
			format:  "rss",
			locs:    []string{"https://example.com/n/1"},
			skipped: map[string]int{},
		},
		{
			file:    "atom.xml",
			format:  "atom",
			locs:    []string{"https://example.com/entries/a", "https://example.com/entries/b"},
			skipped: map[string]int{SkipMalformed: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body, err := os.ReadFile("testdata/sitemap/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			// Plain, gzip and gzip inside gzip read the same.
			for _, in := range [][]byte{body, smGzip(t, body), smGzip(t, smGzip(t, body))} {
				res, err := Sitemap(bytes.NewReader(in), "https://example.com/"+tt.file, SitemapOptions{})
				if err != nil {
					t.Fatalf("Sitemap(%s): %v", tt.file, err)
				}
				if res.Format != tt.format {
					t.Errorf("Format:\n\tgot %q\n\twant %q", res.Format, tt.format)
				}
				if got := smLocs(res); !slices.Equal(got, tt.locs) {
					t.Errorf("URLs:\n\tgot %q\n\twant %q", got, tt.locs)
				}
				if !slices.Equal(res.Sitemaps, tt.sitemaps) {
					t.Errorf("Sitemaps:\n\tgot %q\n\twant %q", res.Sitemaps, tt.sitemaps)
				}
				if !maps.Equal(res.Skipped, tt.skipped) {
					t.Errorf("Skipped:\n\tgot %v\n\twant %v", res.Skipped, tt.skipped)
				}
				if res.Truncated {
					t.Error("Truncated: got true, want false")
				}
			}
		})
	}
}

func TestSitemapFields(t *testing.T) {
	body, err := os.ReadFile("testdata/sitemap/urlset.xml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Sitemap(bytes.NewReader(body), "https://example.com/sitemap.xml", SitemapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []SitemapURL{
		{Loc: "https://example.com/", LastMod: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), ChangeFreq: "daily", Priority: 1},
		{Loc: "https://example.com/a?x=1&y=2", LastMod: time.Date(2024, 3, 2, 9, 30, 0, 0, time.UTC), Priority: -1},
		{Loc: "https://example.com/b", LastMod: time.Date(2024, 3, 3, 10, 30, 0, 123e6, time.UTC), Priority: -1},
		{Loc: "https://example.com/c", Priority: -1},
		{Loc: "https://example.com/z?q=a&b", Priority: -1},
	}
	if !slices.Equal(res.URLs, want) {
		t.Errorf("URLs:\n\tgot  %+v\n\twant %+v", res.URLs, want)
	}
}

func TestSitemapFeedDates(t *testing.T) {
	tests := []struct {
		file string
		want []time.Time
	}{
		{"rss.xml", []time.Time{
			time.Date(2024, 3, 5, 8, 0, 0, 0, time.UTC),
			time.Date(2024, 3, 6, 9, 15, 0, 0, time.UTC),
			{},
		}},
		{"rdf.xml", []time.Time{time.Date(2024, 2, 1, 12, 0, 0, 0, time.UTC)}},
		// updated beats published; published stands in when there is no updated.
		{"atom.xml", []time.Time{time.Date(2024, 3, 6, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC)}},
	}
	for _, tt := range tests {
		body, err := os.ReadFile("testdata/sitemap/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Sitemap(bytes.NewReader(body), "https://example.com/feed", SitemapOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []time.Time
		for _, u := range res.URLs {
			got = append(got, u.LastMod)
		}
		if !slices.EqualFunc(got, tt.want, time.Time.Equal) {
			t.Errorf("%s LastMod:\n\tgot %v\n\twant %v", tt.file, got, tt.want)
		}
	}
}

// smURLSet returns a urlset listing locs.
func smURLSet(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, l := range locs {
		fmt.Fprintf(&b, "<url><loc>%s</loc></url>\n", l)
	}
	b.WriteString("</urlset>")
	return b.String()
}

func TestSitemapRules(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", smMaxLoc)
	tests := []struct {
		name    string
		body    string
		url     string
		opts    SitemapOptions
		locs    []string
		skipped map[string]int
		trunc   bool
	}{
		{
			name:    "directory rule",
			body:    smURLSet("https://example.com/catalog/a", "https://example.com/catalog/", "https://example.com/images/b", "https://example.com/catalogue"),
			url:     "https://example.com/catalog/sitemap.xml",
			locs:    []string{"https://example.com/catalog/a", "https://example.com/catalog/"},
			skipped: map[string]int{SkipCrossPath: 2},
		},
		{
			name:    "robots.txt widens to its whole site",
			body:    smURLSet("https://example.com/catalog/a", "https://example.com/images/b", "https://www.example.com/c"),
			url:     "https://example.com/catalog/sitemap.xml",
			opts:    SitemapOptions{RobotsURL: "https://example.com/robots.txt"},
			locs:    []string{"https://example.com/catalog/a", "https://example.com/images/b"},
			skipped: map[string]int{SkipCrossHost: 1},
		},
		{
			name:    "robots.txt on another host cross-submits",
			body:    smURLSet("https://example.com/a", "https://sitemaps.example.net/b"),
			url:     "https://sitemaps.example.net/sitemap.xml",
			opts:    SitemapOptions{RobotsURL: "https://example.com/robots.txt"},
			locs:    []string{"https://example.com/a", "https://sitemaps.example.net/b"},
			skipped: map[string]int{},
		},
		{
			name:    "any host",
			body:    smURLSet("https://example.com/a", "http://elsewhere.example.org/b", "mailto:x@example.com"),
			url:     "https://example.com/catalog/sitemap.xml",
			opts:    SitemapOptions{AnyHost: true},
			locs:    []string{"https://example.com/a", "http://elsewhere.example.org/b"},
			skipped: map[string]int{SkipScheme: 1},
		},
		{
			name:    "default port is no other host",
			body:    smURLSet("https://EXAMPLE.com:443/a", "https://example.com:8443/b"),
			url:     "https://example.com/sitemap.xml",
			locs:    []string{"https://EXAMPLE.com:443/a"},
			skipped: map[string]int{SkipCrossHost: 1},
		},
		{
			name:    "limit counts what it drops",
			body:    smURLSet("https://example.com/1", "https://example.com/2", "https://example.com/3", "https://example.com/4"),
			url:     "https://example.com/sitemap.xml",
			opts:    SitemapOptions{MaxURLs: 2},
			locs:    []string{"https://example.com/1", "https://example.com/2"},
			skipped: map[string]int{SkipLimit: 2},
		},
		{
			name:    "too long",
			body:    smURLSet(long, "https://example.com/ok"),
			url:     "https://example.com/sitemap.xml",
			locs:    []string{"https://example.com/ok"},
			skipped: map[string]int{SkipTooLong: 1},
		},
		{
			name:    "max bytes truncates",
			body:    smURLSet("https://example.com/1", "https://example.com/2", "https://example.com/3"),
			url:     "https://example.com/sitemap.xml",
			opts:    SitemapOptions{MaxBytes: 180},
			locs:    []string{"https://example.com/1"},
			skipped: map[string]int{},
			trunc:   true,
		},
		{
			name:    "text limit and long line",
			body:    "https://example.com/1\n" + strings.Repeat("x", 40<<10) + "\nhttps://example.com/2\nhttps://example.com/3\n",
			url:     "https://example.com/urls.txt",
			opts:    SitemapOptions{MaxURLs: 2},
			locs:    []string{"https://example.com/1", "https://example.com/2"},
			skipped: map[string]int{SkipTooLong: 1, SkipLimit: 1},
		},
		{
			name:    "latin-1 declared",
			body:    "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>https://example.com/caf\xe9</loc></url></urlset>",
			url:     "https://example.com/sitemap.xml",
			locs:    []string{"https://example.com/café"},
			skipped: map[string]int{},
		},
		{
			name:    "utf-16 declared but utf-8 sent",
			body:    `<?xml version="1.0" encoding="UTF-16"?><urlset><url><loc>https://example.com/a</loc></url></urlset>`,
			url:     "https://example.com/sitemap.xml",
			locs:    []string{"https://example.com/a"},
			skipped: map[string]int{},
		},
		{
			name:    "nested loc of an extension is not the page",
			body:    `<urlset><url><image:image><image:loc>https://example.com/i.png</image:loc></image:image></url></urlset>`,
			url:     "https://example.com/sitemap.xml",
			skipped: map[string]int{SkipMalformed: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Sitemap(strings.NewReader(tt.body), tt.url, tt.opts)
			if err != nil {
				t.Fatalf("Sitemap: %v", err)
			}
			if got := smLocs(res); !slices.Equal(got, tt.locs) {
				t.Errorf("URLs:\n\tgot %q\n\twant %q", got, tt.locs)
			}
			if !maps.Equal(res.Skipped, tt.skipped) {
				t.Errorf("Skipped:\n\tgot %v\n\twant %v", res.Skipped, tt.skipped)
			}
			if res.Truncated != tt.trunc {
				t.Errorf("Truncated: got %v, want %v", res.Truncated, tt.trunc)
			}
		})
	}
}

func TestSitemapIndexDepth(t *testing.T) {
	body := `<sitemapindex><sitemap><loc>https://example.com/a.xml</loc></sitemap><sitemap><loc>https://example.com/b.xml</loc></sitemap></sitemapindex>`
	for depth := 0; depth <= MaxSitemapDepth; depth++ {
		res, err := Sitemap(strings.NewReader(body), "https://example.com/index.xml", SitemapOptions{Depth: depth})
		if err != nil {
			t.Fatal(err)
		}
		if depth < MaxSitemapDepth {
			if len(res.Sitemaps) != 2 || res.Skipped[SkipDepth] != 0 {
				t.Errorf("depth %d: got %q %v, want both children", depth, res.Sitemaps, res.Skipped)
			}
		} else if len(res.Sitemaps) != 0 || res.Skipped[SkipDepth] != 2 {
			t.Errorf("depth %d: got %q %v, want none, depth: 2", depth, res.Sitemaps, res.Skipped)
		}
	}
}

func TestSitemapErrors(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		notSM    bool // errors.Is(err, ErrNotSitemap)
		wantLocs int
	}{
		{name: "html page", body: "<!DOCTYPE html><html><body>Not found</body></html>", notSM: true},
		{name: "empty", body: "", notSM: true},
		{name: "blank", body: " \n\t ", notSM: true},
		{name: "binary", body: "\x00\x01\x02garbage", notSM: true},
		{name: "comment only", body: "<!-- nothing -->", notSM: true},
		{name: "truncated keeps what came before", body: smURLSet("https://example.com/1", "https://example.com/2")[:150], wantLocs: 1},
		{name: "bad gzip", body: "\x1f\x8b\x08\x00garbage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Sitemap(strings.NewReader(tt.body), "https://example.com/sitemap.xml", SitemapOptions{})
			if err == nil {
				t.Fatal("Sitemap: got nil error")
			}
			if res == nil {
				t.Fatal("Sitemap: got nil result")
			}
			if got := errors.Is(err, ErrNotSitemap); got != tt.notSM {
				t.Errorf("errors.Is(%v, ErrNotSitemap) = %v, want %v", err, got, tt.notSM)
			}
			if !strings.HasPrefix(err.Error(), "extract: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if len(res.URLs) != tt.wantLocs {
				t.Errorf("URLs: got %d, want %d", len(res.URLs), tt.wantLocs)
			}
		})
	}
}

// smErrReader returns its data, then err.
type smErrReader struct {
	data []byte
	err  error
}

func (r *smErrReader) Read(b []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(b, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestSitemapReadError(t *testing.T) {
	boom := errors.New("connection reset")
	body := smURLSet("https://example.com/1", "https://example.com/2")
	r := &smErrReader{data: []byte(body[:strings.Index(body, "<url><loc>https://example.com/2")]), err: boom}
	res, err := Sitemap(r, "https://example.com/sitemap.xml", SitemapOptions{})
	if !errors.Is(err, boom) {
		t.Fatalf("Sitemap: got %v, want it to wrap %v", err, boom)
	}
	if got := smLocs(res); !slices.Equal(got, []string{"https://example.com/1"}) {
		t.Errorf("URLs: got %q, want the first", got)
	}
	var _ io.Reader = r
}

func TestSitemapCovers(t *testing.T) {
	tests := []struct {
		sitemap, loc string
		want         bool
	}{
		{"https://example.com/sitemap.xml", "https://example.com/", true},
		{"https://example.com/sitemap.xml", "https://example.com/any/thing?q=1", true},
		{"https://example.com/catalog/sitemap.xml", "https://example.com/catalog/shoes", true},
		{"https://example.com/catalog/sitemap.xml", "https://example.com/catalog/", true},
		{"https://example.com/catalog/sitemap.xml", "https://example.com/catalog", false},
		{"https://example.com/catalog/sitemap.xml", "https://example.com/images/a", false},
		{"https://example.com/sitemap.xml", "http://example.com/", false},
		{"https://example.com/sitemap.xml", "https://www.example.com/", false},
		{"https://example.com/sitemap.xml", "https://example.com:443/a", true},
		{"https://Example.COM/sitemap.xml", "https://example.com/a", true},
		{"https://example.com:8443/sitemap.xml", "https://example.com/a", false},
		{"http://[::1]:8080/sitemap.xml", "http://[::1]:8080/a", true},
		{"https://example.com/sitemap.xml", "/relative", false},
		{"https://example.com/sitemap.xml", "ftp://example.com/a", false},
		{"not a url", "https://example.com/a", false},
		{"https://example.com/sitemap.xml", "https://example.com/%zz", false},
	}
	for _, tt := range tests {
		if got := SitemapCovers(tt.sitemap, tt.loc); got != tt.want {
			t.Errorf("SitemapCovers(%q, %q):\n\tgot %v\n\twant %v", tt.sitemap, tt.loc, got, tt.want)
		}
	}
}

func TestSitemapParseTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2024", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"2024-05", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), true},
		{"2024-05-17", time.Date(2024, 5, 17, 0, 0, 0, 0, time.UTC), true},
		{"2024-05-17T10:20+02:00", time.Date(2024, 5, 17, 8, 20, 0, 0, time.UTC), true},
		{"2024-05-17T10:20:30Z", time.Date(2024, 5, 17, 10, 20, 30, 0, time.UTC), true},
		{"2024-05-17T10:20:30.5-01:00", time.Date(2024, 5, 17, 11, 20, 30, 5e8, time.UTC), true},
		{"2024-05-17T10:20:30", time.Date(2024, 5, 17, 10, 20, 30, 0, time.UTC), true},
		{"2024-05-17 10:20:30", time.Date(2024, 5, 17, 10, 20, 30, 0, time.UTC), true},
		{"2024-05-17T10:20:30+0000", time.Date(2024, 5, 17, 10, 20, 30, 0, time.UTC), true},
		{"Fri, 17 May 2024 10:20:30 +0200", time.Date(2024, 5, 17, 8, 20, 30, 0, time.UTC), true},
		{"Fri, 17 May 2024 10:20:30 GMT", time.Date(2024, 5, 17, 10, 20, 30, 0, time.UTC), true},
		{"17 May 2024 10:20:30 +0000", time.Date(2024, 5, 17, 10, 20, 30, 0, time.UTC), true},
		{"2024-13-01", time.Time{}, false},
		{"yesterday", time.Time{}, false},
		{"", time.Time{}, false},
		{"2024-05-17T", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := smParseTime(tt.in)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("smParseTime(%q):\n\tgot %v, %v\n\twant %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
