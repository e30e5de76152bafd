package robots

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// t0 is the fake clock's start.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// clock is a fake clock for CacheOptions.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// reply is one scripted answer of a fakeFetcher.
type reply struct {
	status int
	body   string
	header http.Header
	final  string
	err    error // a network error: status and the rest are ignored
}

var errNetwork = errors.New("connection refused")

// fakeFetcher answers with its replies in turn, repeating the last one, and counts
// calls per URL.
type fakeFetcher struct {
	mu      sync.Mutex
	replies []reply
	calls   map[string]int
}

func fetcher(replies ...reply) *fakeFetcher {
	return &fakeFetcher{replies: replies, calls: make(map[string]int)}
}

func (f *fakeFetcher) FetchRobots(ctx context.Context, robotsURL string) (*FetchResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.calls[robotsURL]
	f.calls[robotsURL]++
	r := f.replies[min(n, len(f.replies)-1)]
	if r.err != nil {
		return nil, r.err
	}
	return &FetchResult{Status: r.status, Body: []byte(r.body), Header: r.header, FinalURL: r.final}, nil
}

// count returns the number of fetches of authority's robots.txt so far.
func (f *fakeFetcher) count(authority string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[authority+"/robots.txt"]
}

// memStore is an in-memory Store that can be made to fail.
type memStore struct {
	mu      sync.Mutex
	data    map[string][]byte
	loadErr error
	saveErr error
	saveOK  int // saves that succeed before saveErr applies
}

func newStore() *memStore { return &memStore{data: make(map[string][]byte)} }

func (s *memStore) LoadRobots(authority string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loadErr != nil {
		return nil, s.loadErr
	}
	return bytes.Clone(s.data[authority]), nil
}

func (s *memStore) SaveRobots(authority string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.saveErr != nil {
		if s.saveOK == 0 {
			return s.saveErr
		}
		s.saveOK--
	}
	if len(data) == 0 {
		delete(s.data, authority)
	} else {
		s.data[authority] = bytes.Clone(data)
	}
	return nil
}

func (s *memStore) get(authority string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data[authority]
}

const (
	host = "https://example.com"
	body = "user-agent: *\ndisallow: /private\n"
)

// mustGet calls c.Get and fails the test on an error.
func mustGet(t *testing.T, c *Cache, authority string) *Entry {
	t.Helper()
	e, err := c.Get(context.Background(), authority)
	if err != nil {
		t.Fatalf("Get(%q): got error %v, want none", authority, err)
	}
	if e.Robots == nil {
		t.Fatalf("Get(%q): got nil Robots", authority)
	}
	return e
}

// allows returns which of /, /private and /robots.txt e allows, as "yes/no/yes".
func allows(e *Entry) string {
	var out []string
	for _, p := range []string{"/", "/private", "/robots.txt"} {
		if e.Decide("ExampleBot", host+p).Allowed {
			out = append(out, "yes")
		} else {
			out = append(out, "no")
		}
	}
	return strings.Join(out, "/")
}

func TestCacheStatus(t *testing.T) {
	tests := []struct {
		name        string
		reply       reply
		allows      string
		status      int
		digest      string
		finalURL    string
		unreachable bool
	}{
		{"200", reply{status: 200, body: body}, "yes/no/yes", 200, digest([]byte(body)), host + "/robots.txt", false},
		{"200 redirected", reply{status: 200, body: body, final: "https://www.example.com/robots.txt"}, "yes/no/yes", 200, digest([]byte(body)), "https://www.example.com/robots.txt", false},
		{"200 empty", reply{status: 200}, "yes/yes/yes", 200, digest(nil), host + "/robots.txt", false},
		{"404", reply{status: 404, body: "<h1>not found</h1>"}, "yes/yes/yes", 404, "", host + "/robots.txt", false},
		{"403", reply{status: 403, body: "user-agent: *\ndisallow: /"}, "yes/yes/yes", 403, "", host + "/robots.txt", false},
		{"401", reply{status: 401}, "yes/yes/yes", 401, "", host + "/robots.txt", false},
		{"429", reply{status: 429, body: body}, "no/no/yes", 429, "", host + "/robots.txt", true},
		{"500", reply{status: 500, body: body}, "no/no/yes", 500, "", host + "/robots.txt", true},
		{"503", reply{status: 503}, "no/no/yes", 503, "", host + "/robots.txt", true},
		{"unfollowed 301", reply{status: 301, final: "https://e.test/6"}, "no/no/yes", 301, "", "https://e.test/6", true},
		{"1xx", reply{status: 102}, "no/no/yes", 102, "", host + "/robots.txt", true},
		{"600", reply{status: 600}, "no/no/yes", 600, "", host + "/robots.txt", true},
		{"network error", reply{err: errNetwork}, "no/no/yes", 0, "", host + "/robots.txt", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fetcher(tt.reply)
			c := NewCache(f, nil, CacheOptions{Now: newClock().Now})
			e := mustGet(t, c, host)
			if got := allows(e); got != tt.allows {
				t.Errorf("allowed /, /private, /robots.txt:\n\tgot %s\n\twant %s", got, tt.allows)
			}
			if e.Status != tt.status || e.Digest != tt.digest || e.FinalURL != tt.finalURL || e.Unreachable != tt.unreachable {
				t.Errorf("entry:\n\tgot status %d, digest %q, final %q, unreachable %v\n\twant status %d, digest %q, final %q, unreachable %v",
					e.Status, e.Digest, e.FinalURL, e.Unreachable, tt.status, tt.digest, tt.finalURL, tt.unreachable)
			}
			if e.Authority != host || e.URL != host+"/robots.txt" || !e.FetchedAt.Equal(t0) {
				t.Errorf("entry: got authority %q, URL %q, fetched %v; want %q, %q, %v", e.Authority, e.URL, e.FetchedAt, host, host+"/robots.txt", t0)
			}
			wantExpires, wantAttempts, wantRetry := t0.Add(24*time.Hour), 0, time.Time{}
			if tt.unreachable {
				wantExpires, wantAttempts, wantRetry = t0.Add(time.Minute), 1, t0.Add(time.Minute)
			}
			if !e.Expires.Equal(wantExpires) || e.Attempts != wantAttempts || !e.RetryAt.Equal(wantRetry) || e.Stale || e.GaveUp {
				t.Errorf("entry: got expires %v, attempts %d, retry at %v, stale %v, gave up %v\n\twant %v, %d, %v, false, false",
					e.Expires, e.Attempts, e.RetryAt, e.Stale, e.GaveUp, wantExpires, wantAttempts, wantRetry)
			}
			if got := f.count(host); got != 1 {
				t.Errorf("fetches: got %d, want 1", got)
			}
		})
	}
}

