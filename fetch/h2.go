package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Values of Options.HTTP2.
const (
	HTTP2Off  = "off"  // HTTP/1.1 only: ALPN offers http/1.1
	HTTP2Auto = "auto" // ALPN offers h2 and http/1.1 over TLS; the server chooses
	HTTP2On   = "on"   // HTTP/2 over TLS, refused servers an error; plain http stays HTTP/1.1
)

// HTTP/2 runs on its own http.Transport. net/http speaks HTTP/2 only on a
// *tls.Conn it can see, and the client's connections are wrappers that record
// the plaintext above TLS; so the second transport is told to speak HTTP/2 with
// prior knowledge ("unencrypted" HTTP/2, as far as it knows) on connections
// whose TLS handshake the dialer did, having negotiated h2 at ALPN. Which
// transport serves a host is learnt from its first handshake: a connection
// dialed by one transport for the other's protocol is handed over, not wasted.

// switchProto is the dial error that sends a request to the other transport:
// the server chose proto at ALPN, and the connection waits in the stash.
type switchProto struct{ proto string }

func (e *switchProto) Error() string { return "fetch: server chose " + e.proto + " at ALPN" }

// protoSwitch is the client's RoundTripper when HTTP/2 is not off.
type protoSwitch struct {
	mode   string
	d      *dialer
	h1, h2 *http.Transport

	mu      sync.Mutex
	learnt  map[string]string // "host:port" → "h2" or "http/1.1"
	stash   map[string][]*conn
	stashed int // connections in stash
}

// Bounds of the switch's memory: hosts whose protocol is remembered, and
// connections waiting for the other transport.
const (
	maxLearnt  = 1 << 16
	maxStashed = 256
)

// newProtoSwitch returns the switch over h1, with an h2 transport made with
// the same limits.
func newProtoSwitch(mode string, d *dialer, h1 *http.Transport) *protoSwitch {
	s := &protoSwitch{mode: mode, d: d, h1: h1, learnt: map[string]string{}, stash: map[string][]*conn{}}
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	s.h2 = &http.Transport{
		DialTLSContext: s.dialH2,
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("fetch: plain http over the HTTP/2 transport")
		},
		Protocols:              protocols,
		DisableCompression:     true,
		MaxIdleConns:           h1.MaxIdleConns,
		MaxIdleConnsPerHost:    h1.MaxIdleConnsPerHost,
		MaxConnsPerHost:        h1.MaxConnsPerHost,
		IdleConnTimeout:        h1.IdleConnTimeout,
		ResponseHeaderTimeout:  h1.ResponseHeaderTimeout,
		MaxResponseHeaderBytes: h1.MaxResponseHeaderBytes,
	}
	h1.DialTLSContext = s.dialH1
	return s
}

// offer is what ALPN offers in this mode.
func (s *protoSwitch) offer() []string {
	if s.mode == HTTP2On {
		return []string{"h2"}
	}
	return []string{"h2", "http/1.1"}
}

func (s *protoSwitch) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" {
		return s.h1.RoundTrip(req)
	}
	t := s.h1
	if s.mode == HTTP2On || s.known(canonicalAddr(req)) == "h2" {
		t = s.h2
	}
	resp, err := t.RoundTrip(req)
	var sw *switchProto
	if err != nil && errors.As(err, &sw) {
		// Nothing was written: the request goes to the other transport, which
		// takes the connection from the stash.
		t = s.h1
		if sw.proto == "h2" {
			t = s.h2
		}
		return t.RoundTrip(req)
	}
	return resp, err
}

// canonicalAddr is the "host:port" the transports dial for req.
func canonicalAddr(req *http.Request) string {
	host, port := req.URL.Hostname(), req.URL.Port()
	if port == "" {
		port = "443"
	}
	return net.JoinHostPort(strings.ToLower(host), port)
}

func (s *protoSwitch) known(addr string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.learnt[addr]
}

// handOver keeps c, dialed for addr, for the other transport, and returns the
// error that sends the request there.
func (s *protoSwitch) handOver(addr string, c *conn, proto string) error {
	s.mu.Lock()
	if len(s.learnt) >= maxLearnt {
		clear(s.learnt) // a hint only: a host forgotten is learnt again at its next dial
	}
	s.learnt[strings.ToLower(addr)] = proto
	s.stash[addr] = append(s.stash[addr], c)
	s.stashed++
	var extra []*conn
	if n := len(s.stash[addr]); n > 4 {
		extra = s.stash[addr][:n-4]
		s.stash[addr] = s.stash[addr][n-4:]
		s.stashed -= n - 4
	}
	if s.stashed > maxStashed {
		// Connections the other transport never came for (it had an idle one).
		for a, cs := range s.stash {
			if a != addr {
				extra = append(extra, cs...)
				s.stashed -= len(cs)
				delete(s.stash, a)
			}
		}
	}
	s.mu.Unlock()
	for _, e := range extra {
		e.Close()
	}
	return &switchProto{proto}
}

// take returns a connection to addr waiting in the stash, or nil.
func (s *protoSwitch) take(addr string) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.stash[addr]
	if len(cs) == 0 {
		return nil
	}
	c := cs[len(cs)-1]
	s.stash[addr] = cs[:len(cs)-1]
	s.stashed--
	if len(s.stash[addr]) == 0 {
		delete(s.stash, addr)
	}
	return c
}

// dialH1 dials for the HTTP/1.1 transport.
func (s *protoSwitch) dialH1(ctx context.Context, network, addr string) (net.Conn, error) {
	if c := s.take(addr); c != nil && c.proto != "h2" {
		return c, nil
	} else if c != nil {
		return nil, s.handOver(addr, c, "h2")
	}
	c, err := s.d.dialTLS(ctx, network, addr, s.offer())
	if err != nil {
		return nil, err
	}
	if c.proto == "h2" {
		c.h2 = newH2conn()
		return nil, s.handOver(addr, c, "h2")
	}
	return c, nil
}

// dialH2 dials for the HTTP/2 transport.
func (s *protoSwitch) dialH2(ctx context.Context, network, addr string) (net.Conn, error) {
	if c := s.take(addr); c != nil && c.proto == "h2" {
		return c, nil
	} else if c != nil {
		return nil, s.handOver(addr, c, "http/1.1")
	}
	c, err := s.d.dialTLS(ctx, network, addr, s.offer())
	if err != nil {
		return nil, err
	}
	switch {
	case c.proto == "h2":
		c.h2 = newH2conn()
		return c, nil
	case s.mode == HTTP2On:
		c.Close()
		return nil, &dialError{PhaseTLS, fmt.Errorf("%s does not speak HTTP/2: it chose %q at ALPN, and HTTP/2 is required", addr, c.proto)}
	}
	return nil, s.handOver(addr, c, "http/1.1")
}

// CloseIdleConnections closes both transports' idle connections and the stash.
func (s *protoSwitch) CloseIdleConnections() {
	s.h1.CloseIdleConnections()
	s.h2.CloseIdleConnections()
	s.mu.Lock()
	stash := s.stash
	s.stash, s.stashed = map[string][]*conn{}, 0
	s.mu.Unlock()
	for _, cs := range stash {
		for _, c := range cs {
			c.Close()
		}
	}
}
