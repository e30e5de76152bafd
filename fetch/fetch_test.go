package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestFetchOK(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("X-Test", "1")
		fmt.Fprint(w, "<p>hello</p>")
	})
	c := newClient(t, func(o *Options) { o.Resolve = map[string]string{"a.test:80": addr(srv)} })
	resp, err := c.Fetch(context.Background(), &Request{URL: "http://a.test/page?q=1#frag"})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if resp.Status != 200 || string(resp.Body) != "<p>hello</p>" || string(resp.RawBody) != "<p>hello</p>" {
		t.Errorf("got status %d body %q raw %q, want 200 and <p>hello</p>", resp.Status, resp.Body, resp.RawBody)
	}
	if resp.URL != "http://a.test/page?q=1#frag" || resp.FinalURL != "http://a.test/page?q=1" {
		t.Errorf("got URL %q FinalURL %q", resp.URL, resp.FinalURL)
	}
	wantReq := []string{"GET /page?q=1 HTTP/1.1\r\nHost: a.test\r\nUser-Agent: " + testUA + "\r\n",
		"\r\nAccept: */*\r\n", "\r\nAccept-Encoding: gzip, br, zstd\r\n"}
	for _, w := range wantReq {
		if !bytes.Contains(resp.RawRequest, []byte(w)) {
			t.Errorf("RawRequest %q lacks %q", resp.RawRequest, w)
		}
	}
	if !bytes.HasSuffix(resp.RawRequest, []byte("\r\n\r\n")) {
		t.Errorf("RawRequest %q does not end with a blank line", resp.RawRequest)
	}
	if !bytes.HasPrefix(resp.RawHeader, []byte("HTTP/1.1 200 OK\r\n")) ||
		!bytes.HasSuffix(resp.RawHeader, []byte("\r\n\r\n")) ||
		!bytes.Contains(resp.RawHeader, []byte("\r\nX-Test: 1\r\n")) {
		t.Errorf("RawHeader = %q", resp.RawHeader)
	}
	if resp.RemoteIP != "127.0.0.1" {
		t.Errorf("RemoteIP = %q, want 127.0.0.1", resp.RemoteIP)
	}
	if resp.Start.IsZero() || resp.RequestWritten.Before(resp.Start) || resp.End.Before(resp.RequestWritten) {
		t.Errorf("times out of order: start %v written %v end %v", resp.Start, resp.RequestWritten, resp.End)
	}
	if resp.Timings.Total != resp.End.Sub(resp.Start) || resp.Timings.DNS != 0 {
		t.Errorf("Timings = %+v", resp.Timings)
	}
	if resp.Truncated || resp.DecodeError != nil || resp.Skipped != "" || resp.Location != "" {
		t.Errorf("unexpected flags: %+v", resp)
	}
}

// TestWireCapture checks RawRequest and RawHeader byte for byte against what a
// raw TCP server received and sent, including odd header case and spacing and
// an interim 103 response that must be left out.
func TestWireCapture(t *testing.T) {
	const final = "HTTP/1.1 200 Fine\r\nx-ODD-case:   spaced  \r\nContent-Length: 2\r\nConnection: close\r\n\r\n"
	s := newRawServer(t, "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"+final+"ok")
	c := newClient(t, func(o *Options) { o.Resolve = map[string]string{"raw.test:80": s.ln.Addr().String()} })
	resp, err := c.Fetch(context.Background(), &Request{URL: "http://raw.test/x",
		Header: http.Header{"X-Extra": {"1"}, "User-Agent": {"Impostor"}}})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if got, want := string(resp.RawHeader), final; got != want {
		t.Errorf("RawHeader:\n\tgot %q\n\twant %q", got, want)
	}
	if got, want := string(resp.RawRequest), string(s.request(0)); got != want {
		t.Errorf("RawRequest:\n\tgot %q\n\twant %q", got, want)
	}
	if !bytes.Contains(resp.RawRequest, []byte("\r\nX-Extra: 1\r\n")) || bytes.Contains(resp.RawRequest, []byte("Impostor")) {
		t.Errorf("RawRequest %q: want X-Extra and our User-Agent", resp.RawRequest)
	}
	if resp.Status != 200 || string(resp.Body) != "ok" || resp.Header.Get("X-Odd-Case") != "spaced" {
		t.Errorf("got %d %q %v", resp.Status, resp.Body, resp.Header)
	}
}