func TestCacheFresh(t *testing.T) {
	clk := newClock()
	f := fetcher(reply{status: 200, body: body}, reply{status: 200, body: "user-agent: *\ndisallow: /\n"})
	c := NewCache(f, nil, CacheOptions{Now: clk.Now})
	first := mustGet(t, c, host)
	clk.Set(t0.Add(24*time.Hour - time.Nanosecond))
	if e := mustGet(t, c, host); e != first {
		t.Errorf("Get before Expires: got a new entry %v, want the first one", e)
	}
	if got := f.count(host); got != 1 {
		t.Fatalf("fetches before Expires: got %d, want 1", got)
	}
	clk.Set(t0.Add(24 * time.Hour))
	e := mustGet(t, c, host)
	if got := f.count(host); got != 2 {
		t.Fatalf("fetches at Expires: got %d, want 2", got)
	}
	if got := allows(e); got != "no/no/yes" {
		t.Errorf("refetched rules: got %s, want no/no/yes", got)
	}
	if want := t0.Add(48 * time.Hour); !e.Expires.Equal(want) {
		t.Errorf("refetched Expires: got %v, want %v", e.Expires, want)
	}
}

func TestCacheUnreachableBackoff(t *testing.T) {
	replies := map[string]reply{
		"429":            {status: 429},
		"500":            {status: 500},
		"network error":  {err: errNetwork},
		"unfollowed 302": {status: 302},
	}
	for name, r := range replies {
		t.Run(name, func(t *testing.T) {
			clk := newClock()
			f := fetcher(r)
			c := NewCache(f, nil, CacheOptions{Now: clk.Now, UnreachableRetry: 10 * time.Minute})
			// Each step: when Get is called, and what it must find.
			steps := []struct {
				at       time.Duration
				fetches  int
				attempts int
				retryAt  time.Duration
				gaveUp   bool
			}{
				{0, 1, 1, 10 * time.Minute, false},
				{10*time.Minute - 1, 1, 1, 10 * time.Minute, false}, // before RetryAt: no fetch
				{10 * time.Minute, 2, 2, 30 * time.Minute, false},   // waits 20 min
				{29 * time.Minute, 2, 2, 30 * time.Minute, false},
				{30 * time.Minute, 3, 3, 70 * time.Minute, true}, // third attempt: gives up
				{69 * time.Minute, 3, 3, 70 * time.Minute, true},
				{70 * time.Minute, 4, 4, 150 * time.Minute, true},
			}
			for _, s := range steps {
				clk.Set(t0.Add(s.at))
				e := mustGet(t, c, host)
				if got := f.count(host); got != s.fetches {
					t.Errorf("at +%v: fetches: got %d, want %d", s.at, got, s.fetches)
				}
				if !e.Unreachable || e.Stale || e.Attempts != s.attempts || !e.RetryAt.Equal(t0.Add(s.retryAt)) || !e.Expires.Equal(e.RetryAt) || e.GaveUp != s.gaveUp {
					t.Errorf("at +%v: got unreachable %v, stale %v, attempts %d, retry at +%v, expires +%v, gave up %v\n\twant true, false, %d, +%v, +%v, %v",
						s.at, e.Unreachable, e.Stale, e.Attempts, e.RetryAt.Sub(t0), e.Expires.Sub(t0), e.GaveUp,
						s.attempts, s.retryAt, s.retryAt, s.gaveUp)
				}
				if got := allows(e); got != "no/no/yes" {
					t.Errorf("at +%v: allowed: got %s, want no/no/yes", s.at, got)
				}
			}
		})
	}
}

