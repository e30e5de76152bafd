package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Wire capture. The transport writes each request and reads each response
// through the net.Conn our dialer returns, so a wrapper on that conn sees the real
// HTTP/1.1 bytes (plaintext: for https the wrapper sits on top of the tls.Conn,
// which is why the client does its own TLS handshake in DialTLSContext). A
// recorder is attached to the conn when the transport hands the conn to a
// request (httptrace GotConn, before the request is written) and detached when
// that request's body is done; in between the conn carries only that exchange.
// This is capture, not reconstruction: header order, case and spacing are as on
// the wire, including anything the transport adds.

const (
	maxRecordRequest = 64 << 10 // bytes of request kept
	maxRecordHeader  = 1 << 20  // bytes of response header scanned (the transport's own limit)
)

// conn is a net.Conn whose traffic can be recorded, with the timings of its dial.
type conn struct {
	net.Conn
	rec atomic.Pointer[recorder]

	// Set by the dialer before the conn is handed to the transport; read-only after.
	dns, connect, tls time.Duration
	remote            netip.Addr // the origin's address; RemoteAddr is the proxy's through a proxy
	proto             string     // the protocol chosen at ALPN: "h2", "http/1.1" or ""
	tlsVersion        string     // "tls/1.3" and the like; "" for plain http
	h2                *h2conn    // the HTTP/2 recording when proto is "h2"
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.h2 != nil {
		c.h2.in.feed(p[:n])
	} else if n > 0 {
		if r := c.rec.Load(); r != nil {
			r.read(p[:n])
		}
	}
	return n, err
}

func (c *conn) Write(p []byte) (int, error) {
	if c.h2 != nil {
		// Before the write: the answer may be read before Write returns.
		c.h2.out.feed(p)
		return c.Conn.Write(p)
	}
	n, err := c.Conn.Write(p)
	if n > 0 {
		if r := c.rec.Load(); r != nil {
			r.wrote(p[:n])
		}
	}
	return n, err
}

// recorder keeps the bytes of one exchange: everything written (the request)
// and what was read up to the end of the final response header. It is written by
// the transport's read and write goroutines and read by Fetch, hence the mutex.
type recorder struct {
	mu     sync.Mutex
	req    []byte
	resp   []byte // unfinished or finished header block
	scan   int    // resp[:scan] holds no header end
	done   bool   // resp is the complete final header
	failed bool   // gave up: header too large
}

func (r *recorder) wrote(p []byte) {
	r.mu.Lock()
	if room := maxRecordRequest - len(r.req); room > 0 {
		r.req = append(r.req, p[:min(len(p), room)]...)
	}
	r.mu.Unlock()
}

func (r *recorder) read(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.failed {
		return
	}
	if len(r.resp) == 0 {
		// Most often the first read holds the whole header and the start of the body:
		// keep a copy of the header alone.
		if end := headerEnd(p, 0); end >= 0 && !interim(p[:end]) {
			r.resp = append(make([]byte, 0, end), p[:end]...)
			r.done = true
			return
		}
	}
	r.resp = append(r.resp, p...)
	for {
		end := headerEnd(r.resp, r.scan)
		if end < 0 {
			if len(r.resp) > maxRecordHeader {
				r.failed = true
				r.resp = nil
				return
			}
			r.scan = max(0, len(r.resp)-2)
			return
		}
		if !interim(r.resp[:end]) {
			r.resp = r.resp[:end:end]
			r.done = true
			return
		}
		// A 1xx interim response (100 Continue, 103 Early Hints): the transport
		// skips it, and so does the record; the final header follows.
		r.resp = append(r.resp[:0], r.resp[end:]...)
		r.scan = 0
	}
}

// request returns the bytes written, or nil if nothing was.
func (r *recorder) request() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.req
}

// header returns the final response header block, or nil if it was not seen whole.
func (r *recorder) header() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.done || !bytes.HasPrefix(r.resp, []byte("HTTP/")) {
		return nil
	}
	return r.resp
}

// headerEnd returns the index just past the blank line ending the header block
// that starts at b[0], or -1. Lines end in CRLF or, leniently as net/textproto
// reads them, a bare LF. The search starts at from, which must not be inside a
// line ending.
func headerEnd(b []byte, from int) int {
	for i := from; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		k := i + j + 1 // just past this LF
		if k < len(b) && b[k] == '\n' {
			return k + 1
		}
		if k+1 < len(b) && b[k] == '\r' && b[k+1] == '\n' {
			return k + 2
		}
		if k+1 >= len(b) {
			return -1 // the next line is not complete enough to tell
		}
		i = k
	}
	return -1
}

