package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
)

// packageNames are the prefixes a package puts on the errors it makes.
var packageNames = regexp.MustCompile(`(?:^|[ (])(crawl|recrawl|config|frontier|storage|fetch|extract|robots|politeness|cluster):`)

// factsOnce fails unless msg, an error as the command prints it after "crawl: ",
// names each of facts exactly once and each package at most once, and does not name
// the program (the command does).
func factsOnce(t *testing.T, what, msg string, facts ...string) {
	t.Helper()
	for _, f := range facts {
		if n := strings.Count(msg, f); n != 1 {
			t.Errorf("%s: %q appears %d times, want once:\n\t%s", what, f, n, msg)
		}
	}
	seen := map[string]bool{}
	for _, m := range packageNames.FindAllStringSubmatch(msg, -1) {
		if m[1] == "crawl" {
			t.Errorf("%s: the engine's error names the program:\n\t%s", what, msg)
		}
		if seen[m[1]] {
			t.Errorf("%s: package %s named twice:\n\t%s", what, m[1], msg)
		}
		seen[m[1]] = true
	}
}

// onePage serves a robots.txt that allows everything and one page; robots, when not
// nil, runs first at the robots.txt request.
func onePage(t *testing.T, robots func()) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			if robots != nil {
				robots()
			}
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>one</title>")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func chainConfig(t *testing.T, seed string) config.Config {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Seeds = []string{seed}
	cfg.Workers = 2
	cfg.Politeness.MinDelay = 0
	cfg.Network.AllowPrivate = true
	return cfg
}

func runChain(t *testing.T, cfg config.Config, hook func(*crawl.Crawler)) (stderrText string, err error) {
	t.Helper()
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	c.Stderr = &stderr
	if hook != nil {
		hook(c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), crawlWait)
	defer cancel()
	err = c.Run(ctx)
	return stderr.String(), err
}

// TestErrorChainsNameEachFactOnce: the longest chains the engine returns or reports
// (a damaged schedule.db, a refused seed, a full disk) read with each fact and each
// package once.
func TestErrorChainsNameEachFactOnce(t *testing.T) {
	t.Run("damaged schedule.db", func(t *testing.T) {
		srv := onePage(t, nil)
		cfg := chainConfig(t, srv.URL+"/")
		cfg.Recrawl.Interval = config.Duration(time.Hour)
		garbage := make([]byte, 16<<10)
		for i := range garbage {
			garbage[i] = byte(i*131 + 7)
		}
		if err := os.WriteFile(filepath.Join(cfg.DataDir, "schedule.db"), garbage, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := runChain(t, cfg, nil)
		if err == nil {
			t.Fatal("Run over a damaged schedule.db: no error")
		}
		t.Logf("crawl: %v", err)
		factsOnce(t, "damaged schedule.db", err.Error(), "/schedule.db:", "invalid database", "recrawl:")
	})

	t.Run("refused seed", func(t *testing.T) {
		srv := onePage(t, nil)
		cfg := chainConfig(t, srv.URL+"/")
		cfg.Network.AllowPrivate = false
		var mu sync.Mutex
		var reported []*crawl.PermanentError
		_, err := runChain(t, cfg, func(c *crawl.Crawler) {
			c.OnPermanent = func(e *crawl.PermanentError) {
				mu.Lock()
				defer mu.Unlock()
				reported = append(reported, e)
			}
		})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if len(reported) == 0 {
			t.Fatal("no permanent failure reported for a loopback seed")
		}
		for _, e := range reported {
			t.Logf("warning: %v", e)
			factsOnce(t, "refused seed", e.Error(), srv.URL+"/", "address refused", "fetch:")
		}
		// Without OnPermanent, the engine's own warning names the URL once.
		cfg.DataDir = t.TempDir()
		stderr, _ := runChain(t, cfg, nil)
		line := ""
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, "address refused") {
				line = l
				break
			}
		}
		if line == "" {
			t.Fatalf("no warning on stderr:\n%s", stderr)
		}
		msg, _, _ := strings.Cut(line, " err=")
		factsOnce(t, "refused seed warning", msg, "address refused", "network.allow_private")
	})

	t.Run("full disk", func(t *testing.T) {
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Skip("no /dev/full:", err)
		}
		var cfg config.Config
		// When robots.txt is asked for, the WARC files the crawl can start in the next
		// seconds are links to /dev/full, where every write fails with ENOSPC as on a
		// full disk (the temporary name a WARC file is started under, see
		// storage.WARCWriter).
		srv := onePage(t, func() {
			dir := filepath.Join(cfg.DataDir, "warc")
			now := time.Now().UTC()
			for s := -2; s <= 10; s++ {
				for serial := 1; serial <= 3; serial++ {
					name := fmt.Sprintf("crawl-%s-%05d.warc.gz.tmp", now.Add(time.Duration(s)*time.Second).Format("20060102150405"), serial)
					os.Symlink("/dev/full", filepath.Join(dir, name))
				}
			}
		})
		cfg = chainConfig(t, srv.URL+"/")
		_, err := runChain(t, cfg, nil)
		if err == nil {
			t.Fatal("Run on a full disk: no error")
		}
		t.Logf("crawl: %v", err)
		factsOnce(t, "full disk", err.Error(), srv.URL+"/", "disk full", "storage:")
	})
}