func TestCacheBackoffCap(t *testing.T) {
	clk := newClock()
	c := NewCache(fetcher(reply{status: 503}), nil, CacheOptions{Now: clk.Now, MaxAge: 3 * time.Hour, UnreachableAttempts: 100})
	var waits []time.Duration
	for range 12 {
		e := mustGet(t, c, host)
		waits = append(waits, e.RetryAt.Sub(clk.Now()))
		clk.Set(e.RetryAt)
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 64, 128, 180, 180, 180, 180}
	for i := range want {
		want[i] *= time.Minute
	}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Errorf("waits between attempts:\n\tgot %v\n\twant %v", waits, want)
	}
}

func TestCacheUnreachableAttempts(t *testing.T) {
	clk := newClock()
	c := NewCache(fetcher(reply{status: 500}), nil, CacheOptions{Now: clk.Now, UnreachableAttempts: 1})
	if e := mustGet(t, c, host); !e.GaveUp || e.Attempts != 1 {
		t.Errorf("UnreachableAttempts 1: got gave up %v after %d attempts, want true after 1", e.GaveUp, e.Attempts)
	}
}

func TestCacheRecovers(t *testing.T) {
	clk := newClock()
	f := fetcher(reply{status: 503}, reply{status: 503}, reply{status: 200, body: body}, reply{status: 503})
	c := NewCache(f, nil, CacheOptions{Now: clk.Now})
	for range 2 {
		clk.Set(mustGet(t, c, host).RetryAt)
	}
	e := mustGet(t, c, host)
	if e.Unreachable || e.Attempts != 0 || !e.RetryAt.IsZero() || e.Status != 200 {
		t.Fatalf("after recovery: got unreachable %v, attempts %d, retry at %v, status %d; want false, 0, zero, 200",
			e.Unreachable, e.Attempts, e.RetryAt, e.Status)
	}
	clk.Set(e.Expires)
	if e := mustGet(t, c, host); !e.Stale || e.Attempts != 1 {
		t.Errorf("failing again: got stale %v, attempts %d; want true, 1 (count starts again)", e.Stale, e.Attempts)
	}
}

func TestCacheStale(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		name  string
		good  reply
		fails []time.Duration // times of the failing fetches after t0
		stale []bool          // whether each one is Stale
	}{
		{"within 30 days", reply{status: 200, body: body}, []time.Duration{day, 29 * day, 30 * day}, []bool{true, true, true}},
		{"after 30 days", reply{status: 200, body: body}, []time.Duration{day, 30*day + time.Second}, []bool{true, false}},
		{"404 copy", reply{status: 404}, []time.Duration{day, 31 * day}, []bool{true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			c := NewCache(fetcher(tt.good, reply{status: 503}), nil, CacheOptions{Now: clk.Now})
			good := mustGet(t, c, host)
			for i, at := range tt.fails {
				clk.Set(t0.Add(at))
				e := mustGet(t, c, host)
				if e.Stale != tt.stale[i] || !e.Unreachable || e.Status != 503 || e.Attempts != i+1 {
					t.Errorf("at +%v: got stale %v, unreachable %v, status %d, attempts %d; want %v, true, 503, %d",
						at, e.Stale, e.Unreachable, e.Status, e.Attempts, tt.stale[i], i+1)
				}
				if e.Stale {
					if e.Robots != good.Robots || e.Digest != good.Digest || !e.FetchedAt.Equal(t0) || e.FinalURL != good.FinalURL || e.GaveUp {
						t.Errorf("at +%v: stale entry %v does not use the copy %v", at, e, good)
					}
					if got, want := allows(e), allows(good); got != want {
						t.Errorf("at +%v: allowed: got %s, want %s (the copy's)", at, got, want)
					}
				} else {
					if got := allows(e); got != "no/no/yes" || !e.FetchedAt.Equal(t0.Add(at)) || e.Digest != "" {
						t.Errorf("at +%v: got allowed %s, fetched %v, digest %q; want no/no/yes, %v, \"\"", at, got, e.FetchedAt, e.Digest, t0.Add(at))
					}
				}
			}
		})
	}
}

// TestCacheStaleExpiresWhileWaiting checks that an entry stops being Stale when its copy
// passes StaleLimit, even before RetryAt, without a fetch.
func TestCacheStaleExpiresWhileWaiting(t *testing.T) {
	clk := newClock()
	f := fetcher(reply{status: 200, body: body}, reply{status: 503})
	c := NewCache(f, nil, CacheOptions{Now: clk.Now, MaxAge: time.Hour, UnreachableRetry: 30 * time.Minute, StaleLimit: 80 * time.Minute, UnreachableAttempts: 1})
	mustGet(t, c, host)
	clk.Set(t0.Add(time.Hour))
	if e := mustGet(t, c, host); !e.Stale || e.GaveUp || allows(e) != "yes/no/yes" {
		t.Fatalf("copy 60 min old: got stale %v, gave up %v, allowed %s; want true, false, yes/no/yes", e.Stale, e.GaveUp, allows(e))
	}
	clk.Set(t0.Add(85 * time.Minute))
	e := mustGet(t, c, host)
	if e.Stale || !e.GaveUp || allows(e) != "no/no/yes" || !e.RetryAt.Equal(t0.Add(90*time.Minute)) {
		t.Errorf("copy 85 min old: got stale %v, gave up %v, allowed %s, retry at %v; want false, true, no/no/yes, %v",
			e.Stale, e.GaveUp, allows(e), e.RetryAt, t0.Add(90*time.Minute))
	}
	if got := f.count(host); got != 2 {
		t.Errorf("fetches: got %d, want 2", got)
	}
}

