package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// startTLS starts a TLS server speaking only the given protocols ("h2",
// "http/1.1") at ALPN, and returns it with a client TLS config trusting it.
func startTLS(t *testing.T, h http.HandlerFunc, protos ...string) (*httptest.Server, *tls.Config) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	p := new(http.Protocols)
	for _, proto := range protos {
		switch proto {
		case "h2":
			p.SetHTTP2(true)
		case "http/1.1":
			p.SetHTTP1(true)
		}
	}
	srv.Config.Protocols = p
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are on purpose
	srv.TLS = &tls.Config{NextProtos: protos}
	if !p.HTTP1() {
		// Refuse a client that does not offer h2 at ALPN, as an h2-only server
		// does (Go's own server would let an http/1.1 client in without ALPN).
		srv.TLS.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			if slices.Contains(hello.SupportedProtos, "h2") {
				return nil, nil
			}
			refuse := srv.TLS.Clone()
			refuse.GetConfigForClient, refuse.NextProtos = nil, []string{"x-h2-only"}
			return refuse, nil
		}
	}
	srv.EnableHTTP2 = p.HTTP2()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, srv.Client().Transport.(*http.Transport).TLSClientConfig
}

func h2Handler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Path", r.URL.RequestURI())
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "proto=%s path=%s", r.Proto, r.URL.RequestURI())
}

func TestHTTP2(t *testing.T) {
	srv, tlsConfig := startTLS(t, h2Handler, "h2")
	resolve := map[string]string{"example.com:443": addr(srv)}
	for _, mode := range []string{HTTP2Auto, HTTP2On} {
		t.Run(mode, func(t *testing.T) {
			c := newClient(t, func(o *Options) { o.HTTP2, o.Resolve, o.TLSConfig = mode, resolve, tlsConfig })
			for i, path := range []string{"/a?q=1", "/b"} {
				resp, err := c.Fetch(context.Background(), &Request{URL: "https://example.com" + path, Header: http.Header{"X-Extra": {"v"}}})
				if err != nil {
					t.Fatalf("Fetch: %v", err)
				}
				if want := "proto=HTTP/2.0 path=" + path; string(resp.Body) != want {
					t.Errorf("body %q, want %q", resp.Body, want)
				}
				if resp.Protocol != "h2" || resp.TLSVersion != "tls/1.3" {
					t.Errorf("Protocol %q TLSVersion %q, want h2 over tls/1.3", resp.Protocol, resp.TLSVersion)
				}
				req := string(resp.RawRequest)
				if !strings.HasPrefix(req, "GET "+path+" HTTP/1.1\r\nhost: example.com\r\n") || !strings.HasSuffix(req, "\r\n\r\n") ||
					!strings.Contains(req, "\r\nuser-agent: "+testUA+"\r\n") || !strings.Contains(req, "\r\nx-extra: v\r\n") {
					t.Errorf("RawRequest %d = %q, want the HTTP/1.1 form with the names as sent", i, req)
				}
				head := string(resp.RawHeader)
				if !strings.HasPrefix(head, "HTTP/1.1 200 \r\n") || !strings.Contains(head, "\r\nx-path: "+path+"\r\n") ||
					!strings.HasSuffix(head, "\r\n\r\n") || strings.Contains(head, ":status") {
					t.Errorf("RawHeader %d = %q, want the HTTP/1.1 form, status line without a reason", i, head)
				}
				if i == 1 && resp.Timings.TLS != 0 {
					t.Error("the second request did not reuse the connection")
				}
			}
		})
	}
	off := newClient(t, func(o *Options) { o.HTTP2, o.Resolve, o.TLSConfig = HTTP2Off, resolve, tlsConfig })
	_, err := off.Fetch(context.Background(), &Request{URL: "https://example.com/"})
	var fe *Error
	if !errors.As(err, &fe) || fe.Phase != PhaseTLS || !errors.Is(err, ErrALPN) || fe.Temporary() ||
		!strings.Contains(err.Error(), "no application protocol (the client offered http/1.1 at ALPN)") {
		t.Errorf("HTTP/2 off against an h2-only server: got %v, want a TLS error saying what ALPN offered", err)
	}
}

func TestHTTP2Fallback(t *testing.T) {
	srv, tlsConfig := startTLS(t, h2Handler, "http/1.1")
	resolve := map[string]string{"example.com:443": addr(srv)}
	auto := newClient(t, func(o *Options) { o.HTTP2, o.Resolve, o.TLSConfig = HTTP2Auto, resolve, tlsConfig })
	for i := range 2 {
		resp, err := auto.Fetch(context.Background(), &Request{URL: "https://example.com/x"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Protocol != "http/1.1" || !strings.HasPrefix(string(resp.RawHeader), "HTTP/1.1 200 OK\r\n") || string(resp.Body) != "proto=HTTP/1.1 path=/x" {
			t.Errorf("auto against HTTP/1.1 only, fetch %d: protocol %q, header %q, body %q", i, resp.Protocol, resp.RawHeader, resp.Body)
		}
	}
	on := newClient(t, func(o *Options) { o.HTTP2, o.Resolve, o.TLSConfig = HTTP2On, resolve, tlsConfig })
	_, err := on.Fetch(context.Background(), &Request{URL: "https://example.com/x"})
	if err == nil || !strings.Contains(err.Error(), "no application protocol (the client offered h2 at ALPN)") {
		t.Errorf("on against HTTP/1.1 only: got %v, want an error saying ALPN found no protocol", err)
	}
	// Plain http stays HTTP/1.1 whatever the mode.
	plain, _ := serve(t, h2Handler)
	resp, err := on.Fetch(context.Background(), &Request{URL: plain.URL + "/p"})
	if err != nil || resp.Protocol != "http/1.1" || resp.TLSVersion != "" {
		t.Errorf("plain http with HTTP/2 on: %v, protocol %q %q", err, resp.Protocol, resp.TLSVersion)
	}
}

// TestHTTP2Streams: requests sharing one HTTP/2 connection each get their own
// fields, and the decoding stays in step with the connection's HPACK table.
func TestHTTP2Streams(t *testing.T) {
	srv, tlsConfig := startTLS(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Set-Cookie", "n="+r.URL.Path[1:])
		h2Handler(w, r)
	}, "h2")
	c := newClient(t, func(o *Options) {
		o.HTTP2, o.TLSConfig = HTTP2Auto, tlsConfig
		o.Resolve = map[string]string{"example.com:443": addr(srv)}
	})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := fmt.Sprintf("/p%d", i)
			resp, err := c.Fetch(context.Background(), &Request{URL: "https://example.com" + path})
			if err != nil {
				t.Error(err)
				return
			}
			if !strings.HasPrefix(string(resp.RawRequest), "GET "+path+" HTTP/1.1\r\n") ||
				!strings.Contains(string(resp.RawHeader), "\r\nx-path: "+path+"\r\n") ||
				!strings.Contains(string(resp.RawHeader), "\r\nset-cookie: n="+path[1:]+"\r\n") {
				t.Errorf("%s: request %q header %q", path, resp.RawRequest, resp.RawHeader)
			}
		}()
	}
	wg.Wait()
}
