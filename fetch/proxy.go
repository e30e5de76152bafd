package fetch

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Proxies. The address guard must hold through a proxy, and a proxy resolves
// and connects for its client: asked for a name, it would reach whatever the
// name resolves to, loopback and private networks included. So the client
// never gives a proxy a name. It resolves the target itself, checks each
// address as a direct dial does, and asks the proxy for a tunnel to the checked
// address (HTTP CONNECT 192.0.2.1:443, SOCKS5 CONNECT with an IP address);
// over the tunnel it speaks to the origin as it would directly: TLS with the
// target's name as SNI, the origin-form request with the name in Host. Plain
// http goes through a tunnel too, never as an absolute-form request the proxy
// would resolve. The records are those of a direct fetch, and RemoteIP is the
// target's address, not the proxy's.

// PhaseProxy names a failure of the proxy itself: it could not be reached,
// refused the credentials or would not open the tunnel. It is the value of
// [Error.Phase] for such failures.
const PhaseProxy = "proxy"

// ErrProxy is wrapped by every error of the proxy phase; the error's text
// names the proxy, its password replaced by "xxxxx".
var ErrProxy = errors.New("fetch: proxy")

// proxy is a parsed Options.Proxy with its NoProxy list.
type proxy struct {
	url     *url.URL // scheme http, https or socks5; Host with a port
	name    string   // the URL with the password redacted, for errors
	noProxy []hostPattern
	net     net.Dialer // no address guard: the proxy is the operator's choice
	tls     *tls.Config
}

// parseProxy checks an Options.Proxy value and its NoProxy list.
func parseProxy(raw string, noProxy []string, dialTimeout time.Duration, tlsConfig *tls.Config) (*proxy, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("fetch: Proxy: %v", err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	var port string
	switch u.Scheme {
	case "http":
		port = "80"
	case "https":
		port = "443"
	case "socks5":
		port = "1080"
	case "socks5h", "socks4", "socks4a":
		return nil, fmt.Errorf("fetch: Proxy %q: scheme %s is not supported: the crawler resolves names itself to check their addresses, so use socks5", u.Redacted(), u.Scheme)
	default:
		return nil, fmt.Errorf("fetch: Proxy %q: want an http://, https:// or socks5:// URL", u.Redacted())
	}
	if u.Hostname() == "" || u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return nil, fmt.Errorf("fetch: Proxy %q: want scheme://[user:password@]host[:port]", u.Redacted())
	}
	if u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), port)
	} else if _, err := strconv.ParseUint(u.Port(), 10, 16); err != nil {
		return nil, fmt.Errorf("fetch: Proxy %q: bad port", u.Redacted())
	}
	if u.Scheme == "socks5" && u.User != nil {
		p, _ := u.User.Password()
		if len(u.User.Username()) > 255 || len(p) > 255 {
			return nil, fmt.Errorf("fetch: Proxy %q: SOCKS5 user name and password are at most 255 bytes", u.Redacted())
		}
	}
	u.Path = ""
	p := &proxy{url: u, name: u.Redacted(), net: net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}}
	for _, s := range noProxy {
		hp, err := parseHostPattern(s)
		if err != nil {
			return nil, fmt.Errorf("fetch: NoProxy: %w", err)
		}
		p.noProxy = append(p.noProxy, hp)
	}
	if u.Scheme == "https" {
		if tlsConfig != nil {
			p.tls = tlsConfig.Clone()
		} else {
			p.tls = &tls.Config{}
		}
		p.tls.ServerName = u.Hostname()
		p.tls.NextProtos = []string{"http/1.1"}
	}
	return p, nil
}

// bypass reports whether host (a name or IP literal, without port) is reached
// directly, being matched by NoProxy.
func (p *proxy) bypass(host string) bool {
	for _, hp := range p.noProxy {
		if hp.match(host) {
			return true
		}
	}
	return false
}

// fail wraps err as a failure of the proxy, naming it.
func (p *proxy) fail(err error) *dialError {
	return &dialError{PhaseProxy, fmt.Errorf("%w %s: %w", ErrProxy, p.name, err)}
}