func TestCacheMaxAge(t *testing.T) {
	cc := func(v ...string) http.Header { return http.Header{"Cache-Control": v} }
	tests := []struct {
		name   string
		opts   CacheOptions
		header http.Header
		want   time.Duration
	}{
		{"default", CacheOptions{}, nil, 24 * time.Hour},
		{"max-age shortens", CacheOptions{}, cc("max-age=3600"), time.Hour},
		{"among directives", CacheOptions{}, cc("public, Max-Age=600, must-revalidate"), 10 * time.Minute},
		{"quoted", CacheOptions{}, cc(`max-age="120"`), 2 * time.Minute},
		{"smallest of two", CacheOptions{}, cc("max-age=7200", "max-age=3600"), time.Hour},
		{"never lengthens", CacheOptions{}, cc("max-age=172800"), 24 * time.Hour},
		{"huge", CacheOptions{}, cc("max-age=99999999999999999999"), 24 * time.Hour},
		{"invalid ignored", CacheOptions{}, cc("max-age=soon"), 24 * time.Hour},
		{"negative ignored", CacheOptions{}, cc("max-age=-5"), 24 * time.Hour},
		{"zero is MinAge", CacheOptions{}, cc("max-age=0"), time.Minute},
		{"no-store is MinAge", CacheOptions{}, cc("no-store"), time.Minute},
		{"no-cache is MinAge", CacheOptions{MinAge: 5 * time.Minute}, cc("no-cache"), 5 * time.Minute},
		{"MaxAge 2h", CacheOptions{MaxAge: 2 * time.Hour}, nil, 2 * time.Hour},
		{"MaxAge 2h, max-age 3h", CacheOptions{MaxAge: 2 * time.Hour}, cc("max-age=10800"), 2 * time.Hour},
		{"MaxAge capped at 24h", CacheOptions{MaxAge: 72 * time.Hour}, nil, 24 * time.Hour},
		{"MinAge above MaxAge", CacheOptions{MaxAge: time.Minute, MinAge: time.Hour}, cc("max-age=0"), time.Minute},
		{"4xx too", CacheOptions{}, cc("max-age=60"), time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			status := 200
			if strings.HasPrefix(tt.name, "4xx") {
				status = 404
			}
			f := fetcher(reply{status: status, body: body, header: tt.header})
			tt.opts.Now = clk.Now
			c := NewCache(f, nil, tt.opts)
			e := mustGet(t, c, host)
			if got := e.Expires.Sub(e.FetchedAt); got != tt.want {
				t.Errorf("lifetime with %v:\n\tgot %v\n\twant %v", tt.header, got, tt.want)
			}
			clk.Set(e.Expires.Add(-time.Nanosecond))
			mustGet(t, c, host)
			clk.Set(e.Expires)
			mustGet(t, c, host)
			if got := f.count(host); got != 2 {
				t.Errorf("fetches up to Expires: got %d, want 2", got)
			}
		})
	}
}

func TestCacheRetryAfter(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  time.Duration
	}{
		{"longer wins", "600", 10 * time.Minute},
		{"shorter ignored", "10", time.Minute},
		{"capped at MaxAge", "999999999999", 24 * time.Hour},
		{"date", t0.Add(2 * time.Hour).Format(http.TimeFormat), 2 * time.Hour},
		{"date far ahead", t0.Add(90 * 24 * time.Hour).Format(http.TimeFormat), 24 * time.Hour},
		{"junk", "soon", time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fetcher(reply{status: 503, header: http.Header{"Retry-After": {tt.value}}})
			c := NewCache(f, nil, CacheOptions{Now: newClock().Now})
			e := mustGet(t, c, host)
			if got := e.RetryAt.Sub(t0); got != tt.want {
				t.Errorf("Retry-After %q: wait:\n\tgot %v\n\twant %v", tt.value, got, tt.want)
			}
		})
	}
}

// blockingFetcher blocks each fetch until release is closed or its ctx ends, and
// reports on started when a fetch begins.
type blockingFetcher struct {
	started chan struct{}
	release chan struct{}
	mu      sync.Mutex
	calls   int
}

func newBlockingFetcher() *blockingFetcher {
	return &blockingFetcher{started: make(chan struct{}, 100), release: make(chan struct{})}
}

