package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run runs the command in-process and returns its exit status, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	m := &Main{Stdout: &stdout, Stderr: &stderr}
	code := m.Exit(m.Run(context.Background(), args))
	return code, stdout.String(), stderr.String()
}

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const exampleRobots = "User-agent: *\nDisallow: /\n\n" +
	"User-agent: ExampleBot\nDisallow: /private/\nAllow: /private/ok\nCrawl-delay: 2\n" +
	"Content-Signal: ai-train=no, search=yes\n\nSitemap: https://example.com/sitemap.xml\n"

func TestRobotsFile(t *testing.T) {
	path := writeFile(t, "robots.txt", exampleRobots)
	code, out, errOut := run(t, "robots", "-agent", "ExampleBot/2.1 (+https://example.com/bot)", "-file", path,
		"https://example.com/private/x", "https://example.com/private/ok", "/public?q=1")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"disallowed https://example.com/private/x\tdisallow: /private/ (line 5)\n",
		"allowed    https://example.com/private/ok\tallow: /private/ok (line 6)\n",
		"allowed    /public?q=1\t",
		"groups for ExampleBot: user-agent ExampleBot\n",
		"crawl-delay: 2s\n",
		"content-signal: ai-train=no, search=yes\n",
		"sitemap: https://example.com/sitemap.xml\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Another agent falls to the * group.
	code, out, _ = run(t, "robots", "-agent", "OtherBot", "-file", path, "/public")
	if code != 0 || !strings.HasPrefix(out, "disallowed /public\tdisallow: / (line 2)\n") {
		t.Errorf("OtherBot: exit %d, output:\n%s", code, out)
	}
}

func TestRobotsLive(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.Redirect(w, r, "/rules.txt", http.StatusMovedPermanently)
		case "/rules.txt":
			w.Write([]byte("User-agent: *\nDisallow: /secret\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer down.Close()

	code, out, errOut := run(t, "robots", "-allow-private", srv.URL+"/secret/a", srv.URL+"/open", down.URL+"/x")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"disallowed " + srv.URL + "/secret/a\tdisallow: /secret (line 2)\n",
		"allowed    " + srv.URL + "/open\tno matching rule\n",
		"disallowed " + down.URL + "/x\t",
		"robots.txt: " + srv.URL + "/robots.txt → " + srv.URL + "/rules.txt (status 200)\n",
		"robots.txt: " + down.URL + "/robots.txt (status 503)\n  unreachable",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// Loopback is refused without -allow-private: robots.txt is unreachable, and no
	// decision is made.
	code, out, _ = run(t, "robots", srv.URL+"/open")
	if code != 1 || !strings.HasPrefix(out, "unreachable ") || !strings.Contains(out, "not fetched") {
		t.Errorf("without -allow-private: exit %d, output:\n%s", code, out)
	}
}

func TestUsage(t *testing.T) {
	path := writeFile(t, "robots.txt", exampleRobots)
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"help", []string{"-h"}, 0, ""},
		{"robots help", []string{"robots", "-h"}, 0, ""},
		{"status help", []string{"status", "-h"}, 0, ""},
		{"robots no URL", []string{"robots", "-file", path}, 2, "no URL given"},
		{"robots bad flag", []string{"robots", "-nope"}, 2, "flag provided but not defined"},
		{"robots bad agent", []string{"robots", "-agent", "123", "-file", path, "/"}, 2, "product token"},
		{"robots missing file", []string{"robots", "-file", filepath.Join(t.TempDir(), "none"), "/"}, 2, "no such file"},
		{"robots relative live", []string{"robots", "/x"}, 2, "not an absolute http or https URL"},
		{"crawl bad flag", []string{"-workers", "x"}, 2, "invalid value"},
		{"crawl bad URL", []string{"-data", t.TempDir(), "ftp://example.com/"}, 2, "seeds[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.err) {
				t.Errorf("crawl %q: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.err)
			}
		})
	}
}

// TestDemoAndStatus runs the demo crawl on its loopback farm through the command, then
// reads the frontier it left with crawl status.
func TestDemoAndStatus(t *testing.T) {
	data := filepath.Join(t.TempDir(), "demo")
	code, out, errOut := run(t, "demo", "-data", data, "-delay", "20ms", "-progress", "none")
	if code != 0 {
		t.Fatalf("demo: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "coverage 100%") || !strings.Contains(out, "violations 0") {
		t.Errorf("demo output:\n%s", out)
	}
	// A newcomer's first screen explains what would read as failures: the deliberate
	// robots.txt errors, and the audit's two figures.
	for _, want := range []string{"on purpose, down.test (503) and busy.test (429)", "smallest gap/allowed is the shortest time", "politeness efficiency is the least time",
		// go test runs the command from go-build's temporary directory, as go run does.
		"open it in ReplayWeb.page: go run ./cmd/crawl wacz -data"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	for _, name := range []string{"frontier.db", "pages.jsonl", "crawl.log"} {
		if _, err := os.Stat(filepath.Join(data, name)); err != nil {
			t.Errorf("demo left no %s: %v", name, err)
		}
	}
	code, out, errOut = run(t, "status", "-data", data)
	if code != 0 || !strings.Contains(out, "queued") {
		t.Errorf("status: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
