package config

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
)

// TLS returns the TLS configuration fetch.ca_file and fetch.insecure_skip_verify ask
// for, or nil for the system's defaults (the system roots, verified). A CA file that
// cannot be read or holds no PEM certificate is an *Error naming fetch.ca_file.
// Commands that fetch outside a crawl (crawl robots) use it so that they trust what
// the crawl trusts.
func (f Fetch) TLS() (*tls.Config, error) {
	if f.CAFile == "" && !f.InsecureSkipVerify {
		return nil, nil
	}
	cfg := &tls.Config{InsecureSkipVerify: f.InsecureSkipVerify} //nolint:gosec // an explicit, loud option
	if f.CAFile != "" {
		bad := func(err error) error { return &Error{Field: "fetch.ca_file", Value: f.CAFile, Err: err} }
		pem, err := os.ReadFile(f.CAFile)
		if err != nil {
			return nil, bad(err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, bad(errors.New("no PEM certificate in the file"))
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}