// TestWireCaptureBareLF: a server ending header lines in bare LF, which
// net/http accepts, is captured as sent.
func TestWireCaptureBareLF(t *testing.T) {
	const hdr = "HTTP/1.0 200 OK\nContent-Type: text/plain\nConnection: close\n\n"
	s := newRawServer(t, hdr+"body")
	c := newClient(t, nil)
	resp, err := c.Fetch(context.Background(), &Request{URL: "http://" + s.ln.Addr().String() + "/"})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if string(resp.RawHeader) != hdr || string(resp.Body) != "body" {
		t.Errorf("got header %q body %q, want %q and body", resp.RawHeader, resp.Body, hdr)
	}
}

func TestStatuses(t *testing.T) {
	for _, code := range []int{200, 403, 404, 410, 429, 500, 503} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if code == 429 || code == 503 {
					w.Header().Set("Retry-After", "120")
				}
				w.WriteHeader(code)
				fmt.Fprintf(w, "status %d", code)
			})
			c := newClient(t, nil)
			resp, err := c.Fetch(context.Background(), &Request{URL: srv.URL + "/robots.txt"})
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if resp.Status != code || string(resp.Body) != fmt.Sprintf("status %d", code) {
				t.Errorf("got %d %q, want %d", resp.Status, resp.Body, code)
			}
			if (code == 429 || code == 503) && resp.Header.Get("Retry-After") != "120" {
				t.Errorf("Retry-After = %q, want 120", resp.Header.Get("Retry-After"))
			}
		})
	}
}

// redirectFarm serves a.test and b.test from two servers:
//
//	a.test/robots.txt -> 301 http://b.test/robots.txt (200)
//	a.test/rel -> 302 /robots-final (relative)
//	a.test/loop -> b.test/loop -> a.test/loop
//	a.test/chain/N -> a.test/chain/N+1, forever
//	a.test/ftp -> ftp://example.org/
func redirectFarm(t *testing.T) *Client {
	a, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			http.Redirect(w, r, "http://b.test/robots.txt", http.StatusMovedPermanently)
		case r.URL.Path == "/rel":
			w.Header().Set("Location", "/robots-final")
			w.WriteHeader(http.StatusFound)
		case r.URL.Path == "/robots-final":
			fmt.Fprint(w, "final a")
		case r.URL.Path == "/loop":
			http.Redirect(w, r, "http://b.test/loop", http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/chain/"):
			var n int
			fmt.Sscanf(r.URL.Path, "/chain/%d", &n)
			http.Redirect(w, r, fmt.Sprintf("/chain/%d", n+1), http.StatusTemporaryRedirect)
		case r.URL.Path == "/ftp":
			http.Redirect(w, r, "ftp://example.org/", http.StatusFound)
		case r.URL.Path == "/cond":
			http.Redirect(w, r, "http://b.test/cond", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
	b, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		case "/loop":
			http.Redirect(w, r, "http://a.test/loop", http.StatusFound)
		case "/cond":
			fmt.Fprintf(w, "inm=%q", r.Header.Get("If-None-Match"))
		default:
			http.NotFound(w, r)
		}
	})
	return newClient(t, func(o *Options) {
		o.Resolve = map[string]string{"a.test:80": addr(a), "b.test:80": addr(b)}
	})
}

func TestRedirectReturned(t *testing.T) {
	c := redirectFarm(t)
	for _, tc := range []struct{ url, location string }{
		{"http://a.test/robots.txt", "http://b.test/robots.txt"},
		{"http://a.test/rel", "http://a.test/robots-final"},
	} {
		resp, err := c.Fetch(context.Background(), &Request{URL: tc.url})
		if err != nil {
			t.Fatalf("Fetch(%q): %v", tc.url, err)
		}
		if resp.Status/100 != 3 || resp.Location != tc.location || resp.FinalURL != tc.url || len(resp.Redirects) != 0 {
			t.Errorf("Fetch(%q):\n\tgot %d Location %q FinalURL %q hops %d\n\twant 3xx %q", tc.url,
				resp.Status, resp.Location, resp.FinalURL, len(resp.Redirects), tc.location)
		}
	}
}

func TestRedirectFollowedAcrossHosts(t *testing.T) {
	c := redirectFarm(t)
	resp, err := c.Fetch(context.Background(), &Request{URL: "http://a.test/robots.txt", FollowRedirects: 5})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if resp.Status != 200 || resp.URL != "http://a.test/robots.txt" || resp.FinalURL != "http://b.test/robots.txt" ||
		!strings.Contains(string(resp.Body), "Disallow: /private") {
		t.Errorf("got %d URL %q FinalURL %q body %q", resp.Status, resp.URL, resp.FinalURL, resp.Body)
	}
	if len(resp.Redirects) != 1 || resp.Redirects[0].Status != 301 || resp.Redirects[0].FinalURL != "http://a.test/robots.txt" ||
		resp.Redirects[0].Location != "http://b.test/robots.txt" || len(resp.Redirects[0].RawHeader) == 0 {
		t.Errorf("Redirects = %+v", resp.Redirects)
	}
	if !bytes.Contains(resp.RawRequest, []byte("Host: b.test\r\n")) {
		t.Errorf("final RawRequest %q: want Host: b.test", resp.RawRequest)
	}
}

