package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

var linkCounter atomic.Int64

// joinPublishConsume joins with cfg, hands a new link to itself and takes it back in.
func joinPublishConsume(t *testing.T, cfg Config) error {
	t.Helper()
	n, err := Join(context.Background(), cfg)
	if err != nil {
		return err
	}
	defer n.Close()
	c := newCollector()
	stop := consume(t, n, c)
	defer stop()
	if err := n.Publish(context.Background(), linksFor(t, 0, 1, int(linkCounter.Add(1)), 1)); err != nil {
		return err
	}
	waitFor(t, "the link", func() bool { return c.count() == 1 })
	return nil
}

func TestUserPassword(t *testing.T) {
	s := startServer(t, func(o *server.Options) { o.Username, o.Password = "crawler", "s3cret" })
	cfg := testConfig(s, "a", 1, 0)
	cfg.User, cfg.Password = "crawler", "wrong"
	if err := joinPublishConsume(t, cfg); err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Errorf("wrong password: %v, want an authorization error", err)
	}
	cfg.Password = "s3cret"
	if err := joinPublishConsume(t, cfg); err != nil {
		t.Errorf("right password: %v", err)
	}
	// As NATS users also write it: in the URL. Errors do not show the password.
	cfg.User, cfg.Password = "", ""
	cfg.URL = strings.Replace(s.URL(), "nats://", "nats://crawler:s3cret@", 1)
	if err := joinPublishConsume(t, cfg); err != nil {
		t.Errorf("password in the URL: %v", err)
	}
	cfg.URL = strings.Replace(s.URL(), "nats://", "nats://crawler:wrong@", 1)
	if err := joinPublishConsume(t, cfg); err == nil || strings.Contains(err.Error(), "wrong") {
		t.Errorf("wrong password in the URL: %v, want an error without the password", err)
	}
}

func TestToken(t *testing.T) {
	s := startServer(t, func(o *server.Options) { o.Authorization = "t0ken" })
	cfg := testConfig(s, "a", 1, 0)
	if err := joinPublishConsume(t, cfg); err == nil {
		t.Error("no token: joined")
	}
	cfg.Token = "t0ken"
	if err := joinPublishConsume(t, cfg); err != nil {
		t.Errorf("token: %v", err)
	}
}

// TestCredsFile: a NATS credentials file (user JWT and seed) in operator mode.
func TestCredsFile(t *testing.T) {
	okp, _ := nkeys.CreateOperator()
	opub, _ := okp.PublicKey()
	skp, _ := nkeys.CreateAccount() // the system account JetStream needs
	spub, _ := skp.PublicKey()
	sjwt, err := jwt.NewAccountClaims(spub).Encode(okp)
	if err != nil {
		t.Fatal(err)
	}
	oc := jwt.NewOperatorClaims(opub)
	oc.SystemAccount = spub
	ojwt, err := oc.Encode(okp)
	if err != nil {
		t.Fatal(err)
	}
	operator, err := jwt.DecodeOperatorClaims(ojwt)
	if err != nil {
		t.Fatal(err)
	}
	akp, _ := nkeys.CreateAccount()
	apub, _ := akp.PublicKey()
	ac := jwt.NewAccountClaims(apub)
	ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
	ajwt, err := ac.Encode(okp)
	if err != nil {
		t.Fatal(err)
	}
	ukp, _ := nkeys.CreateUser()
	upub, _ := ukp.PublicKey()
	ujwt, err := jwt.NewUserClaims(upub).Encode(akp)
	if err != nil {
		t.Fatal(err)
	}
	useed, _ := ukp.Seed()
	creds, err := jwt.FormatUserConfig(ujwt, useed)
	if err != nil {
		t.Fatal(err)
	}
	credsFile := filepath.Join(t.TempDir(), "crawler.creds")
	if err := os.WriteFile(credsFile, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, func(o *server.Options) {
		resolver := &server.MemAccResolver{}
		resolver.Store(apub, ajwt)
		resolver.Store(spub, sjwt)
		o.TrustedOperators = []*jwt.OperatorClaims{operator}
		o.SystemAccount = spub
		o.AccountResolver = resolver
	})
	cfg := testConfig(s, "a", 1, 0)
	if err := joinPublishConsume(t, cfg); err == nil {
		t.Error("no credentials: joined")
	}
	cfg.CredsFile = credsFile
	if err := joinPublishConsume(t, cfg); err != nil {
		t.Errorf("creds file: %v", err)
	}
}

// TestTLS: a server that verifies clients; the client trusts the server's CA and
// presents its certificate.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	ca := newCA(t)
	caFile := writePEM(t, dir, "ca.pem", "CERTIFICATE", ca.der)
	srvCert, srvKey := ca.issue(t, dir, "server", true)
	cliCert, cliKey := ca.issue(t, dir, "client", false)
	s := startServer(t, func(o *server.Options) {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: srvCert, KeyFile: srvKey, CaFile: caFile, Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		o.TLSConfig, o.TLS, o.TLSVerify, o.TLSTimeout = tc, true, true, 5
	})
	cfg := testConfig(s, "a", 1, 0)
	cfg.URL = strings.Replace(s.URL(), "nats://", "tls://", 1)
	if err := joinPublishConsume(t, cfg); err == nil {
		t.Error("without CA and client certificate: joined")
	}
	cfg.CAFile = caFile
	if err := joinPublishConsume(t, cfg); err == nil {
		t.Error("without client certificate: joined")
	}
	cfg.CertFile, cfg.KeyFile = cliCert, cliKey
	if err := joinPublishConsume(t, cfg); err != nil {
		t.Errorf("with CA and client certificate: %v", err)
	}
}

type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	der  []byte
}

func newCA(t *testing.T) *testCA {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "politecrawl test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, der: der}
}

// issue writes a certificate and key for name signed by ca, and returns their files.
func (ca *testCA) issue(t *testing.T, dir, name string, server bool) (certFile, keyFile string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return writePEM(t, dir, name+".pem", "CERTIFICATE", der), writePEM(t, dir, name+"-key.pem", "EC PRIVATE KEY", keyDER)
}

func writePEM(t *testing.T, dir, name, typ string, der []byte) string {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
