package crawl_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/frontier"
)

// logLines returns the crawl.log records of dir whose msg contains substr.
func logLines(t *testing.T, dir, substr string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "crawl.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("crawl.log line %q: %v", sc.Text(), err)
		}
		if msg, _ := rec["msg"].(string); strings.Contains(msg, substr) {
			out = append(out, rec)
		}
	}
	return out
}

// TestHostSetAsideLoggedOnce: several workers hold leases of one host whose robots.txt
// is unreachable; the host is set aside once, and said so once.
func TestHostSetAsideLoggedOnce(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	for run := range 3 {
		cfg := config.Default()
		cfg.DataDir = t.TempDir()
		for i := range 8 {
			cfg.Seeds = append(cfg.Seeds, fmt.Sprintf("%s/p%d", s.srv.URL, i))
		}
		cfg.Workers = 8
		cfg.Politeness.PerHost = 4
		cfg.Politeness.MinDelay = config.Duration(time.Millisecond)
		cfg.Robots.UnreachableAttempts = 1
		cfg.Network.AllowPrivate = true
		sum := runCrawl(t, cfg)
		if sum.Parked != 8 {
			t.Errorf("run %d: %d URLs set aside, want 8\n%s", run, sum.Parked, sum)
		}
		if got := logLines(t, cfg.DataDir, "set aside"); len(got) != 1 {
			t.Fatalf("run %d: %d \"set aside\" warnings for one host, want 1: %v", run, len(got), got)
		}
	}
}

// TestRefusedCrawlWritesNothing: a second crawl of a data directory in use fails with
// frontier.ErrLocked before it starts, and appends nothing to the running crawl's log.
func TestRefusedCrawlWritesNothing(t *testing.T) {
	dir := t.TempDir()
	held, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{LockTimeout: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	logPath := filepath.Join(dir, "crawl.log")
	const running = `{"msg":"the running crawl's line"}` + "\n"
	if err := os.WriteFile(logPath, []byte(running), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.Seeds = []string{"http://example.test/"}
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = testWriter{t}
	err = c.Run(context.Background())
	if !errors.Is(err, frontier.ErrLocked) {
		t.Fatalf("Run: got %v, want ErrLocked", err)
	}
	if strings.Contains(err.Error(), "crawl: crawl:") || strings.Count(err.Error(), "frontier:") != 1 {
		t.Errorf("error %q names a package twice", err)
	}
	if sum := c.Summary(); sum.Started {
		t.Errorf("Summary.Started after a refused start:\n%s", sum)
	}
	got, _ := os.ReadFile(logPath)
	if string(got) != running {
		t.Errorf("the refused crawl wrote to the running crawl's log:\n%s", got)
	}
}

// TestSetupFailureNotStarted: a data directory that cannot be made fails the crawl
// before it starts.
func TestSetupFailureNotStarted(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.DataDir = filepath.Join(file, "data")
	cfg.Seeds = []string{"http://example.test/"}
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background()); err == nil {
		t.Fatal("Run in a data directory under a file: no error")
	}
	if c.Summary().Started {
		t.Error("Summary.Started after a failed setup")
	}
}

// TestFatalErrorNamesPackagesOnce: a damaged queue entry stops the crawl with an error
// that names each package once, and the error reaches crawl.log.
func TestFatalErrorNamesPackagesOnce(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Seeds = []string{s.srv.URL + "/a", s.srv.URL + "/b"}
	cfg.Network.AllowPrivate = true
	cfg.Politeness.MinDelay = config.Duration(time.Millisecond)
	// Queue the seeds, then damage every queue entry.
	f, err := frontier.Open(filepath.Join(cfg.DataDir, "frontier.db"), frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add(context.Background(), frontier.Entry{URL: s.srv.URL + "/a"}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	db, err := bolt.Open(filepath.Join(cfg.DataDir, "frontier.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		// The queue's bucket is "queue" followed by the format's version.
		damaged := 0
		err := tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if !bytes.HasPrefix(name, []byte("queue")) {
				return nil
			}
			var keys [][]byte
			b.ForEach(func(k, _ []byte) error { keys = append(keys, append([]byte(nil), k...)); return nil })
			for _, k := range keys {
				if err := b.Put(k, []byte("junk")); err != nil {
					return err
				}
				damaged++
			}
			return nil
		})
		if err == nil && damaged == 0 {
			err = errors.New("no queue entry to damage")
		}
		return err
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = testWriter{t}
	err = c.Run(context.Background())
	if !errors.Is(err, frontier.ErrCorrupt) {
		t.Fatalf("Run: got %v, want ErrCorrupt", err)
	}
	msg := err.Error()
	for _, name := range []string{"crawl:", "frontier:"} {
		if strings.Count(msg, name) > 1 {
			t.Errorf("error %q names %s more than once", msg, name)
		}
	}
	if got := logLines(t, cfg.DataDir, "crawl failed"); len(got) != 1 || !strings.Contains(fmt.Sprint(got[0]["err"]), "corrupt") {
		t.Errorf("crawl.log records of the failure: %v", got)
	}
}