func (f *blockingFetcher) FetchRobots(ctx context.Context, robotsURL string) (*FetchResult, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	f.started <- struct{}{}
	select {
	case <-f.release:
		return &FetchResult{Status: 200, Body: []byte(body)}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *blockingFetcher) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func TestCacheSingleFlight(t *testing.T) {
	f := newBlockingFetcher()
	c := NewCache(f, newStore(), CacheOptions{Now: newClock().Now})
	const n = 50
	entries := make([]*Entry, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { entries[i], errs[i] = c.Get(context.Background(), host) })
	}
	<-f.started
	close(f.release)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || entries[i] != entries[0] {
			t.Fatalf("Get %d: got %p, %v; want the shared entry %p, no error", i, entries[i], errs[i], entries[0])
		}
	}
	if got := f.count(); got != 1 {
		t.Errorf("fetches for %d goroutines: got %d, want 1", n, got)
	}
}

func TestCacheWaiterContext(t *testing.T) {
	f := newBlockingFetcher()
	c := NewCache(f, nil, CacheOptions{Now: newClock().Now})
	leader := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), host)
		leader <- err
	}()
	<-f.started // the leader's fetch is under way

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if e, err := c.Get(ctx, host); !errors.Is(err, context.Canceled) || e != nil {
		t.Errorf("waiting with a cancelled ctx: got %v, %v; want nil, context.Canceled", e, err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := c.Get(ctx, host); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting past a deadline: got %v, want context.DeadlineExceeded", err)
	}
	close(f.release)
	if err := <-leader; err != nil {
		t.Errorf("leader: got %v, want no error", err)
	}
	if got := f.count(); got != 1 {
		t.Errorf("fetches: got %d, want 1", got)
	}
}

// TestCacheLeaderContext checks that when the goroutine fetching gives up, nothing is
// recorded against the host and a waiter fetches in its place.
func TestCacheLeaderContext(t *testing.T) {
	f := newBlockingFetcher()
	c := NewCache(f, newStore(), CacheOptions{Now: newClock().Now})
	ctx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx, host)
		leader <- err
	}()
	<-f.started
	waiter := make(chan *Entry, 1)
	go func() {
		e, _ := c.Get(context.Background(), host)
		waiter <- e
	}()
	cancel()
	if err := <-leader; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: got %v, want context.Canceled", err)
	}
	<-f.started // the waiter fetches in turn
	close(f.release)
	e := <-waiter
	if e == nil || e.Unreachable || e.Attempts != 0 || e.Status != 200 {
		t.Fatalf("waiter: got %v; want the 200 entry, not unreachable", e)
	}
	if got := f.count(); got != 2 {
		t.Errorf("fetches: got %d, want 2", got)
	}
}

func TestCacheCancelledBeforeFetch(t *testing.T) {
	f := fetcher(reply{status: 200, body: body})
	c := NewCache(f, nil, CacheOptions{Now: newClock().Now})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Get(ctx, host); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled ctx: got %v, want context.Canceled", err)
	}
	if got := f.count(host); got != 0 {
		t.Errorf("fetches: got %d, want 0", got)
	}
	mustGet(t, c, host)
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := c.Get(ctx, host); err != nil {
		t.Errorf("Get of a fresh entry with a cancelled ctx: got %v, want no error", err)
	}
}