func TestRedirectFailures(t *testing.T) {
	c := redirectFarm(t)
	for _, tc := range []struct {
		url   string
		phase string
		want  error
		hops  int
	}{
		{"http://a.test/loop", PhaseRedirect, ErrRedirectLoop, 1},
		{"http://a.test/chain/0", PhaseRedirect, ErrTooManyRedirects, 5},
		{"http://a.test/ftp", PhasePolicy, ErrScheme, 0},
	} {
		resp, err := c.Fetch(context.Background(), &Request{URL: tc.url, FollowRedirects: 5})
		var fe *Error
		if !errors.As(err, &fe) || fe.Phase != tc.phase || !errors.Is(err, tc.want) || fe.Temporary() {
			t.Errorf("Fetch(%q) error:\n\tgot %v\n\twant phase %s, %v, not temporary", tc.url, err, tc.phase, tc.want)
			continue
		}
		if resp == nil || resp.Status/100 != 3 || len(resp.Redirects) != tc.hops || resp.URL != tc.url {
			t.Errorf("Fetch(%q) response: got %+v, want the last 3xx with %d earlier hops", tc.url, resp, tc.hops)
		}
	}
}

func TestConditionalGet(t *testing.T) {
	const etag, lastMod = `"v1"`, "Sat, 21 Nov 2026 10:00:00 GMT"
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == etag || r.Header.Get("If-Modified-Since") == lastMod {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		fmt.Fprint(w, "fresh")
	})
	c := newClient(t, nil)
	for _, tc := range []struct {
		req  Request
		want int
	}{
		{Request{URL: srv.URL}, 200},
		{Request{URL: srv.URL, ETag: etag}, 304},
		{Request{URL: srv.URL, LastModified: lastMod}, 304},
		{Request{URL: srv.URL, ETag: `"old"`}, 200},
	} {
		resp, err := c.Fetch(context.Background(), &tc.req)
		if err != nil {
			t.Fatalf("Fetch(%+v): %v", tc.req, err)
		}
		if resp.Status != tc.want {
			t.Errorf("Fetch(ETag %q, LastModified %q): got %d, want %d", tc.req.ETag, tc.req.LastModified, resp.Status, tc.want)
		}
	}
	// Conditional headers belong to the first hop only.
	rc := redirectFarm(t)
	resp, err := rc.Fetch(context.Background(), &Request{URL: "http://a.test/cond", ETag: etag, FollowRedirects: 1})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if string(resp.Body) != `inm=""` || !bytes.Contains(resp.Redirects[0].RawRequest, []byte("If-None-Match: "+etag)) {
		t.Errorf("got body %q, first hop request %q", resp.Body, resp.Redirects[0].RawRequest)
	}
}

func TestBodyLimit(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 600<<10/16) // 600 KiB, like an oversized robots.txt
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", fmt.Sprint(len(big)))
		}
		w.Write(big)
	})
	for _, tc := range []struct {
		name      string
		opt, req  int64
		chunked   bool
		wantLen   int
		truncated bool
	}{
		{"default limit reads 600 KiB", 0, 0, false, len(big), false},
		{"default limit chunked", 0, 0, true, len(big), false},
		{"client limit", 1000, 0, false, 1000, true},
		{"client limit chunked", 1000, 0, true, 1000, true},
		{"request limit 500 KiB", 0, 500 << 10, false, 500 << 10, true},
		{"limit equals size", int64(len(big)), 0, false, len(big), false},
		{"limit equals size chunked", int64(len(big)), 0, true, len(big), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, func(o *Options) { o.MaxBodySize = tc.opt })
			u := srv.URL + "/big"
			if tc.chunked {
				u += "?chunked=1"
			}
			resp, err := c.Fetch(context.Background(), &Request{URL: u, MaxBodySize: tc.req})
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if len(resp.RawBody) != tc.wantLen || resp.Truncated != tc.truncated || !bytes.Equal(resp.Body, big[:tc.wantLen]) {
				t.Errorf("got %d bytes truncated=%v, want %d truncated=%v", len(resp.RawBody), resp.Truncated, tc.wantLen, tc.truncated)
			}
		})
	}
}