// interim reports whether a header block is a 1xx response other than 101.
func interim(block []byte) bool {
	// "HTTP/1.1 103 ..." — status code at bytes 9..11.
	if len(block) < 12 || !bytes.HasPrefix(block, []byte("HTTP/")) {
		return false
	}
	sp := bytes.IndexByte(block, ' ')
	if sp < 0 || len(block) < sp+4 {
		return false
	}
	code := block[sp+1 : sp+4]
	return code[0] == '1' && string(code) != "101"
}

// dialer opens the client's connections: resolve override, network policy at
// connect time, TLS with HTTP/1.1 ALPN, timing of each step, and the recording
// wrapper.
type dialer struct {
	net        net.Dialer
	resolve    map[string]string // lower-case "host:port" -> "ip:port"
	tlsConfig  *tls.Config
	tlsTimeout time.Duration
	allow      func(netip.Addr) bool // the address guard; nil allows every address
	proxy      *proxy                // nil: every connection is direct
}

// control is a net.Dialer.Control function: it runs after the name is
// resolved and before connect(2), on the very address being dialed, so neither a
// resolve override nor DNS rebinding can reach a refused address.
func (d *dialer) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%s %q: %w", network, address, ErrForbiddenAddress)
	}
	if !d.allow(ap.Addr()) {
		return fmt.Errorf("%s: %w", ap.Addr(), ErrForbiddenAddress)
	}
	return nil
}

// dialError carries the phase a dial failed in through the transport.
type dialError struct {
	phase string
	err   error
}

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return d.dialTCP(ctx, network, addr)
}

func (d *dialer) dialTCP(ctx context.Context, network, addr string) (*conn, error) {
	if d.proxy != nil {
		if host, _, err := net.SplitHostPort(addr); err == nil && !d.proxy.bypass(host) {
			return d.dialProxy(ctx, addr)
		}
	}
	target := addr
	if to, ok := d.resolve[strings.ToLower(addr)]; ok {
		target = to
	}
	var dnsStart, dnsDone time.Time
	// The resolver calls these synchronously from this goroutine.
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		DNSStart: func(httptrace.DNSStartInfo) { dnsStart = time.Now() },
		DNSDone:  func(httptrace.DNSDoneInfo) { dnsDone = time.Now() },
	})
	start := time.Now()
	nc, err := d.net.DialContext(ctx, network, target)
	if err != nil {
		phase := PhaseConnect
		var de *net.DNSError
		switch {
		case errors.Is(err, ErrForbiddenAddress):
			phase = PhasePolicy
		case errors.As(err, &de):
			phase = PhaseDNS
		}
		return nil, &dialError{phase, err}
	}
	c := &conn{Conn: nc}
	if ta, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		c.remote = ta.AddrPort().Addr().Unmap()
	}
	total := time.Since(start)
	if !dnsDone.IsZero() && !dnsStart.IsZero() {
		c.dns = dnsDone.Sub(dnsStart)
	}
	c.connect = total - c.dns
	return c, nil
}

// dialTLS dials addr and does the TLS handshake offering protos at ALPN.
func (d *dialer) dialTLS(ctx context.Context, network, addr string, protos []string) (*conn, error) {
	c, err := d.dialTCP(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		c.Close()
		return nil, &dialError{PhaseTLS, err}
	}
	var cfg *tls.Config
	if d.tlsConfig != nil {
		cfg = d.tlsConfig.Clone()
	} else {
		cfg = &tls.Config{}
	}
	cfg.ServerName = host
	cfg.NextProtos = protos
	tc := tls.Client(c.Conn, cfg)
	hctx, cancel := context.WithTimeout(ctx, d.tlsTimeout)
	start := time.Now()
	err = tc.HandshakeContext(hctx)
	cancel()
	if err != nil {
		tc.Close()
		if strings.Contains(err.Error(), "no application protocol") {
			err = &alpnError{err, protos}
		}
		return nil, &dialError{PhaseTLS, err}
	}
	c.tls = time.Since(start)
	st := tc.ConnectionState()
	c.proto = st.NegotiatedProtocol
	c.tlsVersion = tlsVersion(st.Version)
	c.Conn = tc // record plaintext
	return c, nil
}

// alpnError is a handshake the server ended for want of a protocol in common.
type alpnError struct {
	err     error
	offered []string
}

func (e *alpnError) Error() string {
	return e.err.Error() + " (the client offered " + strings.Join(e.offered, " and ") + " at ALPN)"
}

func (e *alpnError) Unwrap() []error { return []error{ErrALPN, e.err} }

// tlsVersion names a TLS version as WARC-Protocol does ("tls/1.3").
func tlsVersion(v uint16) string {
	switch v {
	case tls.VersionTLS10:
		return "tls/1.0"
	case tls.VersionTLS11:
		return "tls/1.1"
	case tls.VersionTLS12:
		return "tls/1.2"
	case tls.VersionTLS13:
		return "tls/1.3"
	}
	return ""
}
