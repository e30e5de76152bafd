package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/politecrawl/crawl/crawltest"
)

// stampWriter is a stderr that remembers when a line containing mark was first written.
type stampWriter struct {
	mark string

	mu  sync.Mutex
	buf bytes.Buffer
	at  time.Time
}

func (w *stampWriter) Write(p []byte) (int, error) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at.IsZero() && bytes.Contains(p, []byte(w.mark)) {
		w.at = now
	}
	return w.buf.Write(p)
}

func (w *stampWriter) stamp() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.at
}

func (w *stampWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// farmConfig writes a configuration file that crawls farm into a new data directory.
func farmConfig(t *testing.T, farm *crawltest.Farm, workers int, delay time.Duration, extra string) string {
	t.Helper()
	dir := t.TempDir()
	var resolve strings.Builder
	for k, v := range farm.Resolve() {
		fmt.Fprintf(&resolve, "    %q: %q\n", k, v)
	}
	config := fmt.Sprintf("data_dir: %q\nworkers: %d\nseeds: %s\npoliteness:\n  min_delay: %s\n"+
		"network:\n  allow_private: true\n  resolve:\n%s%s", filepath.Join(dir, "data"), workers,
		mustJSON(farm.Seeds()), delay, resolve.String(), extra)
	path := filepath.Join(dir, "crawl.yaml")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSignalStopsLeasing sends SIGTERM to a crawl of many ready hosts and checks that
// no request starts after the stop but the one each worker may have had in flight, that
// the command exits 130, and that the summary does not call the crawl complete.
func TestSignalStopsLeasing(t *testing.T) {
	const workers = 4
	sites := crawltest.Generate(crawltest.GenerateOptions{
		Hosts: 60, PagesPerHost: 20, LinksPerPage: 4, Seed: 13, Latency: 5 * time.Millisecond,
	})
	farm, err := crawltest.Start(sites...)
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()
	config := farmConfig(t, farm, workers, 5*time.Millisecond, "")

	sigs := make(chan os.Signal, 2)
	stderr := &stampWriter{mark: "stopping"}
	var stdout bytes.Buffer
	m := &Main{Stdout: &stdout, Stderr: stderr, signals: sigs}
	exited := make(chan int, 1)
	go func() {
		exited <- m.Exit(m.Run(context.Background(), []string{"-config", config, "-progress", "none"}))
	}()
	// Signal once the farm has answered a few dozen requests: every host is ready by
	// then, so a crawler that keeps leasing keeps fetching.
	for len(farm.Requests()) < 40 {
		select {
		case code := <-exited:
			t.Fatalf("crawl ended before the signal (exit %d)\n%s", code, stderr)
		case <-time.After(time.Millisecond):
		}
	}
	sigs <- syscall.SIGTERM
	code := <-exited
	stopped := stderr.stamp()
	t.Logf("exited %v after the stop", time.Since(stopped).Round(time.Millisecond))
	if err := farm.Close(); err != nil {
		t.Fatal(err)
	}
	if code != 130 {
		t.Errorf("exit %d, want 130\nstderr:\n%s", code, stderr)
	}
	if stopped.IsZero() {
		t.Fatalf("stderr never said it was stopping:\n%s", stderr)
	}
	// Each worker may have one request under way when leasing stops (its handler may
	// start just after); anything beyond that was leased after the signal.
	var after []string
	reqs := farm.Requests()
	for _, r := range reqs {
		if r.Start.After(stopped) {
			after = append(after, r.URL())
		}
	}
	t.Logf("%d of %d requests started after the stop", len(after), len(reqs))
	if len(after) > workers {
		t.Errorf("%d of %d requests started after the stop, want at most %d (one per worker):\n%s",
			len(after), len(reqs), workers, strings.Join(after, "\n"))
	}
	if out := stdout.String(); strings.Contains(out, "complete") || !strings.Contains(out, "stopped before the end") {
		t.Errorf("summary of an interrupted crawl:\n%s", out)
	}
}

// TestSignalAbandonsRobotsWait stops a crawl while its only robots.txt fetch hangs: the
// command waits for that fetch no longer than the stop's grace for a robots.txt request
// already sent (2 s, not fetch.timeout's 10 minutes here; the fetch is redone on the
// next run) and exits 130 without fetching anything else.
func TestSignalAbandonsRobotsWait(t *testing.T) {
	arrived := make(chan struct{}, 1)
	var mu sync.Mutex
	var paths []string
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			select {
			case arrived <- struct{}{}:
			default:
			}
			select { // answers only when the client gives up
			case <-r.Context().Done():
			case <-quit:
			}
			return
		}
		w.Write([]byte("<a href=/a>a</a>"))
	}))
	defer srv.Close()
	defer close(quit)

	sigs := make(chan os.Signal, 2)
	var stdout, stderr syncBuffer
	m := &Main{Stdout: &stdout, Stderr: &stderr, signals: sigs}
	data := filepath.Join(t.TempDir(), "data")
	config := writeFile(t, "crawl.yaml", "fetch:\n  timeout: 10m\n  header_timeout: 10m\n")
	exited := make(chan int, 1)
	go func() {
		exited <- m.Exit(m.Run(context.Background(), []string{"-config", config, "-data", data,
			"-allow-private", "-progress", "none", srv.URL + "/", srv.URL + "/b"}))
	}()
	<-arrived
	sigs <- syscall.SIGTERM
	select {
	case code := <-exited:
		if code != 130 {
			t.Errorf("exit %d, want 130\nstderr:\n%s", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("the crawl waited for the robots.txt fetch in flight after the signal\nstderr:\n%s", stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 1 {
		t.Errorf("requests %q, want only /robots.txt", paths)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
