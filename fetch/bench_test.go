package fetch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks in this file GET a ~30 KB HTML page over loopback keep-alive
// connections with Client.Fetch and, in the same run, with plain net/http, so
// the ratio of the two means something on a noisy machine. Each reports
// requests per second ("req/s"). Sub-benchmark names end in client=NAME for
// benchstat -col /client. See BENCHMARKS.md at the root.

const (
	benchPageSize = 30 << 10 // bytes of the page served, roughly
	benchHosts    = 200      // loopback servers in the many-hosts variant
	// benchConnsPerHost caps connections per host for both clients: Fetch's
	// default, and enough for RunParallel's GOMAXPROCS goroutines on two cores.
	benchConnsPerHost = DefaultMaxConnsPerHost
)

// benchPage is an HTML page of paragraphs and links, built on first use so that
// go test without -bench does not pay for it.
var benchPage = sync.OnceValue(func() []byte {
	const tail = "</body></html>\n"
	var b bytes.Buffer
	b.WriteString("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Benchmark page</title></head>\n<body>\n")
	for i := 0; b.Len() < benchPageSize-len(tail); i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d of filler text, with <a href=\"/page/%d\">a link</a> to another page.</p>\n", i, i)
	}
	b.WriteString(tail)
	return b.Bytes()
})

// startBenchServers starts n loopback servers of benchPage and returns their
// URLs; they are closed when b's cleanup runs.
func startBenchServers(b *testing.B, n int) []string {
	b.Helper()
	page := benchPage()
	length := strconv.Itoa(len(page))
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", length)
		w.Write(page)
	})
	urls := make([]string, n)
	for i := range urls {
		srv := httptest.NewServer(h)
		b.Cleanup(srv.Close)
		urls[i] = srv.URL + "/page"
	}
	return urls
}

// getFunc GETs url, reads the whole body and returns its length; a status other
// than 200 is an error.
type getFunc func(ctx context.Context, url string) (int, error)

// netHTTPGet returns a baseline: an http.Client on a Transport tuned as Fetch's
// is (keep-alive pool as large, same per-host cap, same timeouts, no proxy),
// reading the body with read.
func netHTTPGet(read func(*http.Response) ([]byte, error)) func(*testing.B) getFunc {
	return func(b *testing.B) getFunc {
		t := &http.Transport{
			Proxy:                 nil,
			DialContext:           (&net.Dialer{Timeout: DefaultDialTimeout, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:          DefaultMaxIdleConns,
			MaxIdleConnsPerHost:   benchConnsPerHost,
			MaxConnsPerHost:       benchConnsPerHost,
			IdleConnTimeout:       DefaultIdleTimeout,
			ResponseHeaderTimeout: DefaultHeaderTimeout,
		}
		b.Cleanup(t.CloseIdleConnections)
		c := &http.Client{Transport: t, Timeout: DefaultTimeout}
		return func(ctx context.Context, url string) (int, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return 0, err
			}
			req.Header.Set("User-Agent", testUA)
			resp, err := c.Do(req)
			if err != nil {
				return 0, err
			}
			defer resp.Body.Close()
			body, err := read(resp)
			if err != nil {
				return 0, err
			}
			if resp.StatusCode != http.StatusOK {
				return 0, fmt.Errorf("GET %s: status %d", url, resp.StatusCode)
			}
			return len(body), nil
		}
	}
}

// readSized reads the body into one buffer sized from Content-Length, as a
// tuned client would (and as Fetch does).
func readSized(resp *http.Response) ([]byte, error) {
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(resp.Body)
	return buf.Bytes(), err
}

// readAll reads the body with io.ReadAll, the common idiom, which grows its
// buffer from 512 bytes.
func readAll(resp *http.Response) ([]byte, error) { return io.ReadAll(resp.Body) }

// fetchGet returns Client.Fetch with default options but loopback allowed.
func fetchGet(b *testing.B) getFunc {
	c := newClient(b, func(o *Options) { o.MaxConnsPerHost = benchConnsPerHost })
	return func(ctx context.Context, url string) (int, error) {
		resp, err := c.Fetch(ctx, &Request{URL: url})
		if err != nil {
			return 0, err
		}
		if resp.Status != http.StatusOK {
			return 0, fmt.Errorf("Fetch %s: status %d", url, resp.Status)
		}
		return len(resp.Body), nil
	}
}

// BenchmarkFetch measures GETs of a ~30 KB page per op, over keep-alive loopback
// connections: one after another to one server (serial), from GOMAXPROCS
// goroutines to one server (parallel), and from GOMAXPROCS goroutines round-robin
// over 200 servers (parallel-200-hosts, which exercises the connection pool).
// Under each mode Fetch runs right after two net/http baselines: client=net-http
// (body read into a buffer sized from Content-Length, the baseline Fetch's goal
// of 90% is measured against) and client=net-http-readall (io.ReadAll).
func BenchmarkFetch(b *testing.B) {
	one := startBenchServers(b, 1)
	many := startBenchServers(b, benchHosts)
	clients := []struct {
		name string
		get  func(*testing.B) getFunc
	}{
		{"client=net-http", netHTTPGet(readSized)},
		{"client=net-http-readall", netHTTPGet(readAll)},
		{"client=fetch", fetchGet},
	}
	modes := []struct {
		name string
		urls []string
		run  func(*testing.B, getFunc, []string)
	}{
		{"mode=serial", one, benchSerial},
		{"mode=parallel", one, benchParallel},
		{"mode=parallel-200-hosts", many, benchParallel},
	}
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			for _, c := range clients {
				b.Run(c.name, func(b *testing.B) { m.run(b, c.get(b), m.urls) })
			}
		})
	}
}

// warm GETs every URL once, so that timing starts with connections pooled.
func warm(b *testing.B, get getFunc, urls []string) {
	b.Helper()
	for _, u := range urls {
		if _, err := get(context.Background(), u); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSerial(b *testing.B, get getFunc, urls []string) {
	ctx := context.Background()
	want := len(benchPage())
	warm(b, get, urls)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		n, err := get(ctx, urls[i%len(urls)])
		if err != nil {
			b.Fatal(err)
		}
		if n != want {
			b.Fatalf("got %d body bytes, want %d", n, want)
		}
	}
	reportRate(b)
}

func benchParallel(b *testing.B, get getFunc, urls []string) {
	ctx := context.Background()
	want := len(benchPage())
	warm(b, get, urls)
	var next atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			u := urls[next.Add(1)%uint64(len(urls))]
			n, err := get(ctx, u)
			if err != nil {
				b.Error(err)
				return
			}
			if n != want {
				b.Errorf("got %d body bytes, want %d", n, want)
				return
			}
		}
	})
	reportRate(b)
}

// reportRate reports the requests per second of wall time.
func reportRate(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "req/s")
	}
}