func TestCachePersistence(t *testing.T) {
	t.Run("fresh", func(t *testing.T) {
		clk, store := newClock(), newStore()
		f := fetcher(reply{status: 200, body: body, final: "https://www.example.com/robots.txt", header: http.Header{"Cache-Control": {"max-age=7200"}}})
		first := mustGet(t, NewCache(f, store, CacheOptions{Now: clk.Now}), host)
		clk.Set(t0.Add(time.Hour))
		c := NewCache(f, store, CacheOptions{Now: clk.Now})
		e := mustGet(t, c, host)
		if got := f.count(host); got != 1 {
			t.Fatalf("fetches by a new Cache while fresh: got %d, want 1", got)
		}
		if e.Status != first.Status || e.Digest != first.Digest || !e.FetchedAt.Equal(first.FetchedAt) || !e.Expires.Equal(first.Expires) ||
			e.FinalURL != first.FinalURL || allows(e) != allows(first) {
			t.Errorf("reloaded entry:\n\tgot %v, expires %v, allows %s\n\twant %v, expires %v, allows %s",
				e, e.Expires, allows(e), first, first.Expires, allows(first))
		}
		clk.Set(first.Expires)
		mustGet(t, c, host)
		if got := f.count(host); got != 2 {
			t.Errorf("fetches after Expires: got %d, want 2", got)
		}
	})
	t.Run("404", func(t *testing.T) {
		clk, store := newClock(), newStore()
		f := fetcher(reply{status: 404, body: "gone"})
		mustGet(t, NewCache(f, store, CacheOptions{Now: clk.Now}), host)
		e := mustGet(t, NewCache(f, store, CacheOptions{Now: clk.Now}), host)
		if f.count(host) != 1 || e.Status != 404 || allows(e) != "yes/yes/yes" || e.Digest != "" {
			t.Errorf("reloaded 404: got %d fetches, %v, allows %s; want 1, status 404, yes/yes/yes", f.count(host), e, allows(e))
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		clk, store := newClock(), newStore()
		f := fetcher(reply{status: 503})
		c1 := NewCache(f, store, CacheOptions{Now: clk.Now, UnreachableAttempts: 2})
		mustGet(t, c1, host)
		clk.Set(t0.Add(time.Minute))
		if e := mustGet(t, c1, host); !e.GaveUp {
			t.Fatalf("second failure: got %v, want gave up", e)
		}
		c2 := NewCache(f, store, CacheOptions{Now: clk.Now, UnreachableAttempts: 2})
		e := mustGet(t, c2, host)
		if f.count(host) != 2 || !e.Unreachable || e.GaveUp || e.Attempts != 0 || !e.RetryAt.Equal(t0.Add(3*time.Minute)) {
			t.Errorf("new Cache before RetryAt: got %d fetches, %v; want 2, unreachable, 0 attempts, retry at +3m", f.count(host), e)
		}
		clk.Set(e.RetryAt)
		e = mustGet(t, c2, host)
		if f.count(host) != 3 || e.Attempts != 1 || e.GaveUp {
			t.Errorf("new Cache at RetryAt: got %d fetches, %v; want 3, attempt 1, not given up", f.count(host), e)
		}
	})
	t.Run("stale copy survives failures", func(t *testing.T) {
		clk, store := newClock(), newStore()
		f := fetcher(reply{status: 200, body: body}, reply{err: errNetwork})
		c1 := NewCache(f, store, CacheOptions{Now: clk.Now})
		good := mustGet(t, c1, host)
		for _, at := range []time.Duration{24 * time.Hour, 25 * time.Hour} {
			clk.Set(t0.Add(at))
			mustGet(t, c1, host)
		}
		e := mustGet(t, NewCache(f, store, CacheOptions{Now: clk.Now}), host)
		if !e.Stale || e.Digest != good.Digest || !e.FetchedAt.Equal(t0) || allows(e) != "yes/no/yes" {
			t.Errorf("new Cache while unreachable: got %v, allows %s; want the stale copy %v", e, allows(e), good)
		}
	})
	t.Run("body bounded", func(t *testing.T) {
		store := newStore()
		big := "user-agent: *\ndisallow: /private\n" + strings.Repeat("#", MaxSize)
		mustGet(t, NewCache(fetcher(reply{status: 200, body: big}), store, CacheOptions{Now: newClock().Now}), host)
		r, ok := decodeRecord(store.get(host))
		if !ok || len(r.Good.Body) != MaxSize || r.Good.Digest != digest([]byte(big)) {
			t.Errorf("stored record: got ok %v, body of %d bytes; want true, %d bytes, digest of the whole body", ok, len(r.Good.Body), MaxSize)
		}
	})
	t.Run("options changed", func(t *testing.T) {
		clk, store := newClock(), newStore()
		f := fetcher(reply{status: 200, body: body})
		mustGet(t, NewCache(f, store, CacheOptions{Now: clk.Now}), host)
		e := mustGet(t, NewCache(f, store, CacheOptions{Now: clk.Now, MaxAge: time.Hour}), host)
		if !e.Expires.Equal(t0.Add(time.Hour)) || f.count(host) != 1 {
			t.Errorf("reloaded with a shorter MaxAge: got expires %v after %d fetches; want %v, 1", e.Expires, f.count(host), t0.Add(time.Hour))
		}
	})
}

func TestCacheCorruptStore(t *testing.T) {
	valid := func(edit func(r *record)) string {
		r := record{V: recordVersion, Good: &goodRecord{Status: 200, FetchedAt: t0, Expires: t0.Add(time.Hour), Body: []byte(body)}}
		edit(&r)
		b, err := json.Marshal(r)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	tests := map[string]string{
		"garbage":         "\x00\xffnot json",
		"truncated":       valid(func(*record) {})[:30],
		"null":            "null",
		"empty object":    "{}",
		"no state":        `{"v":1}`,
		"other version":   valid(func(r *record) { r.V = 2 }),
		"good 500":        valid(func(r *record) { r.Good.Status = 500 }),
		"good 429":        valid(func(r *record) { r.Good.Status = 429 }),
		"good no time":    valid(func(r *record) { r.Good.FetchedAt = time.Time{} }),
		"404 with body":   valid(func(r *record) { r.Good.Status = 404 }),
		"body too big":    valid(func(r *record) { r.Good.Body = make([]byte, MaxSize+1) }),
		"fail 200":        valid(func(r *record) { r.Fail = &failRecord{Status: 200, At: t0, RetryAt: t0.Add(time.Hour)} }),
		"fail attempts":   valid(func(r *record) { r.Fail = &failRecord{Status: 503, At: t0, Attempts: -1, RetryAt: t0.Add(time.Hour)} }),
		"wrong types":     `{"v":1,"good":{"status":"200","fetched_at":5}}`,
		"bad time":        `{"v":1,"good":{"status":200,"fetched_at":"yesterday","expires":"2099-01-01T00:00:00Z"}}`,
		"bad base64 body": `{"v":1,"good":{"status":200,"fetched_at":"2025-03-01T12:00:00Z","expires":"2099-01-01T00:00:00Z","body":"!!"}}`,
		"bad pending":     `{"v":1,"pending":"soon"}`,
		"pending number":  `{"v":1,"pending":17}`,
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			store := newStore()
			store.data[host] = []byte(data)
			f := fetcher(reply{status: 200, body: "user-agent: *\ndisallow: /\n"})
			var dropped []string
			e := mustGet(t, NewCache(f, store, CacheOptions{Now: newClock().Now,
				Dropped: func(a string) { dropped = append(dropped, a) }}), host)
			if len(dropped) != 1 || dropped[0] != host {
				t.Errorf("Dropped calls: got %q, want [%q]", dropped, host)
			}
			if got := f.count(host); got != 1 {
				t.Errorf("fetches: got %d, want 1", got)
			}
			if got := allows(e); got != "no/no/yes" {
				t.Errorf("allowed: got %s, want no/no/yes (the fetched rules)", got)
			}
			if _, ok := decodeRecord(store.get(host)); !ok {
				t.Errorf("stored data after the fetch: got %q, want a valid record", store.get(host))
			}
		})
	}
}

