package crawltest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestServe(t *testing.T) {
	f := startFarm(t, DemoSites()...)
	tests := []struct {
		url      string
		gzip     bool // send Accept-Encoding: gzip
		status   int
		header   map[string]string // "" value: header absent
		body     []string          // substrings of the (decompressed) body
		gzipFile bool              // body is a gzip file
		minSize  int
		noBody   []string
	}{
		{url: "http://news.test/robots.txt", status: 200,
			header: map[string]string{"Content-Type": "text/plain; charset=utf-8"},
			body:   []string{"User-agent: politecrawl\nDisallow: /private/\n", "\nSitemap: http://news.test/sitemap.xml\n"}},
		{url: "http://blog.test/robots.txt", status: 404},
		{url: "http://static.test/robots.txt", status: 403},
		{url: "http://down.test/robots.txt", status: 503, noBody: []string{"User-agent"}},
		{url: "http://busy.test/robots.txt", status: 429},
		{url: "http://moved.test/robots.txt", status: 301,
			header: map[string]string{"Location": "http://static.test/robots-for-moved.txt"}},
		{url: "http://NEWS.test/", status: 200,
			header: map[string]string{"Content-Type": "text/html; charset=utf-8", "X-Robots-Tag": ""},
			body:   []string{`<a href="/world.html">`, `<a href="http://blog.test/">`}},
		{url: "http://news.test/world.html", status: 200, body: []string{`<a rel="nofollow" href="/ads/tracker.html">`}},
		{url: "http://news.test/sport.html", status: 200, body: []string{`<meta name="robots" content="nofollow">`}},
		{url: "http://shop.test/products/1.html", status: 200, header: map[string]string{"X-Robots-Tag": "nofollow"}},
		{url: "http://news.test/old-front-page", status: 301, header: map[string]string{"Location": "/front.html"}},
		{url: "http://news.test/gone.html", status: 404},
		{url: "http://news.test/sitemap.xml", status: 200, header: map[string]string{"Content-Type": "application/xml"},
			body: []string{"<sitemapindex", "<loc>http://news.test/sitemap-articles.xml.gz</loc>"}},
		{url: "http://news.test/sitemap-articles.xml.gz", status: 200, gzipFile: true,
			header: map[string]string{"Content-Type": "application/gzip", "Content-Encoding": ""},
			body:   []string{"<urlset", "<loc>http://news.test/articles/1.html</loc>"}},
		{url: "http://news.test/articles/1.html", status: 200, minSize: 8 << 10},
		{url: "http://blog.test/2026/hello.html", status: 200, minSize: 20 << 10,
			header: map[string]string{"Content-Encoding": ""}},
		{url: "http://blog.test/2026/hello.html", gzip: true, status: 200, minSize: 20 << 10,
			header: map[string]string{"Content-Encoding": "gzip", "Vary": "Accept-Encoding"}},
		{url: "http://blog.test/caf%c3%a9.html", status: 200},
		{url: "http://blog.test/café.html", status: 200},
		{url: "http://blog.test/feed.txt", status: 200, header: map[string]string{"Content-Type": "text/plain; charset=utf-8"},
			body: []string{"a plain text file\n"}},
		{url: "http://shop.test/products/1.html?sort=price", status: 200},
	}
	client := f.Client()
	for _, tt := range tests {
		name := tt.url
		if tt.gzip {
			name += " gzip"
		}
		t.Run(name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.gzip {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			for k, v := range tt.header {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("header %s: got %q, want %q", k, got, v)
				}
			}
			body := raw
			if tt.gzipFile || resp.Header.Get("Content-Encoding") == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range tt.body {
				if !bytes.Contains(body, []byte(s)) {
					t.Errorf("body lacks %q:\n%s", s, body)
				}
			}
			for _, s := range tt.noBody {
				if bytes.Contains(body, []byte(s)) {
					t.Errorf("body has %q", s)
				}
			}
			if len(body) < tt.minSize || tt.minSize > 0 && len(body) > tt.minSize+200 {
				t.Errorf("body of %d bytes, want about %d", len(body), tt.minSize)
			}
		})
	}
}