// tunnel returns a connection to target through the proxy. Every error is a
// proxy failure (*dialError of PhaseProxy), except a target the proxy reached
// but that refused (then the phase is connect), which the caller may try again
// on another address.
func (p *proxy) tunnel(ctx context.Context, target netip.AddrPort) (net.Conn, error) {
	nc, err := p.net.DialContext(ctx, "tcp", p.url.Host)
	if err != nil {
		return nil, p.fail(err)
	}
	// The handshake is bounded by ctx, like the dial it stands for.
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	c := nc
	if p.tls != nil {
		tc := tls.Client(nc, p.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, p.fail(fmt.Errorf("tls: %w", err))
		}
		c = tc
	}
	if p.url.Scheme == "socks5" {
		err = p.socks5(c, target)
	} else {
		c, err = p.connect(c, target)
	}
	if err == nil && !stop() {
		err = context.Cause(ctx)
	}
	if err != nil {
		nc.Close()
		var de *dialError
		if !errors.As(err, &de) {
			err = p.fail(err)
		}
		if ctx.Err() != nil {
			err = p.fail(context.Cause(ctx))
		}
		return nil, err
	}
	return c, nil
}

// connect asks an HTTP proxy for a tunnel to target.
func (p *proxy) connect(c net.Conn, target netip.AddrPort) (net.Conn, error) {
	hostport := target.String()
	req := "CONNECT " + hostport + " HTTP/1.1\r\nHost: " + hostport + "\r\n"
	if u := p.url.User; u != nil {
		pass, _ := u.Password()
		req += "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pass)) + "\r\n"
	}
	req += "\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(c, 1024)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		return nil, fmt.Errorf("reading the answer to CONNECT %s: %w", hostport, err)
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode/100 == 2:
	case resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout:
		// The proxy is fine; the target did not answer it.
		return nil, &dialError{PhaseConnect, fmt.Errorf("proxy %s: CONNECT %s: %s", p.name, hostport, resp.Status)}
	default:
		return nil, fmt.Errorf("CONNECT %s: %s", hostport, resp.Status)
	}
	if br.Buffered() > 0 {
		// The origin spoke first (nothing should, before the request): keep its bytes.
		return &bufferedConn{Conn: c, r: br}, nil
	}
	return c, nil
}

// bufferedConn is a conn whose first bytes were read into r.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// SOCKS5 (RFC 1928) with username/password authentication (RFC 1929).
const (
	socksVersion      = 5
	socksNoAuth       = 0
	socksUserPass     = 2
	socksNoAcceptable = 0xff
	socksConnect      = 1
	socksIPv4         = 1
	socksDomain       = 3
	socksIPv6         = 4
)

var socksReplies = []string{
	1: "general SOCKS server failure",
	2: "connection not allowed by ruleset",
	3: "network unreachable",
	4: "host unreachable",
	5: "connection refused",
	6: "TTL expired",
	7: "command not supported",
	8: "address type not supported",
}

