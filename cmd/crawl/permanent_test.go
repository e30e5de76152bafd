package main

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runFor runs the command in-process like run, but stops it after a minute: the
// failures tested here used to keep a crawl waiting for minutes.
func runFor(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr syncBuffer
	m := &Main{Stdout: &stdout, Stderr: &stderr}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := m.Exit(m.Run(ctx, args))
	if ctx.Err() != nil {
		t.Errorf("crawl %q still running after a minute", args)
	}
	return code, stdout.String(), stderr.String()
}

func pageServer(t *testing.T, tls bool) *httptest.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "<title>ok</title>")
	})
	srv := httptest.NewUnstartedServer(h)
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv
}

// TestPrivateSeedFailsFast: a loopback seed without -allow-private fails at once, says
// so on stderr with the fix, counts the error and exits non-zero.
func TestPrivateSeedFailsFast(t *testing.T) {
	srv := pageServer(t, false)
	code, out, errOut := runFor(t, "-data", filepath.Join(t.TempDir(), "data"), "-progress", "none", srv.URL+"/")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(errOut, "address refused") || !strings.Contains(errOut, "-allow-private") {
		t.Errorf("stderr does not give the cause and the fix:\n%s", errOut)
	}
	if !strings.Contains(out, "crawl failed") || !strings.Contains(out, "1 failed fetches") || !strings.Contains(out, "0 robots.txt fetched") {
		t.Errorf("summary:\n%s", out)
	}
}

// TestSelfSignedSite: a site with a self-signed certificate fails fast with the fix on
// stderr; it is crawled with fetch.ca_file naming its certificate, and with
// fetch.insecure_skip_verify, which warns.
func TestSelfSignedSite(t *testing.T) {
	srv := pageServer(t, true)
	base := []string{"-allow-private", "-progress", "none"}
	code, out, errOut := runFor(t, append(base, "-data", filepath.Join(t.TempDir(), "data"), srv.URL+"/")...)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(errOut, "TLS certificate not trusted") || !strings.Contains(errOut, "fetch.ca_file") ||
		!strings.Contains(errOut, "fetch.insecure_skip_verify") {
		t.Errorf("stderr does not give the cause and the fixes:\n%s", errOut)
	}
	if !strings.Contains(out, "1 failed fetches") {
		t.Errorf("summary:\n%s", out)
	}

	var ca bytes.Buffer
	pem.Encode(&ca, &pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	caFile := writeFile(t, "ca.pem", ca.String())
	config := writeFile(t, "ca.yaml", fmt.Sprintf("fetch:\n  ca_file: %q\n", caFile))
	code, out, errOut = runFor(t, append(base, "-config", config, "-data", filepath.Join(t.TempDir(), "data"), srv.URL+"/")...)
	if code != 0 || !strings.Contains(out, "crawl complete: 1 pages") {
		t.Errorf("with fetch.ca_file: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	config = writeFile(t, "insecure.yaml", "fetch:\n  insecure_skip_verify: true\n")
	code, out, errOut = runFor(t, append(base, "-config", config, "-data", filepath.Join(t.TempDir(), "data"), srv.URL+"/")...)
	if code != 0 || !strings.Contains(out, "crawl complete: 1 pages") {
		t.Errorf("with fetch.insecure_skip_verify: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "insecure_skip_verify is on") {
		t.Errorf("no warning about insecure_skip_verify on stderr:\n%s", errOut)
	}

	bad := writeFile(t, "bad.yaml", fmt.Sprintf("fetch:\n  ca_file: %q\n", config))
	if code, _, errOut := runFor(t, append(base, "-config", bad, "-data", filepath.Join(t.TempDir(), "data"), srv.URL+"/")...); code != 2 || !strings.Contains(errOut, "fetch.ca_file") {
		t.Errorf("fetch.ca_file naming a file without certificates: exit %d, stderr %q; want 2 and the option named", code, errOut)
	}
}

// TestRobotsCAFile: crawl robots trusts what a crawl trusts: a site with a self-signed
// certificate is unreachable without the configuration, and read with -config naming
// fetch.ca_file (or fetch.insecure_skip_verify, which warns).
func TestRobotsCAFile(t *testing.T) {
	srv := pageServer(t, true)
	code, out, _ := runFor(t, "robots", "-allow-private", srv.URL+"/page")
	if code != 1 || !strings.Contains(out, "unreachable") {
		t.Errorf("without the CA: exit %d, want 1 and unreachable\n%s", code, out)
	}

	var ca bytes.Buffer
	pem.Encode(&ca, &pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	caFile := writeFile(t, "ca.pem", ca.String())
	config := writeFile(t, "ca.yaml", fmt.Sprintf("network:\n  allow_private: true\nfetch:\n  ca_file: %q\n", caFile))
	code, out, errOut := runFor(t, "robots", "-config", config, srv.URL+"/page")
	if code != 0 || !strings.Contains(out, "allowed") {
		t.Errorf("with fetch.ca_file: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	config = writeFile(t, "insecure.yaml", "fetch:\n  insecure_skip_verify: true\n")
	code, out, errOut = runFor(t, "robots", "-allow-private", "-config", config, srv.URL+"/page")
	if code != 0 || !strings.Contains(out, "allowed") || !strings.Contains(errOut, "insecure_skip_verify is on") {
		t.Errorf("with fetch.insecure_skip_verify: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	config = writeFile(t, "bad.yaml", fmt.Sprintf("fetch:\n  ca_file: %q\n", config))
	if code, _, errOut = runFor(t, "robots", "-allow-private", "-config", config, srv.URL+"/page"); code == 0 || !strings.Contains(errOut, "fetch.ca_file") {
		t.Errorf("with a CA file holding no certificate: exit %d\nstderr:\n%s", code, errOut)
	}
}