func TestAcceptTypes(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if ct := r.URL.Query().Get("ct"); ct != "" {
			w.Header().Set("Content-Type", ct)
		} else {
			w.Header()["Content-Type"] = nil // no sniffing
		}
		fmt.Fprintf(w, "accept=%s", r.Header.Get("Accept"))
	})
	c := newClient(t, func(o *Options) { o.AcceptTypes = []string{"text/html", "application/xhtml+xml", "text/*"} })
	for _, tc := range []struct {
		ct     string
		accept []string // Request.AcceptTypes
		read   bool
	}{
		{"text/html; charset=utf-8", nil, true},
		{"TEXT/HTML", nil, true},
		{"text/plain", nil, true},
		{"application/xhtml+xml", nil, true},
		{"image/png", nil, false},
		{"application/pdf", nil, false},
		{"", nil, true},
		{"image/png", []string{}, true},
		{"text/html", []string{"text/plain"}, false},
		{"text/plain", []string{"text/plain"}, true},
	} {
		resp, err := c.Fetch(context.Background(), &Request{URL: srv.URL + "/?ct=" + url.QueryEscape(tc.ct), AcceptTypes: tc.accept})
		if err != nil {
			t.Fatalf("Fetch: %v", err)
		}
		if got := resp.Skipped == ""; got != tc.read || (resp.Body != nil) != tc.read {
			t.Errorf("content type %q accept %v: read %v (Skipped %q), want %v", tc.ct, tc.accept, got, resp.Skipped, tc.read)
		}
		if tc.read && tc.accept == nil && string(resp.Body) != "accept=text/html, application/xhtml+xml, text/*" {
			t.Errorf("Accept header sent: %q", resp.Body)
		}
	}
}

func TestTimeouts(t *testing.T) {
	done := make(chan struct{})
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/silent": // never answers
		case "/trickle": // slow loris: headers, then a byte every 10 ms, forever
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(200)
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for {
				w.Write([]byte("x"))
				w.(http.Flusher).Flush()
				select {
				case <-tick.C:
				case <-r.Context().Done():
					return
				case <-done:
					return
				}
			}
		}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	})
	t.Cleanup(func() { close(done) }) // runs before the server's Close
	for _, tc := range []struct {
		name string
		path string
		edit func(*Options)
	}{
		{"header timeout", "/silent", func(o *Options) { o.HeaderTimeout = 50 * time.Millisecond }},
		{"whole-request timeout before header", "/silent", func(o *Options) { o.Timeout = 50 * time.Millisecond }},
		{"slow loris ended by whole-request timeout", "/trickle", func(o *Options) { o.Timeout = 100 * time.Millisecond }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, tc.edit)
			resp, err := c.Fetch(context.Background(), &Request{URL: srv.URL + tc.path})
			var fe *Error
			if !errors.As(err, &fe) || fe.Phase != PhaseTimeout || !fe.Timeout() || !fe.Temporary() || resp != nil {
				t.Fatalf("got %v, %v; want a temporary timeout *Error", resp, err)
			}
		})
	}
	t.Run("caller cancels", func(t *testing.T) {
		c := newClient(t, nil)
		ctx, cancel := context.WithCancel(context.Background())
		srvCancel, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
			cancel()
			<-r.Context().Done()
		})
		_, err := c.Fetch(ctx, &Request{URL: srvCancel.URL})
		var fe *Error
		if !errors.As(err, &fe) || fe.Phase != PhaseCanceled || !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want a canceled *Error wrapping context.Canceled", err)
		}
	})
}

func TestAddressPolicy(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "private") })
	strict := newClient(t, func(o *Options) {
		o.AllowPrivate = false
		o.Resolve = map[string]string{"public.test:80": addr(srv)}
	})
	for _, u := range []string{srv.URL + "/", "http://public.test/", "http://localhost:1/"} {
		resp, err := strict.Fetch(context.Background(), &Request{URL: u})
		var fe *Error
		if !errors.As(err, &fe) || fe.Phase != PhasePolicy || !errors.Is(err, ErrForbiddenAddress) || fe.Temporary() || resp != nil {
			t.Errorf("strict Fetch(%q):\n\tgot %v, %v\n\twant a policy *Error wrapping ErrForbiddenAddress", u, resp, err)
		}
	}
	allowed := newClient(t, func(o *Options) { o.Resolve = map[string]string{"public.test:80": addr(srv)} })
	resp, err := allowed.Fetch(context.Background(), &Request{URL: "http://public.test/"})
	if err != nil || string(resp.Body) != "private" {
		t.Errorf("AllowPrivate Fetch: got %v, want body private", err)
	}
}

