package crawl

import (
	"errors"
	"fmt"
	"net"

	"github.com/politecrawl/crawl/fetch"
)

// permanentFailure describes a fetch error that trying again cannot cure and that a
// configuration change may: an address refused by policy, a TLS certificate that does
// not verify, a host name that does not exist. It returns what failed and the fix, or
// ok false for any other error.
func permanentFailure(err error) (what, fix string, ok bool) {
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Temporary() {
		return "", "", false
	}
	var de *net.DNSError
	switch {
	case errors.Is(err, fetch.ErrForbiddenAddress):
		return "address refused: it is loopback, private or otherwise not public",
			"to crawl it, allow such addresses with -allow-private (network.allow_private: true)", true
	case fe.Phase == fetch.PhaseTLS:
		return "TLS certificate not trusted",
			"trust the site's CA with fetch.ca_file, or, knowing the risk, set fetch.insecure_skip_verify: true", true
	case fe.Phase == fetch.PhaseDNS && errors.As(err, &de) && de.IsNotFound:
		return "host name does not exist (DNS)", "check the URL's host name", true
	}
	return "", "", false
}

// reportPermanent logs a permanent failure at WARN, which reaches stderr, with its fix;
// it reports whether err was one.
func (c *Crawler) reportPermanent(url string, err error) bool {
	what, fix, ok := permanentFailure(err)
	if ok {
		c.log.Warn(fmt.Sprintf("cannot fetch %s: %s; %s", url, what, fix), "err", err)
	}
	return ok
}
