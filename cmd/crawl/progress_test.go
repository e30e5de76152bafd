package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/politecrawl/crawl"
)

// TestConsoleClearsLiveLine: a message written while the live progress line shows
// clears that line first, and the line is cleared at the end; without a live line
// nothing is cleared.
func TestConsoleClearsLiveLine(t *testing.T) {
	var b strings.Builder
	c := &console{w: &b}
	c.println("before")
	c.showLine("12 pages")
	c.println("warning")
	c.showLine("13 pages")
	fmt.Fprint(c, "log record\n")
	c.showLine("14 pages")
	c.clear()
	c.clear()
	want := "before\n" + clearLine + "12 pages" + clearLine + "warning\n" + clearLine + "13 pages" + clearLine + "log record\n" +
		clearLine + "14 pages" + clearLine
	if got := b.String(); got != want {
		t.Errorf("console output:\n\tgot  %q\n\twant %q", got, want)
	}
}

// TestAdviceNamesFlags: the command's advice for the engine's typed failures names its
// own flags; the engine's errors name none.
func TestAdviceNamesFlags(t *testing.T) {
	for _, tt := range []struct {
		cause crawl.Cause
		want  string
	}{
		{crawl.AddressRefused, "-allow-private"},
		{crawl.CertificateUntrusted, "-config"},
		{crawl.NoSuchHost, "host name"},
		{crawl.NoCommonProtocol, "fetch.http2: auto"},
	} {
		e := &crawl.PermanentError{URL: "http://a.test/", Cause: tt.cause, Err: fmt.Errorf("fetch: refused")}
		if got := permanentAdvice(e); !strings.Contains(got, tt.want) {
			t.Errorf("permanentAdvice(%v) = %q, want it to mention %q", tt.cause, got, tt.want)
		}
		if strings.Contains(e.Error(), " -") {
			t.Errorf("engine error %q names a flag", e.Error())
		}
	}
}

// TestMaxPagesAdvice: a crawl stopped at its page limit says which flag goes on.
func TestMaxPagesAdvice(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a href="/a">a</a> <a href="/b">b</a>`)
	}))
	defer srv.Close()
	code, out, errOut := runFor(t, "-allow-private", "-progress", "none", "-delay", "0", "-max-pages", "1",
		"-data", filepath.Join(t.TempDir(), "data"), srv.URL+"/")
	if code != 0 || !strings.Contains(out, "stopped at max_pages") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "larger -max-pages") {
		t.Errorf("stderr does not name -max-pages:\n%s", errOut)
	}
}