func TestSchemes(t *testing.T) {
	c := newClient(t, nil)
	for _, u := range []string{"ftp://example.org/", "file:///etc/passwd", "mailto:a@example.org",
		"/relative", "http:///nohost", "javascript:alert(1)", "gopher://x/", "%zz", ""} {
		resp, err := c.Fetch(context.Background(), &Request{URL: u})
		var fe *Error
		if !errors.As(err, &fe) || fe.Phase != PhasePolicy || !errors.Is(err, ErrScheme) || resp != nil {
			t.Errorf("Fetch(%q):\n\tgot %v, %v\n\twant a policy *Error wrapping ErrScheme", u, resp, err)
		}
	}
	if _, err := c.Fetch(context.Background(), nil); err == nil {
		t.Error("Fetch(nil): got no error")
	}
}

func TestConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := ln.Addr().String()
	ln.Close()
	c := newClient(t, nil)
	_, err = c.Fetch(context.Background(), &Request{URL: "http://" + a + "/"})
	var fe *Error
	if !errors.As(err, &fe) || fe.Phase != PhaseConnect || !fe.Temporary() {
		t.Fatalf("got %v, want a temporary connect *Error", err)
	}
	if !strings.HasPrefix(err.Error(), "fetch: connect http://"+a+"/: ") {
		t.Errorf("Error() = %q", err.Error())
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "proto=%s", r.Proto)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusting client's handshake fails on purpose
	srv.EnableHTTP2 = true                           // the server offers h2; the client must stay on HTTP/1.1
	srv.StartTLS()
	t.Cleanup(srv.Close)
	resolve := map[string]string{"example.com:443": addr(srv)}

	c := newClient(t, func(o *Options) {
		o.Resolve = resolve
		o.TLSConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig
	})
	resp, err := c.Fetch(context.Background(), &Request{URL: "https://example.com/secure"})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if string(resp.Body) != "proto=HTTP/1.1" || !bytes.HasPrefix(resp.RawHeader, []byte("HTTP/1.1 200 OK\r\n")) ||
		!bytes.HasPrefix(resp.RawRequest, []byte("GET /secure HTTP/1.1\r\nHost: example.com\r\n")) {
		t.Errorf("got body %q header %q request %q", resp.Body, resp.RawHeader, resp.RawRequest)
	}
	if resp.Timings.TLS <= 0 || resp.Timings.Connect <= 0 {
		t.Errorf("Timings = %+v, want TLS and Connect measured on a new connection", resp.Timings)
	}

	untrusting := newClient(t, func(o *Options) { o.Resolve = resolve })
	_, err = untrusting.Fetch(context.Background(), &Request{URL: "https://example.com/secure"})
	var fe *Error
	if !errors.As(err, &fe) || fe.Phase != PhaseTLS || fe.Temporary() {
		t.Errorf("untrusted certificate: got %v, want a permanent tls *Error", err)
	}
}

// TestConnectionReuse checks keep-alive reuse, the per-host cap, and that
// each exchange's captured bytes are its own when many share few connections.
func TestConnectionReuse(t *testing.T) {
	var active, peak, opened atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Path", r.URL.Path)
		fmt.Fprint(w, r.URL.Path)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			opened.Add(1)
			n := active.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
		case http.StateClosed, http.StateHijacked:
			active.Add(-1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := newClient(t, nil)

	first, err := c.Fetch(context.Background(), &Request{URL: srv.URL + "/one"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Fetch(context.Background(), &Request{URL: srv.URL + "/two"})
	if err != nil {
		t.Fatal(err)
	}
	if first.Timings.Connect == 0 || second.Timings.Connect != 0 || opened.Load() != 1 {
		t.Errorf("connect timings %v then %v over %d connections, want one reused connection",
			first.Timings.Connect, second.Timings.Connect, opened.Load())
	}

	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			path := fmt.Sprintf("/p%d", i)
			resp, err := c.Fetch(context.Background(), &Request{URL: srv.URL + path})
			if err != nil {
				t.Error(err)
				return
			}
			if string(resp.Body) != path || !bytes.HasPrefix(resp.RawRequest, []byte("GET "+path+" HTTP/1.1\r\n")) ||
				!bytes.Contains(resp.RawHeader, []byte("\r\nX-Path: "+path+"\r\n")) {
				t.Errorf("%s: body %q request %q header %q", path, resp.Body, resp.RawRequest, resp.RawHeader)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > DefaultMaxConnsPerHost {
		t.Errorf("peak connections to one host = %d, want <= %d", p, DefaultMaxConnsPerHost)
	}
}