// TestServeIcon: a site with Icon serves /favicon.ico as an ICO file, one
// without answers 404, and a page at /favicon.ico wins over Icon.
func TestServeIcon(t *testing.T) {
	pages := map[string]*Page{"/": {}}
	f := startFarm(t,
		Site{Host: "icon.test", Icon: true, Pages: pages},
		Site{Host: "plain.test", Pages: map[string]*Page{"/": {}}},
		Site{Host: "own.test", Icon: true, Pages: map[string]*Page{"/favicon.ico": {ContentType: "image/png", Body: "own"}}},
	)
	for _, tt := range []struct {
		host, ctype string
		status      int
		prefix      string
	}{
		{"icon.test", "image/x-icon", 200, "\x00\x00\x01\x00"},
		{"plain.test", "text/html; charset=utf-8", 404, "<!DOCTYPE html>"},
		{"own.test", "image/png", 200, "own"},
	} {
		resp, err := f.Client().Get("http://" + tt.host + "/favicon.ico")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != tt.ctype || !strings.HasPrefix(string(body), tt.prefix) {
			t.Errorf("%s/favicon.ico: %d %q %q…; want %d %q %q…", tt.host, resp.StatusCode, resp.Header.Get("Content-Type"), body[:min(len(body), 8)], tt.status, tt.ctype, tt.prefix)
		}
	}
	if _, ok := pages["/favicon.ico"]; ok {
		t.Error("Icon changed the site's Pages")
	}
}

func TestRecord(t *testing.T) {
	f := startFarm(t, DemoSites()...)
	get(t, f, "http://News.Test/world.html?x=1", "politecrawl/0.1", "")
	head, err := http.NewRequest(http.MethodHead, "http://blog.test/nothing", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := f.Client().Do(head)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	reqs := f.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests recorded, want 2", len(reqs))
	}
	r := reqs[0]
	if r.Host != "news.test" || r.Path != "/world.html?x=1" || r.Method != "GET" || r.UserAgent != "politecrawl/0.1" ||
		r.Status != 404 || r.Bytes == 0 || r.End.Before(r.Start) {
		t.Errorf("record %+v", r)
	}
	if got, want := r.URL(), "http://news.test/world.html?x=1"; got != want {
		t.Errorf("URL() = %q, want %q", got, want)
	}
	if r := reqs[1]; r.Method != "HEAD" || r.Status != 404 || r.Start.Before(reqs[0].Start) {
		t.Errorf("record %+v", r)
	}
	f.Reset()
	if n := len(f.Requests()); n != 0 {
		t.Errorf("%d requests after Reset", n)
	}
}

func TestFarmAddressing(t *testing.T) {
	f := startFarm(t, Site{Host: "A.test", Seed: "/start?x=1"}, Site{Host: "b.test"})
	if got, want := strings.Join(f.Seeds(), " "), "http://a.test/start?x=1 http://b.test/"; got != want {
		t.Errorf("Seeds() = %q, want %q", got, want)
	}
	res := f.Resolve()
	if len(res) != 2 || res["a.test:80"] != f.Addr() || res["b.test:80"] != f.Addr() {
		t.Errorf("Resolve() = %v, want both hosts on %s", res, f.Addr())
	}
	ctx := context.Background()
	for _, addr := range []string{"c.test:80", "a.test:443", "a.test"} {
		if c, err := f.DialContext(ctx, "tcp", addr); err == nil {
			c.Close()
			t.Errorf("DialContext(%q) succeeded", addr)
		}
	}
	c, err := f.DialContext(ctx, "tcp", "A.TEST:80")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := f.DialContext(ctx, "tcp", "a.test:80"); !errors.Is(err, ErrClosed) {
		t.Errorf("DialContext after Close: %v, want ErrClosed", err)
	}
}

func TestStartErrors(t *testing.T) {
	tests := []struct {
		name string
		site []Site
	}{
		{"empty host", []Site{{}}},
		{"host with port", []Site{{Host: "a.test:8080"}}},
		{"duplicate host", []Site{{Host: "a.test"}, {Host: "A.test"}}},
		{"relative page path", []Site{{Host: "a.test", Pages: map[string]*Page{"x.html": {}}}}},
		{"nil page", []Site{{Host: "a.test", Pages: map[string]*Page{"/": nil}}}},
		{"relative seed", []Site{{Host: "a.test", Seed: "x"}}},
		{"relative sitemap", []Site{{Host: "a.test", Sitemaps: []string{"/sitemap.xml"}}}},
		{"relative robots redirect", []Site{{Host: "a.test", Robots: &Robots{RedirectTo: "/r.txt"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Start(tt.site...)
			if err == nil {
				f.Close()
				t.Fatal("Start succeeded")
			}
			if !strings.HasPrefix(err.Error(), "crawltest: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}
