package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl/config"
)

// TestLimitFlags: -time-limit takes a duration as -delay does, and -max-depth takes
// "seeds" for the seeds only (issue 28, item 9).
func TestLimitFlags(t *testing.T) {
	m := &Main{Stdout: os.Stdout, Stderr: testStderr{t}}
	cfg, _, err := crawlConfig(m, []string{"http://a.test/", "-data", t.TempDir(), "-time-limit", "90m", "-max-depth", "seeds"})
	if err != nil {
		t.Fatal(err)
	}
	if time.Duration(cfg.Scope.MaxDuration) != 90*time.Minute || cfg.Scope.MaxDepth != config.SeedsOnly {
		t.Errorf("max_duration %v, max_depth %v; want 1h30m0s and seeds", cfg.Scope.MaxDuration, cfg.Scope.MaxDepth)
	}
	code, _, errOut := run(t, "http://a.test/", "-data", t.TempDir(), "-max-depth", "-2")
	if code != 2 || !strings.Contains(errOut, "seeds (the seeds only)") {
		t.Errorf("-max-depth -2: exit %d, stderr %q; want 2 and the accepted values", code, errOut)
	}
}

// TestCompleteCrawlAgain: running a finished crawl again fetches nothing, exits 0, and
// says how to take a new snapshot (issue 28, item 2).
func TestCompleteCrawlAgain(t *testing.T) {
	srv := onePageServer(t)
	data := t.TempDir()
	args := []string{srv.URL + "/", "-data", data, "-allow-private", "-delay", "10ms", "-progress", "none"}
	if code, out, errOut := run(t, args...); code != 0 || strings.Contains(out, "already holds") {
		t.Fatalf("first run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut := run(t, args...)
	if code != 0 || !strings.Contains(out, data+" already holds a complete crawl") || !strings.Contains(out, "-dedup-from "+data) {
		t.Errorf("second run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestSubcommandsReadConfig: status, index, verify and wacz take the data directory from
// -config's data_dir as the crawl does, and status -config without cluster.url shows the
// local frontier rather than asking for a NATS URL (issue 28, item 3).
func TestSubcommandsReadConfig(t *testing.T) {
	srv := onePageServer(t)
	data := filepath.Join(t.TempDir(), "from-config")
	cfgPath := filepath.Join(t.TempDir(), "crawl.yaml")
	yaml := "data_dir: " + data + "\nseeds: [" + srv.URL + "/]\nnetwork:\n  allow_private: true\npoliteness:\n  min_delay: 10ms\n"
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, "-config", cfgPath, "-progress", "none"); code != 0 {
		t.Fatalf("crawl: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "-config", cfgPath}, "frontier " + filepath.Join(data, "frontier.db")},
		{[]string{"verify", "-config", cfgPath}, "ok  "},
		{[]string{"index", "-config", cfgPath}, "indexed 1 WARC files"},
		{[]string{"wacz", "-config", cfgPath}, "wrote " + filepath.Join(data, "crawl.wacz")},
	} {
		code, out, errOut := run(t, tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("crawl %q: exit %d, want 0 and %q\nstdout:\n%s\nstderr:\n%s", tc.args, code, tc.want, out, errOut)
		}
	}
	// -data still wins over the file.
	code, _, errOut := run(t, "verify", "-config", cfgPath, "-data", filepath.Join(t.TempDir(), "none"))
	if code == 0 {
		t.Errorf("verify -data elsewhere: exit 0, stderr %q; want the other directory checked", errOut)
	}
}

// TestBadFlagOnce: a bad flag value is said once, with where to find the flags, not
// twice around the whole usage (issue 28, item 8).
func TestBadFlagOnce(t *testing.T) {
	for _, args := range [][]string{{"-delay", "abc", "http://a.test/"}, {"status", "-hosts", "x"}, {"verify", "-nope"}} {
		code, out, errOut := run(t, args...)
		if code != 2 || out != "" || strings.Count(errOut, "crawl:") != 1 || strings.Contains(errOut, "flags:") ||
			!strings.Contains(errOut, "-h lists the flags") {
			t.Errorf("crawl %q: exit %d, stdout %q, stderr %q; want 2 and one line", args, code, out, errOut)
		}
	}
	if code, _, errOut := run(t, "status", "-h"); code != 0 || !strings.Contains(errOut, "usage: crawl status") || !strings.Contains(errOut, "flags:") {
		t.Errorf("status -h: exit %d, stderr %q; want 0 and the usage", code, errOut)
	}
}

// TestNoCrawlNamed: the file tools on a directory holding no crawl say so, rather than
// naming a temporary file they could not create (issue 28, item 8).
func TestNoCrawlNamed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nothing")
	for _, cmd := range []string{"wacz", "index", "verify"} {
		code, _, errOut := run(t, cmd, "-data", dir)
		if code != 1 || !strings.Contains(errOut, "no crawl in "+dir) || strings.Contains(errOut, ".tmp") {
			t.Errorf("crawl %s: exit %d, stderr %q; want 1 and no crawl in %s", cmd, code, errOut, dir)
		}
	}
}

// onePageServer serves one HTML page at every path and no robots.txt (404), on
// loopback, until the test ends.
func onePageServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<title>one page</title>"))
	}))
	t.Cleanup(srv.Close)
	return srv
}
