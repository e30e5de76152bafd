package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
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

// TestStatusWhileRunning: crawl status works while a crawl holds the database, from
// the status file, and after it ended shows the last run's figures.
func TestStatusWhileRunning(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.Write([]byte("<p>page</p>"))
	}))
	defer srv.Close()
	data := t.TempDir()
	cfg := config.Default()
	cfg.DataDir = data
	cfg.Seeds = []string{srv.URL + "/a"}
	cfg.Network.AllowPrivate = true
	cfg.Politeness.MinDelay = config.Duration(time.Millisecond)
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = testStderr{t}
	c.StatusEvery = 5 * time.Millisecond
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background()) }()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
		<-done
	}()

	// Wait for the first status file (a few milliseconds).
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, err := crawl.ReadStatus(data)
		if err == nil && s.InFlight == 1 {
			break
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the crawl wrote no status file")
		}
		time.Sleep(5 * time.Millisecond)
	}
	code, out, errOut := run(t, "status", "-data", data)
	if code != 0 || !strings.Contains(out, "crawl running in "+data) || !strings.Contains(out, "written ") ||
		!strings.Contains(out, "in flight 1") {
		t.Errorf("status while running: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	done <- nil // for the deferred wait
	code, out, errOut = run(t, "status", "-data", data)
	// Done: the page and its host's /favicon.ico, a requisite (this server
	// answers it with the page).
	if code != 0 || !strings.Contains(out, "done     2\n") || !strings.Contains(out, "last run: complete") ||
		!strings.Contains(out, "pages    1 (") {
		t.Errorf("status after the crawl: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestStatusDamaged: crawl status checks the database as a crawl would and refuses a
// damaged one instead of showing its figures.
func TestStatusDamaged(t *testing.T) {
	data := t.TempDir()
	path := filepath.Join(data, "frontier.db")
	f, err := frontier.Open(path, frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add(context.Background(), frontier.Entry{URL: "http://a.test/1"}, frontier.Entry{URL: "http://a.test/2"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "status", "-data", data)
	if code != 0 || !strings.Contains(out, "queued   2") {
		t.Fatalf("status of a whole database: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	// Damage one queue entry, as frontier/corrupt_test.go does.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if !bytes.HasPrefix(name, []byte("queue")) {
				return nil
			}
			k, _ := b.Cursor().First()
			return b.Put(append([]byte(nil), k...), []byte("junk"))
		})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, "status", "-data", data)
	if code != 1 || out != "" || !strings.Contains(errOut, "is damaged and a crawl would refuse it: frontier: corrupt database: queue entry") ||
		strings.Count(errOut, "\n") != 1 {
		t.Errorf("status of a damaged database: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestStatusNoCrawl: a directory without a crawl is said to be one.
func TestStatusNoCrawl(t *testing.T) {
	data := t.TempDir()
	code, _, errOut := run(t, "status", "-data", data)
	if code != 1 || !strings.Contains(errOut, "no crawl in "+data) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestFatalErrorOnce: an error that stops a crawl is printed once on stderr, with each
// package named once, and is in crawl.log.
func TestFatalErrorOnce(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	data := t.TempDir()
	path := filepath.Join(data, "frontier.db")
	f, err := frontier.Open(path, frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add(context.Background(), frontier.Entry{URL: srv.URL + "/a"}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if !bytes.HasPrefix(name, []byte("queue")) {
				return nil
			}
			k, _ := b.Cursor().First()
			return b.Put(append([]byte(nil), k...), []byte("junk"))
		})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "-data", data, "-progress", "none", "-allow-private", "-delay", "1ms")
	if !strings.HasPrefix(out, "crawl stopped by an error: ") || strings.Contains(out, "run again") {
		t.Errorf("summary:\n%s", out)
	}
	if code != 1 || strings.Count(errOut, "corrupt database") != 1 || strings.Contains(errOut, "crawl: crawl:") ||
		strings.Count(errOut, "frontier:") != 1 {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and the error once, naming each package once", code, errOut)
	}
	log, _ := os.ReadFile(filepath.Join(data, "crawl.log"))
	if !bytes.Contains(log, []byte(`"msg":"crawl failed"`)) {
		t.Errorf("crawl.log lacks the error:\n%s", log)
	}
}

// TestStatusAfterKill: a status file left "running" by a crawl that no longer holds
// the database is read as a crawl that died.
func TestStatusAfterKill(t *testing.T) {
	data := t.TempDir()
	f, err := frontier.Open(filepath.Join(data, "frontier.db"), frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add(context.Background(), frontier.Entry{URL: "http://a.test/1"}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	status := `{"state":"running","pid":1,"started":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:01:00Z","summary":{"pages":7}}`
	if err := os.WriteFile(filepath.Join(data, crawl.StatusFile), []byte(status), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "status", "-data", data)
	if code != 0 || !strings.Contains(out, "last run: ended without writing its final figures (killed?)") ||
		!strings.Contains(out, "pages    7 (") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestStatusScheduled: URLs given back for a later time (a recrawl) are counted.
func TestStatusScheduled(t *testing.T) {
	data := t.TempDir()
	f, err := frontier.Open(filepath.Join(data, "frontier.db"), frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := f.Add(ctx, frontier.Entry{URL: "http://a.test/1"}, frontier.Entry{URL: "http://a.test/2"}); err != nil {
		t.Fatal(err)
	}
	l, err := f.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	due := time.Now().Add(time.Hour)
	if err := f.Done(ctx, l, frontier.Outcome{Refetch: due}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "status", "-data", data)
	if code != 0 || !strings.Contains(out, "queued   2") || !strings.Contains(out, "later    1 of the queued") ||
		!strings.Contains(out, "the next is due at "+due.UTC().Format(time.RFC3339)) {
		t.Fatalf("status: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestStatusStaged: links staged and not yet sorted into the queues (frontier.link_batch)
// are shown, from the frontier and from the last run's figures.
func TestStatusStaged(t *testing.T) {
	data := t.TempDir()
	f, err := frontier.Open(filepath.Join(data, "frontier.db"), frontier.Options{LinkBatch: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := f.Add(ctx, frontier.Entry{URL: "http://a.test/1"}); err != nil {
		t.Fatal(err)
	}
	l, err := f.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	links := []frontier.Entry{{URL: "http://a.test/2"}, {URL: "http://a.test/3"}, {URL: "http://b.test/"}}
	if err := f.Done(ctx, l, frontier.Outcome{Kind: frontier.Finished, Links: links}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	status := `{"state":"stopped","pid":1,"started":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:01:00Z","summary":{"pages":1,"staged":3}}`
	if err := os.WriteFile(filepath.Join(data, crawl.StatusFile), []byte(status), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "status", "-data", data)
	if code != 0 || strings.Count(out, "links    3 found and not yet sorted into the queues") != 2 {
		t.Fatalf("status: exit %d, want the 3 staged links shown for the frontier and the last run\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
