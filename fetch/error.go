package fetch

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
)

// Phases name the step of a fetch that failed; they are the values of [Error.Phase].
const (
	PhaseDNS      = "dns"      // resolving the host name
	PhaseConnect  = "connect"  // opening the TCP connection
	PhaseTLS      = "tls"      // the TLS handshake
	PhaseTimeout  = "timeout"  // any deadline: dial, TLS, response header or the whole request
	PhaseRead     = "read"     // writing the request or reading the response
	PhasePolicy   = "policy"   // refused before any byte was sent: scheme or address not allowed
	PhaseRedirect = "redirect" // a followed redirect chain looped or ran too long
	PhaseCanceled = "canceled" // the caller's context was canceled
)

// Sentinel errors wrapped by [Error]; test for them with [errors.Is].
var (
	// ErrForbiddenAddress: the resolved address is loopback, private, link-local,
	// multicast, unspecified or otherwise not public, and Options.AllowPrivate is false.
	ErrForbiddenAddress = errors.New("fetch: address not allowed")
	// ErrScheme: the URL's scheme is neither http nor https, or the URL has no host.
	ErrScheme = errors.New("fetch: only http and https URLs with a host are fetched")
	// ErrTooManyRedirects: more than Request.FollowRedirects redirects in a row.
	ErrTooManyRedirects = errors.New("fetch: too many redirects")
	// ErrALPN: the server ended the TLS handshake finding no protocol in common
	// with those the client offered at ALPN (see Options.HTTP2): a server that
	// speaks HTTP/2 only, refusing http/1.1, or one without HTTP/2 when it is
	// required.
	ErrALPN = errors.New("fetch: no protocol in common at ALPN")
	// ErrRedirectLoop: a followed redirect pointed back to a URL already fetched in
	// the same chain.
	ErrRedirectLoop = errors.New("fetch: redirect loop")
)

// Error describes a fetch that produced no usable response. HTTP error statuses
// (404, 429, 500, …) are not errors: they come back as a [Response].
type Error struct {
	URL   string // the URL being fetched when the failure happened
	Phase string // one of the Phase constants
	Err   error  // the underlying error
}

// Error returns "fetch: <phase> <url>: <err>", naming the package once: when the cause
// is one of the package's own errors (such as ErrForbiddenAddress inside a
// *net.OpError), which names it already, "<phase> <url>: <err>".
func (e *Error) Error() string {
	if ours(e.Err) {
		return e.Phase + " " + e.URL + ": " + e.Err.Error()
	}
	return "fetch: " + e.Phase + " " + e.URL + ": " + e.Err.Error()
}

// ours reports whether err carries one of the package's sentinels, whose text names
// the package.
func ours(err error) bool {
	for _, s := range []error{ErrForbiddenAddress, ErrScheme, ErrTooManyRedirects, ErrRedirectLoop,
		ErrDecodeLimit, ErrUnsupportedEncoding, ErrUserAgent, ErrProxy, errNilRequest} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Timeout reports whether the failure was a deadline (Phase is PhaseTimeout).
func (e *Error) Timeout() bool { return e.Phase == PhaseTimeout }

// Temporary reports whether the same request may succeed if tried again later:
// true for timeouts, connection and read failures, DNS failures other than "no
// such host", TLS failures other than certificate errors and ALPN refusals, and
// cancellation; false for policy refusals, redirect loops, certificate errors
// and ALPN refusals.
func (e *Error) Temporary() bool {
	switch e.Phase {
	case PhasePolicy, PhaseRedirect:
		return false
	case PhaseDNS:
		var de *net.DNSError
		if errors.As(e.Err, &de) && de.IsNotFound {
			return false
		}
		return true
	case PhaseTLS:
		return !isCertError(e.Err) && !errors.Is(e.Err, ErrALPN)
	}
	return true
}

func isCertError(err error) bool {
	var (
		cv *tls.CertificateVerificationError
		ua x509.UnknownAuthorityError
		hn x509.HostnameError
		ci x509.CertificateInvalidError
	)
	return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci)
}

// errNilRequest is the cause of a Fetch given no request.
var errNilRequest = errors.New("fetch: nil request")
