package crawl

import (
	"errors"
	"fmt"
	"net"

	"github.com/politecrawl/crawl/fetch"
)

// ErrAddressRefused is wrapped by the error of a fetch whose address the
// configuration does not allow: loopback, private, link-local or otherwise not public
// (network.allow_private allows them).
var ErrAddressRefused = fetch.ErrForbiddenAddress

// Cause is why a fetch failed for good in a way that a configuration change may cure.
type Cause int

// The causes of a PermanentError.
const (
	// AddressRefused: the host's address is not public and network.allow_private is off.
	AddressRefused Cause = iota + 1
	// CertificateUntrusted: the site's TLS certificate does not verify against the
	// system's roots and fetch.ca_file.
	CertificateUntrusted
	// NoSuchHost: DNS says the host name does not exist.
	NoSuchHost
	// NoCommonProtocol: the server ended the TLS handshake finding no HTTP version
	// in common with those fetch.http2 offers at ALPN (a server that speaks HTTP/2
	// only, and fetch.http2 off).
	NoCommonProtocol
)

func (c Cause) String() string {
	switch c {
	case AddressRefused:
		return "address refused: it is loopback, private or otherwise not public"
	case CertificateUntrusted:
		return "TLS certificate not trusted"
	case NoSuchHost:
		return "host name does not exist (DNS)"
	case NoCommonProtocol:
		return "no HTTP version in common with the server (TLS ALPN)"
	}
	return fmt.Sprintf("Cause(%d)", int(c))
}

// PermanentError is a fetch failure that trying again cannot cure and that a
// configuration change may. The crawl goes on without the URL; Crawler.OnPermanent
// hears of each one.
type PermanentError struct {
	URL   string
	Cause Cause
	Err   error // the fetch's error, a *fetch.Error
}

// Error says the cause, then the fetch's error, which names the URL.
func (e *PermanentError) Error() string { return e.Cause.String() + ": " + e.Err.Error() }

func (e *PermanentError) Unwrap() error { return e.Err }

// permanentFailure returns err as a *PermanentError when it is one, nil otherwise.
func permanentFailure(url string, err error) *PermanentError {
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Temporary() {
		return nil
	}
	var de *net.DNSError
	switch {
	case errors.Is(err, ErrAddressRefused):
		return &PermanentError{URL: url, Cause: AddressRefused, Err: err}
	case errors.Is(err, fetch.ErrALPN):
		return &PermanentError{URL: url, Cause: NoCommonProtocol, Err: err}
	case fe.Phase == fetch.PhaseTLS:
		return &PermanentError{URL: url, Cause: CertificateUntrusted, Err: err}
	case fe.Phase == fetch.PhaseDNS && errors.As(err, &de) && de.IsNotFound:
		return &PermanentError{URL: url, Cause: NoSuchHost, Err: err}
	}
	return nil
}

// configFix is the change of configuration that may cure a cause.
func configFix(c Cause) string {
	switch c {
	case AddressRefused:
		return "to crawl it, set network.allow_private: true"
	case CertificateUntrusted:
		return "trust the site's CA with fetch.ca_file, or, knowing the risk, set fetch.insecure_skip_verify: true"
	case NoSuchHost:
		return "check the URL's host name"
	case NoCommonProtocol:
		return "a server that speaks HTTP/2 only needs fetch.http2: auto (or on); with fetch.http2: on, one without HTTP/2 needs auto"
	}
	return ""
}

// reportPermanent reports a permanent failure, when err is one, and says whether it
// was: to OnPermanent when it is set (and crawl.log), otherwise as a warning, which
// reaches Stderr, naming the configuration key that may cure it.
func (c *Crawler) reportPermanent(url string, err error) bool {
	pe := permanentFailure(url, err)
	if pe == nil {
		return false
	}
	if c.OnPermanent != nil {
		c.fileLog.Warn(pe.Error(), "cause", pe.Cause.String())
		c.counters.warnings.Add(1) // the caller warns (Summary.Warnings)
		c.OnPermanent(pe)
		return true
	}
	c.log.Warn(fmt.Sprintf("cannot fetch %s: %s; %s", url, pe.Cause, configFix(pe.Cause)), "err", err)
	return true
}
