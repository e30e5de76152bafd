package fetch

import (
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Defaults applied by [New] to zero fields of [Options].
const (
	DefaultDialTimeout     = 10 * time.Second
	DefaultTLSTimeout      = 10 * time.Second
	DefaultHeaderTimeout   = 30 * time.Second
	DefaultTimeout         = 60 * time.Second
	DefaultIdleTimeout     = 90 * time.Second
	DefaultMaxBodySize     = 4 << 20 // bytes
	DefaultMaxDecodedSize  = 8 << 20 // bytes
	DefaultMaxRatio        = 100
	DefaultMaxConnsPerHost = 2
	DefaultMaxIdleConns    = 8192
	DefaultHTTP2           = HTTP2Off
)

// ErrUserAgent is wrapped by the error [ValidateUserAgent] (and [New]) return for an
// unusable User-Agent.
var ErrUserAgent = errors.New("fetch: invalid user agent")

// Options configure a [Client]. The zero value of every field except UserAgent
// means its default.
type Options struct {
	// UserAgent is sent with every request. It is required and must start with a
	// product token of letters, '_' and '-' (the token robots.txt groups match),
	// such as "ExampleBot/1.0 (+https://example.org/bot)". It should carry a
	// contact URL or e-mail address; New records a warning (see Client.Warnings)
	// when it does not.
	UserAgent string

	// DialTimeout bounds name resolution plus TCP connect; zero means 10 s.
	DialTimeout time.Duration
	// TLSTimeout bounds the TLS handshake; zero means 10 s.
	TLSTimeout time.Duration
	// HeaderTimeout bounds the wait for the response header after the request is
	// written; zero means 30 s.
	HeaderTimeout time.Duration
	// Timeout bounds a whole Fetch call, from dial to the last body byte and
	// across every followed redirect; zero means 60 s. It ends slow-loris servers.
	Timeout time.Duration
	// IdleTimeout is how long an idle keep-alive connection stays in the pool;
	// zero means 90 s.
	IdleTimeout time.Duration

	// MaxBodySize caps the body as received (before content decoding), in bytes;
	// zero means 4 MiB. Beyond it the body is cut and Response.Truncated is set.
	MaxBodySize int64
	// MaxDecodedSize caps the decoded body, in bytes; zero means 8 MiB.
	MaxDecodedSize int64
	// MaxRatio caps decoded size to MaxRatio times the received size once more
	// than 1 MiB has been decoded; zero means 100. With MaxDecodedSize it makes a
	// compression bomb cost next to nothing.
	MaxRatio int

	// AcceptTypes lists the media types ("text/html") or type wildcards
	// ("text/*") whose body is read. A response of another type is returned with
	// its header only and Response.Skipped set; a response without Content-Type
	// is read. Nil means every type. The list is also sent as the Accept header.
	AcceptTypes []string

	// AllowPrivate allows loopback, private, link-local and other non-public
	// addresses (see PublicAddr); by default they are refused at dial time.
	AllowPrivate bool
	// Resolve maps "host:port" to "ip:port" (or just "ip", keeping the port) for
	// the connection, like curl --resolve; the URL, Host header and TLS server
	// name are unchanged. The network policy still applies to the mapped address.
	Resolve map[string]string
	// Resolver, if not nil, looks host names up instead of the system's resolver
	// (for tests, or a DNS server of one's own). The network policy still applies
	// to the addresses it returns.
	Resolver *net.Resolver

	// Proxy, if not empty, is the proxy every connection goes through:
	// "http://host:port" or "https://host:port" (a CONNECT tunnel; https speaks
	// TLS to the proxy, trusting what TLSConfig trusts) or "socks5://host:port",
	// each with optional "user:password@" (Basic for http and https, RFC 1929 for
	// SOCKS5). The client resolves the target's name itself, refuses the
	// addresses the network policy refuses, and asks the proxy for a tunnel to the
	// allowed IP address, never for a name, so a proxy cannot reach a refused
	// address. A proxy that fails is an *Error of PhaseProxy naming it (password
	// redacted); there is no fallback to a direct connection. Empty means direct
	// connections; the environment's HTTP_PROXY and the like are never read.
	Proxy string
	// NoProxy lists the hosts reached directly when Proxy is set: "*", a host
	// name (it and the names under it, "example.org" or ".example.org"), "=name"
	// (that name alone), an IP address or a CIDR prefix (matched against IP
	// addresses written as the URL's host).
	NoProxy []string

	// Headers are extra request headers by host pattern; where patterns overlap,
	// the most specific sets a field last. New refuses the fields the client owns
	// (Host, User-Agent, Accept-Encoding, conditional and hop-by-hop fields) and
	// Authorization and Cookie, which go in Auth and Jar so that they reach only
	// their hosts.
	Headers []HostHeader
	// Auth holds credentials by host pattern, sent with every request whose
	// URL's host matches (the most specific pattern wins) and with no other, so a
	// redirect to another host carries none.
	Auth []HostAuth
	// Jar, if not nil, gives the cookies of each request (by its URL: domain,
	// path, secure) and takes the Set-Cookie fields of each response, hop by hop.
	// See [Jar]. Nil sends no cookies.
	Jar http.CookieJar

	// HTTP2 is HTTP2Off (HTTP/1.1 only), HTTP2Auto (offer h2 and http/1.1 at
	// ALPN over TLS; the server chooses) or HTTP2On (HTTP/2 over TLS, a server
	// without it an error). Plain http is HTTP/1.1 in every mode. Empty means
	// DefaultHTTP2.
	HTTP2 string

	// MaxConnsPerHost caps connections (active and idle) per scheme+host+port;
	// zero means 2.
	MaxConnsPerHost int
	// MaxIdleConns caps idle connections kept across all hosts; zero means 8192.
	// Go's default of 100 makes connections churn once more than 100 hosts are
	// crawled at once.
	MaxIdleConns int

	// TLSConfig, if not nil, is cloned for every TLS connection (for example to
	// trust a private root CA). The server name and ALPN (see HTTP2) are always
	// set by the client. Nil means the system roots and Go's defaults.
	TLSConfig *tls.Config
}

// ValidateUserAgent checks a User-Agent value. It returns an error wrapping
// ErrUserAgent if ua is empty, contains control characters or does not start
// with a product token of letters, '_' and '-'; otherwise a non-empty warning
// when ua carries no contact (an http(s) URL or an e-mail address).
func ValidateUserAgent(ua string) (warning string, err error) {
	if ua == "" {
		return "", fmt.Errorf("%w: empty", ErrUserAgent)
	}
	for i := 0; i < len(ua); i++ {
		if c := ua[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return "", fmt.Errorf("%w: control character at byte %d", ErrUserAgent, i)
		}
	}
	n := len(ProductToken(ua))
	if n == 0 {
		return "", fmt.Errorf("%w: %q does not start with a product token of letters, '_' and '-'", ErrUserAgent, ua)
	}
	if n < len(ua) {
		switch ua[n] {
		case '/', ' ', '\t', '(', ';':
		default:
			return "", fmt.Errorf("%w: %q: product token ends in %q", ErrUserAgent, ua, ua[n])
		}
	}
	lower := strings.ToLower(ua)
	if !strings.Contains(lower, "http://") && !strings.Contains(lower, "https://") && !strings.Contains(ua, "@") {
		return fmt.Sprintf("fetch: user agent %q has no contact URL; site owners cannot reach you", ua), nil
	}
	return "", nil
}

// ProductToken returns the leading run of letters, '_' and '-' of ua: the token
// that robots.txt user-agent lines are matched against ("ExampleBot" for
// "ExampleBot/1.0 (+https://example.org/bot)").
func ProductToken(ua string) string {
	i := 0
	for i < len(ua) {
		c := ua[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-' {
			i++
			continue
		}
		break
	}
	return ua[:i]
}

// withDefaults validates o and returns a copy with zero fields set to defaults,
// the warnings it has, and the parsed resolve map.
func (o Options) withDefaults() (Options, []string, map[string]string, error) {
	warn, err := ValidateUserAgent(o.UserAgent)
	if err != nil {
		return o, nil, nil, err
	}
	var warnings []string
	if warn != "" {
		warnings = append(warnings, warn)
	}
	durations := []struct {
		name string
		d    *time.Duration
		def  time.Duration
	}{
		{"DialTimeout", &o.DialTimeout, DefaultDialTimeout},
		{"TLSTimeout", &o.TLSTimeout, DefaultTLSTimeout},
		{"HeaderTimeout", &o.HeaderTimeout, DefaultHeaderTimeout},
		{"Timeout", &o.Timeout, DefaultTimeout},
		{"IdleTimeout", &o.IdleTimeout, DefaultIdleTimeout},
	}
	for _, d := range durations {
		if *d.d < 0 {
			return o, nil, nil, fmt.Errorf("fetch: %s %v is negative", d.name, *d.d)
		}
		if *d.d == 0 {
			*d.d = d.def
		}
	}
	ints := []struct {
		name string
		v    *int64
		def  int64
	}{
		{"MaxBodySize", &o.MaxBodySize, DefaultMaxBodySize},
		{"MaxDecodedSize", &o.MaxDecodedSize, DefaultMaxDecodedSize},
	}
	for _, n := range ints {
		if *n.v < 0 {
			return o, nil, nil, fmt.Errorf("fetch: %s %d is negative", n.name, *n.v)
		}
		if *n.v == 0 {
			*n.v = n.def
		}
	}
	smalls := []struct {
		name string
		v    *int
		def  int
	}{
		{"MaxRatio", &o.MaxRatio, DefaultMaxRatio},
		{"MaxConnsPerHost", &o.MaxConnsPerHost, DefaultMaxConnsPerHost},
		{"MaxIdleConns", &o.MaxIdleConns, DefaultMaxIdleConns},
	}
	for _, n := range smalls {
		if *n.v < 0 {
			return o, nil, nil, fmt.Errorf("fetch: %s %d is negative", n.name, *n.v)
		}
		if *n.v == 0 {
			*n.v = n.def
		}
	}
	switch o.HTTP2 {
	case "":
		o.HTTP2 = DefaultHTTP2
	case HTTP2Off, HTTP2Auto, HTTP2On:
	default:
		return o, nil, nil, fmt.Errorf("fetch: HTTP2 %q: want off, auto or on", o.HTTP2)
	}
	for _, t := range o.AcceptTypes {
		if err := checkMediaRange(t); err != nil {
			return o, nil, nil, err
		}
	}
	resolve := make(map[string]string, len(o.Resolve))
	for from, to := range o.Resolve {
		host, port, err := net.SplitHostPort(from)
		if err != nil || host == "" || port == "" {
			return o, nil, nil, fmt.Errorf("fetch: Resolve key %q: want host:port", from)
		}
		port16, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return o, nil, nil, fmt.Errorf("fetch: Resolve key %q: bad port", from)
		}
		ap, err := netip.ParseAddrPort(to)
		if err != nil {
			a, err2 := netip.ParseAddr(to)
			if err2 != nil {
				return o, nil, nil, fmt.Errorf("fetch: Resolve[%q] = %q: want ip:port or ip", from, to)
			}
			ap = netip.AddrPortFrom(a, uint16(port16))
		}
		resolve[strings.ToLower(net.JoinHostPort(host, port))] = ap.String()
	}
	return o, warnings, resolve, nil
}

// checkMediaRange accepts "type/subtype" and "type/*" (and "*/*").
func checkMediaRange(t string) error {
	mt, _, err := mime.ParseMediaType(t)
	if err != nil {
		return fmt.Errorf("fetch: AcceptTypes %q: %v", t, err)
	}
	typ, sub, ok := strings.Cut(mt, "/")
	if !ok || typ == "" || sub == "" || typ == "*" && sub != "*" {
		return fmt.Errorf("fetch: AcceptTypes %q: want type/subtype or type/*", t)
	}
	return nil
}