func TestCacheStoreErrors(t *testing.T) {
	errDisk := errors.New("disk on fire")
	t.Run("load", func(t *testing.T) {
		store := newStore()
		store.loadErr = errDisk
		f := fetcher(reply{status: 200, body: body})
		c := NewCache(f, store, CacheOptions{Now: newClock().Now})
		if _, err := c.Get(context.Background(), host); !errors.Is(err, errDisk) {
			t.Errorf("Get: got %v, want an error wrapping %v", err, errDisk)
		}
		store.mu.Lock()
		store.loadErr = nil
		store.mu.Unlock()
		mustGet(t, c, host)
		if got := f.count(host); got != 1 {
			t.Errorf("fetches: got %d, want 1", got)
		}
	})
	t.Run("mark", func(t *testing.T) {
		// The fetch cannot be marked in the Store: it does not begin.
		store := newStore()
		store.saveErr = errDisk
		f := fetcher(reply{status: 200, body: body})
		c := NewCache(f, store, CacheOptions{Now: newClock().Now})
		if _, err := c.Get(context.Background(), host); !errors.Is(err, errDisk) {
			t.Errorf("Get: got %v, want an error wrapping %v", err, errDisk)
		}
		if got := f.count(host); got != 0 {
			t.Errorf("fetches: got %d, want 0", got)
		}
	})
	t.Run("save", func(t *testing.T) {
		store := newStore()
		store.saveErr, store.saveOK = errDisk, 1 // the mark before the fetch is saved
		f := fetcher(reply{status: 200, body: body})
		c := NewCache(f, store, CacheOptions{Now: newClock().Now})
		if _, err := c.Get(context.Background(), host); !errors.Is(err, errDisk) {
			t.Errorf("Get: got %v, want an error wrapping %v", err, errDisk)
		}
		if e := mustGet(t, c, host); allows(e) != "yes/no/yes" || f.count(host) != 1 {
			t.Errorf("Get after a failed save: got %v after %d fetches; want the fetched rules, 1 fetch", e, f.count(host))
		}
	})
}

func TestCacheMaxEntries(t *testing.T) {
	auth := func(i int) string { return fmt.Sprintf("http://h%d.test", i) }
	t.Run("memory only", func(t *testing.T) {
		f := fetcher(reply{status: 200, body: body})
		c := NewCache(f, nil, CacheOptions{Now: newClock().Now, MaxEntries: 2})
		for _, i := range []int{0, 1, 0, 2, 0, 1} { // 1 is dropped when 2 comes
			mustGet(t, c, auth(i))
		}
		got := []int{f.count(auth(0)), f.count(auth(1)), f.count(auth(2))}
		if fmt.Sprint(got) != "[1 2 1]" {
			t.Errorf("fetches per authority: got %v, want [1 2 1]", got)
		}
		if len(c.slots) != 2 || c.lru.Len() != 2 {
			t.Errorf("held: got %d slots, %d in the list; want 2, 2", len(c.slots), c.lru.Len())
		}
	})
	t.Run("store", func(t *testing.T) {
		clk := newClock()
		f := fetcher(reply{status: 503})
		c := NewCache(f, newStore(), CacheOptions{Now: clk.Now, MaxEntries: 1})
		mustGet(t, c, auth(0))
		mustGet(t, c, auth(1)) // drops 0
		clk.Set(t0.Add(time.Minute))
		e := mustGet(t, c, auth(0))
		if e.Attempts != 2 || f.count(auth(0)) != 2 {
			t.Errorf("reloaded by the same Cache: got attempt %d after %d fetches; want 2, 2 (same run keeps counting)", e.Attempts, f.count(auth(0)))
		}
	})
}