// socks5 asks a SOCKS5 proxy on c for a connection to target, by address.
func (p *proxy) socks5(c net.Conn, target netip.AddrPort) error {
	methods := []byte{socksVersion, 1, socksNoAuth}
	if p.url.User != nil {
		methods = []byte{socksVersion, 2, socksNoAuth, socksUserPass}
	}
	if _, err := c.Write(methods); err != nil {
		return err
	}
	var b [2]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		return fmt.Errorf("socks5 greeting: %w", err)
	}
	if b[0] != socksVersion {
		return fmt.Errorf("socks5 greeting: version %d", b[0])
	}
	switch b[1] {
	case socksNoAuth:
	case socksUserPass:
		if p.url.User == nil {
			return errors.New("socks5: the proxy wants a user name and password")
		}
		user := p.url.User.Username()
		pass, _ := p.url.User.Password()
		auth := append([]byte{1, byte(len(user))}, user...)
		auth = append(append(auth, byte(len(pass))), pass...)
		if _, err := c.Write(auth); err != nil {
			return err
		}
		if _, err := io.ReadFull(c, b[:]); err != nil {
			return fmt.Errorf("socks5 authentication: %w", err)
		}
		if b[1] != 0 {
			return errors.New("socks5: user name or password refused")
		}
	case socksNoAcceptable:
		return errors.New("socks5: no acceptable authentication method")
	default:
		return fmt.Errorf("socks5: unknown authentication method %d", b[1])
	}

	req := []byte{socksVersion, socksConnect, 0}
	if a := target.Addr().Unmap(); a.Is4() {
		a4 := a.As4()
		req = append(append(req, socksIPv4), a4[:]...)
	} else {
		a16 := a.As16()
		req = append(append(req, socksIPv6), a16[:]...)
	}
	req = binary.BigEndian.AppendUint16(req, target.Port())
	if _, err := c.Write(req); err != nil {
		return err
	}
	var head [4]byte
	if _, err := io.ReadFull(c, head[:]); err != nil {
		return fmt.Errorf("socks5 connect: %w", err)
	}
	if head[0] != socksVersion {
		return fmt.Errorf("socks5 connect: version %d", head[0])
	}
	if rep := head[1]; rep != 0 {
		msg := fmt.Sprintf("reply %d", rep)
		if int(rep) < len(socksReplies) {
			msg = socksReplies[rep]
		}
		if rep >= 3 && rep <= 6 {
			// The proxy is fine; the target did not answer it.
			return &dialError{PhaseConnect, fmt.Errorf("proxy %s: socks5 connect %s: %s", p.name, target, msg)}
		}
		return fmt.Errorf("socks5 connect %s: %s", target, msg)
	}
	var skip int
	switch head[3] {
	case socksIPv4:
		skip = 4
	case socksIPv6:
		skip = 16
	case socksDomain:
		var n [1]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return fmt.Errorf("socks5 connect: %w", err)
		}
		skip = int(n[0])
	default:
		return fmt.Errorf("socks5 connect: address type %d", head[3])
	}
	if _, err := io.CopyN(io.Discard, c, int64(skip+2)); err != nil {
		return fmt.Errorf("socks5 connect: %w", err)
	}
	return nil
}

// dialProxy connects to addr (host:port) through the proxy: it resolves the
// host itself (or takes Options.Resolve's address), refuses the addresses the
// guard refuses, and asks the proxy for the first allowed address, then the
// next if the proxy reports that one unreachable.
func (d *dialer) dialProxy(ctx context.Context, addr string) (*conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &dialError{PhaseConnect, err}
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, &dialError{PhaseConnect, fmt.Errorf("port %q: %w", portStr, err)}
	}
	start := time.Now()
	var addrs []netip.Addr
	var dns time.Duration
	if to, ok := d.resolve[strings.ToLower(addr)]; ok {
		ap := netip.MustParseAddrPort(to) // checked by New
		addrs, port = []netip.Addr{ap.Addr()}, uint64(ap.Port())
	} else if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		r := d.net.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		lctx, cancel := context.WithTimeout(ctx, d.net.Timeout)
		addrs, err = r.LookupNetIP(lctx, "ip", host)
		cancel()
		if err != nil {
			return nil, &dialError{PhaseDNS, err}
		}
		dns = time.Since(start)
	}
	var refused error
	allowed := addrs[:0:0]
	for _, a := range addrs {
		if d.allow != nil && !d.allow(a) {
			if refused == nil {
				refused = fmt.Errorf("%s: %w", a.Unmap(), ErrForbiddenAddress)
			}
			continue
		}
		allowed = append(allowed, a.Unmap())
	}
	if len(allowed) == 0 {
		return nil, &dialError{PhasePolicy, refused}
	}
	tctx, cancel := context.WithTimeout(ctx, d.net.Timeout)
	defer cancel()
	var first error
	for _, a := range allowed {
		nc, err := d.proxy.tunnel(tctx, netip.AddrPortFrom(a, uint16(port)))
		if err == nil {
			c := &conn{Conn: nc, remote: a, dns: dns}
			c.connect = time.Since(start) - dns
			return c, nil
		}
		if first == nil {
			first = err
		}
		var de *dialError
		if errors.As(err, &de) && de.phase == PhaseProxy {
			break // the proxy itself failed: another address would not help
		}
	}
	return nil, first
}
