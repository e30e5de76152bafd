package crawl_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/politeness"
)

// TestRobotsMarkAfterConnect: a crawl stopped while its robots.txt fetch is still
// setting up its connection (here a TLS handshake the server never answers) leaves no
// mark of a fetch in progress: no request was written, the host cannot have answered,
// and the next run need not space it as after a cut connection. The mark was made
// durable before the connection was dialled, and a kill there held the host at the next
// start (crawlbench resume, killed at 3 s: 10 of 23 hosts held for a request the farm
// never saw).
func TestRobotsMarkAfterConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// The server reads the ClientHello and never answers it.
	hello := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 512)
				if n, _ := c.Read(buf); n > 0 {
					select {
					case hello <- struct{}{}:
					default:
					}
				}
				c.Read(buf) // until the client goes
			}()
		}
	}()
	dir := t.TempDir()
	cfg := farmConfig([]string{"https://stall.test/"}, map[string]string{"stall.test:443": ln.Addr().String()}, dir)
	cfg.Workers = 1
	cfg.Fetch.Timeout = config.Duration(time.Minute)
	cfg.Fetch.TLSTimeout = config.Duration(time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, ended := startCrawl(t, ctx, cfg)
	awaitSignal(t, hello, ended, "its robots.txt request at the server")
	cancel()
	<-ended

	f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := f.LoadRobots("https://stall.test")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"pending"`) {
		t.Errorf("robots.txt record after a stop during the TLS handshake: %s; want no fetch marked in progress", data)
	}
}

// TestRobotsRetryAfterKill kills a crawl process (SIGKILL) while its robots.txt request
// is on the wire, the server holding its answer. The next run's robots.txt retry to
// the host waits what a connection error makes it wait, the backoff (backoff_base 1s,
// at least 750 ms with jitter) from the run's start, and not max_delay (60 s): from the
// server's side the kill was a connection cut. Before, the host waited max_delay.
func TestRobotsRetryAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a crawl process and kills it")
	}
	var mu sync.Mutex
	var robotsAt []time.Time // arrivals of /robots.txt, as the server saw them
	arrived := make(chan struct{}, 1)
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			w.Write([]byte("<p>a page</p>"))
			return
		}
		mu.Lock()
		robotsAt = append(robotsAt, time.Now())
		first := len(robotsAt) == 1
		mu.Unlock()
		if first {
			arrived <- struct{}{}
			select { // the first answer never comes: the client dies first
			case <-r.Context().Done():
			case <-quit:
			}
			return
		}
		w.Write([]byte("User-agent: *\nAllow: /\n"))
	}))
	defer srv.Close()
	defer close(quit)

	dir := t.TempDir()
	resolve := map[string]string{"cut.test:80": srv.Listener.Addr().String()}
	job := recrawlJob{Seeds: []string{"http://cut.test/"}, Resolve: resolve, DataDir: dir}
	arrivedYet := func() bool {
		select {
		case <-arrived:
			return true
		default:
			return false
		}
	}
	killChildWhen(t, job, arrivedYet, "its robots.txt request")

	cfg := farmConfig(job.Seeds, resolve, dir)
	const backoff = time.Second
	cfg.Politeness.BackoffBase = config.Duration(backoff)
	cfg.Politeness.BackoffMax = config.Duration(backoff) // at least backoff_base
	maxDelay := time.Duration(cfg.Politeness.MaxDelay)
	start := time.Now()
	if sum := runCrawl(t, cfg); !sum.Complete || sum.Pages != 1 {
		t.Fatalf("the run after the kill: complete %v, %d pages; want complete, 1 page", sum.Complete, sum.Pages)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(robotsAt) != 2 {
		t.Fatalf("robots.txt requested %d times, want 2 (the cut one and its retry)", len(robotsAt))
	}
	least := backoff - time.Duration(float64(backoff)*politeness.DefaultJitter)
	if wait := robotsAt[1].Sub(start); wait < least {
		t.Errorf("robots.txt retried %v after the run began, want at least the backoff's least %v", wait, least)
	}
	if gap := robotsAt[1].Sub(robotsAt[0]); gap >= maxDelay {
		t.Errorf("robots.txt retried %v after the cut request, want the backoff (%v), not max_delay (%v)", gap, backoff, maxDelay)
	}
	if cuts := cutLines(t, filepath.Join(dir, "crawl.log")); len(cuts) != 1 {
		t.Errorf("crawl.log says %d times that a robots.txt fetch was cut, want once", len(cuts))
	}
}

// TestRobotsStopGrace: a graceful stop (Ctrl-C) that comes while a robots.txt request is
// with the server gives it a grace to be answered: an answer within it is stored and no
// fetch stays marked in progress, so the next run need not space the host as after a
// cut connection; a server that stalls past it does not hold the stop, and the mark
// stays. The grace is set here (crawlWait, 100 ms) so that the outcome does not depend
// on the machine's load; the default, 2 s, keeps cmd/crawl's TestSignalAbandonsRobotsWait
// prompt. Before, the stop cancelled the request at once and left the mark.
func TestRobotsStopGrace(t *testing.T) {
	for _, tc := range []struct {
		name    string
		grace   time.Duration
		answer  bool // the server answers once the crawl has been told to stop
		pending bool // the record keeps the mark after the stop
	}{
		{"answered within the grace", crawlWait, true, false},
		{"stalled past the grace", 100 * time.Millisecond, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer crawl.SetRobotsStopGrace(tc.grace)()
			asked := make(chan struct{}, 1)
			stopped, quit := make(chan struct{}), make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/robots.txt" {
					http.NotFound(w, r)
					return
				}
				asked <- struct{}{}
				if !tc.answer {
					select { // never answers
					case <-r.Context().Done():
					case <-quit:
					}
					return
				}
				<-stopped
				w.Write([]byte("User-agent: *\nCrawl-delay: 2\n"))
			}))
			defer srv.Close()
			defer close(quit)
			dir := t.TempDir()
			cfg := farmConfig([]string{"http://slow.test/"}, map[string]string{"slow.test:80": srv.Listener.Addr().String()}, dir)
			cfg.Workers = 1
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, ended := startCrawl(t, ctx, cfg)
			awaitSignal(t, asked, ended, "its robots.txt request at the server")
			cancel()
			close(stopped)
			select {
			case <-ended:
			case <-time.After(crawlWait):
				t.Fatal("the stopped crawl did not end")
			}

			f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			data, err := f.LoadRobots("http://slow.test")
			if err != nil {
				t.Fatal(err)
			}
			got := string(data)
			if pending := strings.Contains(got, `"pending"`); pending != tc.pending {
				t.Errorf("robots.txt record after the stop: %s; want a fetch marked in progress %v", got, tc.pending)
			}
			if stored := strings.Contains(got, `"good":{"status":200`); stored != tc.answer {
				t.Errorf("robots.txt record after the stop: %s; want the answer stored %v", got, tc.answer)
			}
		})
	}
}