// TestCacheConcurrent exercises the Cache from many goroutines for the race detector.
func TestCacheConcurrent(t *testing.T) {
	clk := newClock()
	f := fetcher(reply{status: 200, body: body}, reply{status: 503}, reply{err: errNetwork}, reply{status: 404})
	c := NewCache(f, newStore(), CacheOptions{Now: clk.Now, MaxEntries: 5})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				if g == 0 && i%10 == 0 {
					clk.Set(clk.Now().Add(7 * time.Minute))
				}
				e, err := c.Get(context.Background(), fmt.Sprintf("http://h%d.test", (g+i)%20))
				if err != nil || e.Robots == nil {
					t.Errorf("Get: got %v, %v", e, err)
					return
				}
				_ = e.Decide("bot", "/private")
				_ = e.String()
			}
		})
	}
	wg.Wait()
}

func TestEntryString(t *testing.T) {
	clk := newClock()
	tests := []struct {
		name    string
		replies []reply
		gets    int
		want    string
	}{
		{"200", []reply{{status: 200, body: body}}, 1,
			"https://example.com/robots.txt (status 200, fetched 2025-03-01T12:00:00Z, " + digest([]byte(body)) + ")"},
		{"redirected 404", []reply{{status: 404, final: "https://www.example.com/robots.txt"}}, 1,
			"https://example.com/robots.txt → https://www.example.com/robots.txt (status 404, fetched 2025-03-01T12:00:00Z)"},
		{"unreachable", []reply{{status: 503}}, 1,
			"https://example.com/robots.txt (unreachable: status 503, 1 attempts, retry at 2025-03-01T12:01:00Z; everything disallowed, fetched 2025-03-01T12:00:00Z)"},
		{"gave up", []reply{{err: errNetwork}}, 3,
			"https://example.com/robots.txt (unreachable: fetch failed, 3 attempts, retry at 2025-03-01T12:07:00Z; gave up, everything disallowed, fetched 2025-03-01T12:03:00Z)"},
		{"stale", []reply{{status: 200}, {status: 500}}, 2,
			"https://example.com/robots.txt (unreachable: status 500, 1 attempts, retry at 2025-03-02T12:01:00Z; using copy with status 200, fetched 2025-03-01T12:00:00Z, " + digest(nil) + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk.Set(t0)
			c := NewCache(fetcher(tt.replies...), nil, CacheOptions{Now: clk.Now})
			var e *Entry
			for range tt.gets {
				e = mustGet(t, c, host)
				clk.Set(e.Expires)
			}
			if got := e.String(); got != tt.want {
				t.Errorf("String:\n\tgot  %s\n\twant %s", got, tt.want)
			}
		})
	}
}

func TestEntryDecide(t *testing.T) {
	e := mustGet(t, NewCache(fetcher(reply{status: 200, body: body}), nil, CacheOptions{Now: newClock().Now}), host)
	d := e.Decide("ExampleBot/1.0", host+"/private/x")
	if d.Allowed || d.Rule == nil || d.Rule.Line != 2 || d.Reason != ByRule {
		t.Errorf("Decide(/private/x):\n\tgot %+v\n\twant disallowed by line 2", d)
	}
}

// FuzzCacheRecord checks that whatever the Store holds, Get neither panics nor fails,
// and that a record it stores decodes.
func FuzzCacheRecord(f *testing.F) {
	f.Add([]byte(`{"v":1,"good":{"status":200,"fetched_at":"2025-03-01T12:00:00Z","expires":"2025-03-01T13:00:00Z","body":"dXNlci1hZ2VudDogKgpkaXNhbGxvdzogLwo="}}`))
	f.Add([]byte(`{"v":1,"fail":{"status":503,"at":"2025-03-01T12:00:00Z","attempts":9223372036854775807,"retry_at":"2025-03-01T12:00:01Z","run":"x"}}`))
	f.Add([]byte(`{"v":1,"good":{"status":404,"fetched_at":"0001-01-01T00:00:01Z","expires":"9999-12-31T23:59:59Z"},"fail":{"status":0,"at":"2025-03-01T12:00:00Z","retry_at":"2025-03-01T11:00:00Z"}}`))
	f.Add([]byte("{\"v\":1,\"good\":"))
	f.Add([]byte(`{"v":1,"pending":"2025-03-01T11:59:00Z"}`))
	f.Add([]byte(`{"v":1,"fail":{"status":0,"at":"2025-03-01T12:00:00Z","attempts":1,"permanent":true,"retry_at":"2025-03-01T12:01:00Z"},"pending":"9999-12-31T23:59:59Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		store := newStore()
		store.data[host] = data
		clk := newClock()
		c := NewCache(fetcher(reply{status: 503}, reply{status: 200, body: body}), store, CacheOptions{Now: clk.Now})
		for range 3 {
			e := mustGet(t, c, host)
			if e.Expires.After(clk.Now().Add(24 * time.Hour)) {
				t.Fatalf("entry expires at %v, more than 24h after %v", e.Expires, clk.Now())
			}
			clk.Set(e.Expires)
		}
		if data := store.get(host); data != nil {
			if _, ok := decodeRecord(data); !ok {
				t.Fatalf("stored record does not decode: %q", data)
			}
		}
	})
}
