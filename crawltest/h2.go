package crawltest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"slices"
	"time"
)

// ServeHTTP2 is ServeHTTPS("h2"): the farm over HTTP/2 only, HTTP/1.1 refused
// at ALPN.
func (f *Farm) ServeHTTP2() (caPEM []byte, err error) { return f.ServeHTTPS("h2") }

// ServeHTTPS serves the farm's sites over https too, on a second listener on
// 127.0.0.1 that speaks the given protocols, "h2" and "http/1.1". Without
// "http/1.1" a client that does not offer h2 at ALPN is refused in the TLS
// handshake (no_application_protocol), as an h2-only server refuses it. Its
// certificate names every farm host and is signed by a CA made for the farm,
// returned as PEM for a crawler's trusted roots (fetch.ca_file). Requests are
// recorded and audited as the plain ones are (a farm URL is its host and path;
// the scheme is not part of it), and TLSHandshakes counts the handshakes. The
// crawler reaches it through [Farm.ResolveHTTPS]. Call it once, before crawling.
func (f *Farm) ServeHTTPS(protos ...string) (caPEM []byte, err error) {
	h1, h2 := slices.Contains(protos, "http/1.1"), slices.Contains(protos, "h2")
	if !h1 && !h2 {
		return nil, fmt.Errorf("crawltest: ServeHTTPS(%q): want h2, http/1.1 or both", protos)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("crawltest: %w", err)
	}
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "crawltest farm CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("crawltest: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("crawltest: %w", err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "crawltest farm"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	for _, s := range f.sites {
		leaf.DNSNames = append(leaf.DNSNames, s.host)
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("crawltest: %w", err)
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER, caDER}, PrivateKey: key}},
		NextProtos:   protos,
	}
	cfg.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		f.handshakes.Add(1)
		if h1 || slices.Contains(hello.SupportedProtos, "h2") {
			return nil, nil
		}
		// Go's server would let an http/1.1 client in without ALPN; an h2-only
		// server refuses it, which a protocol of no client's does.
		refuse := cfg.Clone()
		refuse.GetConfigForClient, refuse.NextProtos = nil, []string{"x-crawltest-h2-only"}
		return refuse, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("crawltest: %w", err)
	}
	protocols := new(http.Protocols)
	protocols.SetHTTP2(h2)
	protocols.SetHTTP1(h1)
	srv := &http.Server{
		Handler:           http.HandlerFunc(f.serve),
		TLSConfig:         cfg,
		Protocols:         protocols,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Minute,
		ErrorLog:          log.New(io.Discard, "", 0), // refused handshakes are the point
	}
	f.mu.Lock()
	f.h2srv, f.h2addr = srv, ln.Addr().String()
	f.mu.Unlock()
	go srv.ServeTLS(ln, "", "") //nolint:errcheck // returns ErrServerClosed on Close
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), nil
}

// TLSHandshakes returns how many TLS handshakes the https listener began.
func (f *Farm) TLSHandshakes() int64 { return f.handshakes.Load() }

// ResolveHTTPS maps each farm host's "HOST:443" to the HTTP/2 listener of
// [Farm.ServeHTTP2], for fetch.Options.Resolve; empty before ServeHTTP2.
func (f *Farm) ResolveHTTPS() map[string]string {
	f.mu.Lock()
	addr := f.h2addr
	f.mu.Unlock()
	m := make(map[string]string, len(f.sites))
	if addr == "" {
		return m
	}
	for _, s := range f.sites {
		m[s.host+":443"] = addr
	}
	return m
}
