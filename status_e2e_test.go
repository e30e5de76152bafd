package crawl_test

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
)

// blockingSite serves robots.txt at once and holds every page until release is closed.
func blockingSite(t *testing.T) (srv *httptest.Server, release func()) {
	t.Helper()
	ch := make(chan struct{})
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		select {
		case <-ch:
		case <-r.Context().Done():
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>page</p>"))
	}))
	t.Cleanup(srv.Close)
	var done bool
	return srv, func() {
		if !done {
			done = true
			close(ch)
		}
	}
}

// waitStatus polls the status file of dir until it exists and is in state, for at
// most crawlWait (the crawl writes it every few milliseconds here).
func waitStatus(t *testing.T, dir, state string) *crawl.Status {
	t.Helper()
	deadline := time.Now().Add(crawlWait)
	for {
		s, err := crawl.ReadStatus(dir)
		if err == nil && s.State == state {
			return s
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no status %q in %s: last %+v, %v", state, dir, s, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestStatusFile: a running crawl rewrites its status file; when it ends, the file
// keeps its final figures.
func TestStatusFile(t *testing.T) {
	srv, release := blockingSite(t)
	defer release()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Seeds = []string{srv.URL + "/a"}
	cfg.Politeness.MinDelay = config.Duration(time.Millisecond)
	cfg.Network.AllowPrivate = true
	cfg.MetricsAddr = "127.0.0.1:0"
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = testWriter{t}
	c.StatusEvery = 5 * time.Millisecond
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background()) }()

	s := waitStatus(t, cfg.DataDir, crawl.StateRunning)
	for s.InFlight != 1 { // the page is held by the server
		s = waitStatus(t, cfg.DataDir, crawl.StateRunning)
	}
	if s.PID != os.Getpid() || s.Started.IsZero() || s.Updated.Before(s.Started) || s.MetricsAddr == "" || !s.Summary.Started {
		t.Errorf("running status: %+v", s)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Done: the page and its host's /favicon.ico, a requisite.
	s = waitStatus(t, cfg.DataDir, crawl.StateComplete)
	if s.Summary.Pages != 1 || s.Summary.Requisites != 1 || !s.Summary.Complete || s.InFlight != 0 || s.Done != 2 || s.MetricsAddr != "" {
		t.Errorf("final status: %+v", s)
	}
	if _, err := os.Stat(cfg.DataDir + "/" + crawl.StatusFile + ".tmp"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary status file left: %v", err)
	}
}
