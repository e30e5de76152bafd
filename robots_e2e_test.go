package crawl_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/robots"
)

// site is one httptest server whose robots.txt the test controls; it records the paths
// requested.
type site struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newSite(t *testing.T, robotsTxt http.HandlerFunc) *site {
	s := &site{hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/robots"):
			robotsTxt(w, r)
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<a href="/early">e</a> <a href="/late">l</a>`))
		default:
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<p>page</p>"))
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// TestRobotsFetching crawls single sites whose robots.txt misbehaves, one way each, and
// checks what RFC 9309 §2.3 asks: an unreachable robots.txt (redirect loop, timeout,
// trickle, 429) keeps every page unfetched and the host is set aside; a robots.txt over
// the size limit is obeyed up to it.
func TestRobotsFetching(t *testing.T) {
	wait := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}
	for _, tc := range []struct {
		name        string
		robots      http.HandlerFunc
		unreachable bool
	}{
		{"redirect loop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
		}, true},
		{"timeout", wait, true},
		{"trickle", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("User-agent: *\n"))
			w.(http.Flusher).Flush()
			wait(w, r)
		}, true},
		{"429", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, true},
		{"600 KiB", func(w http.ResponseWriter, r *http.Request) {
			var b strings.Builder
			b.WriteString("User-agent: *\nDisallow: /early\n")
			for b.Len() < robots.MaxSize+10<<10 {
				b.WriteString("# padding padding padding padding padding padding padding\n")
			}
			b.WriteString("Disallow: /late\n") // past MaxSize: ignored
			for b.Len() < 600<<10 {
				b.WriteString("# more\n")
			}
			w.Write([]byte(b.String()))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, tc.robots)
			cfg := config.Default()
			cfg.DataDir = t.TempDir()
			cfg.Seeds = []string{s.srv.URL + "/"}
			cfg.Workers = 2
			cfg.Politeness.MinDelay = config.Duration(5 * time.Millisecond)
			cfg.Politeness.BackoffBase = config.Duration(5 * time.Millisecond)
			cfg.Politeness.BackoffMax = config.Duration(20 * time.Millisecond)
			cfg.Fetch.Timeout = config.Duration(300 * time.Millisecond)
			cfg.Robots.UnreachableAttempts = 2
			cfg.Robots.UnreachableRetry = config.Duration(5 * time.Millisecond)
			cfg.Network.AllowPrivate = true
			sum := runCrawl(t, cfg)

			if tc.unreachable {
				if n := s.count("/"); n != 0 {
					t.Errorf("/ fetched %d times behind an unreachable robots.txt", n)
				}
				// A fetch that got no response counts among the errors, not the
				// robots.txt fetched.
				if tries := sum.RobotsFetched + sum.Errors; sum.Parked != 1 || tries < 2 {
					t.Errorf("got %d URLs set aside after %d robots.txt tries; want 1 after at least 2\n%s",
						sum.Parked, tries, sum)
				}
				return
			}
			if s.count("/") != 1 || s.count("/early") != 0 || s.count("/late") != 1 {
				t.Errorf("fetched / %d, /early %d, /late %d times; want 1, 0 (disallowed) and 1 (rule past MaxSize)",
					s.count("/"), s.count("/early"), s.count("/late"))
			}
		})
	}
}
