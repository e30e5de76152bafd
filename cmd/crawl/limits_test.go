package main

import (
	"net/http"
	"net/http/httptest"
	"os"
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
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<title>one page</title>"))
	}))
	defer srv.Close()
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
