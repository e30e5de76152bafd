package politeness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// These tests run inside testing/synctest bubbles: time.Now, timers and time.After are
// virtual, so waiting a simulated dial or response time costs no real time and every
// run is the same.

// exchange is one simulated request as the server saw it.
type exchange struct {
	host           string
	granted        time.Time
	written, ended time.Time
	obs            Observation
}

// recorder collects exchanges from many goroutines and checks how many are in flight
// per key (host or IP address) at once.
type recorder struct {
	mu       sync.Mutex
	inflight map[string]int
	peak     map[string]int
	all      []exchange
}

func newRecorder() *recorder {
	return &recorder{inflight: map[string]int{}, peak: map[string]int{}}
}

func (r *recorder) begin(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inflight[key]++
	r.peak[key] = max(r.peak[key], r.inflight[key])
}

func (r *recorder) end(key string, x exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inflight[key]--
	r.all = append(r.all, x)
}

// farm describes the simulated hosts.
type farm struct {
	opts  Options
	addr  map[string]string // host → IP, for GroupByIP
	rules map[string]Rules
}

func (f farm) key(host string) string {
	if ip := f.addr[host]; ip != "" && f.opts.GroupByIP {
		return ip
	}
	return host
}

// run hammers the farm's hosts from workers goroutines, each making perWorker requests,
// and returns what the server saw.
func (f farm) run(t *testing.T, workers, perWorker int, writeHook bool) *recorder {
	t.Helper()
	rec := newRecorder()
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		opts := f.opts
		opts.Rand = rng.Float64 // called with the scheduler's lock held
		s := New(opts)
		hosts := make([]string, 0, len(f.addr))
		for h, ip := range f.addr {
			hosts = append(hosts, h)
			s.SetAddr(h, ip)
			s.SetRules(h, f.rules[h])
		}
		slices.Sort(hosts)
		ctx := context.Background()
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for j := 0; j < perWorker; {
					host := hosts[(w+j)%len(hosts)]
					tk, err := s.Acquire(ctx, host)
					if d, ok := errors.AsType[*DeferredError](err); ok {
						<-time.After(time.Until(d.Until)) // virtual: the engine requeues instead
						continue
					}
					if err != nil {
						t.Errorf("Acquire(%q): %v", host, err)
						return
					}
					j++
					x := exchange{host: host, granted: time.Now()}
					<-time.After(time.Duration((w*7+j*3)%5) * 100 * time.Millisecond) // dial
					x.written = time.Now()
					rec.begin(f.key(host))
					if writeHook {
						tk.Wrote(x.written)
					}
					<-time.After(time.Duration((w+j)%4) * 300 * time.Millisecond) // response
					x.ended = time.Now()
					switch (w * j) % 9 {
					case 0:
						x.obs = Observation{Status: 503, RetryAfter: "2"}
					case 1:
						x.obs = Observation{Status: 500}
					case 2:
						x.obs = Observation{Failed: true}
					default:
						x.obs = Observation{Status: 200}
					}
					x.obs.Written, x.obs.End = x.written, x.ended
					rec.end(f.key(host), x)
					s.Release(tk, x.obs)
				}
			})
		}
		wg.Wait()
	})
	if got, want := len(rec.all), workers*perWorker; got != want {
		t.Fatalf("recorded %d exchanges, want %d", got, want)
	}
	return rec
}

// gapAfter is the least time the server must see between the end of x and the next
// request to x's key: the delay in force, or more after a failure.
func (f farm) gapAfter(x exchange) time.Duration {
	o := f.opts.normalised()
	d := max(o.MinDelay, compileDelay(f.rules[x.host]))
	if o.AdaptiveFactor > 0 {
		d = max(d, min(time.Duration(o.AdaptiveFactor*float64(x.ended.Sub(x.written))), o.MaxDelay))
	}
	failed := x.obs.Failed || x.obs.Status >= 500
	switch {
	case x.obs.RetryAfter != "" && (x.obs.Status == 503 || x.obs.Status == 429):
		ra, _ := ParseRetryAfter(x.obs.RetryAfter, x.ended)
		d = max(d, ra.Sub(x.ended))
	case failed:
		d = max(d, time.Duration(float64(o.BackoffBase)*(1-o.Jitter)))
	}
	return d
}

func compileDelay(r Rules) time.Duration {
	if h := compileRules(r); h != nil {
		return h.delay
	}
	return 0
}

// checkSerial checks, for Concurrency 1, that per key the server never saw two requests
// at once and that each request came at least the delay in force after the previous
// exchange ended, and that per host its own robots delay held.
func (f farm) checkSerial(t *testing.T, rec *recorder) {
	t.Helper()
	byKey := map[string][]exchange{}
	byHost := map[string][]exchange{}
	for _, x := range rec.all {
		byKey[f.key(x.host)] = append(byKey[f.key(x.host)], x)
		byHost[x.host] = append(byHost[x.host], x)
	}
	for key, peak := range rec.peak {
		if peak > 1 {
			t.Errorf("%s: %d requests in flight at once, want 1", key, peak)
		}
	}
	for key, xs := range byKey {
		slices.SortFunc(xs, func(a, b exchange) int { return a.written.Compare(b.written) })
		for i := 1; i < len(xs); i++ {
			prev, x := xs[i-1], xs[i]
			if gap, want := x.written.Sub(prev.ended), f.gapAfter(prev); gap < want {
				t.Errorf("%s: request %d (%s) written %v after the previous response (%s, %+v) ended, want at least %v",
					key, i, x.host, gap, prev.host, prev.obs, want)
			}
			if x.granted.Before(prev.ended) {
				t.Errorf("%s: request %d granted before the previous response ended", key, i)
			}
		}
	}
	for host, xs := range byHost {
		slices.SortFunc(xs, func(a, b exchange) int { return a.written.Compare(b.written) })
		for i := 1; i < len(xs); i++ {
			if gap, want := xs[i].written.Sub(xs[i-1].ended), compileDelay(f.rules[host]); gap < want {
				t.Errorf("%s: request %d came %v after the previous one ended, want its robots delay %v", host, i, gap, want)
			}
		}
	}
}

func TestSpacingUnderLoad(t *testing.T) {
	f := farm{
		opts: Options{},
		addr: map[string]string{"a.test": "", "b.test": "", "c.test": ""},
		rules: map[string]Rules{
			"b.test": {RequestRate: RequestRate{Requests: 1, Period: 2 * time.Second}},
			"c.test": {CrawlDelay: 3 * time.Second},
		},
	}
	rec := f.run(t, 24, 6, false)
	f.checkSerial(t, rec)
}

func TestSpacingUnderLoadGroupByIP(t *testing.T) {
	f := farm{
		opts: Options{GroupByIP: true, MinDelay: 500 * time.Millisecond, AdaptiveFactor: 2},
		addr: map[string]string{"a.test": "192.0.2.1", "b.test": "192.0.2.1", "c.test": "192.0.2.1",
			"d.test": "192.0.2.2", "e.test": "192.0.2.2", "f.test": ""},
		rules: map[string]Rules{"b.test": {CrawlDelay: 4 * time.Second}},
	}
	rec := f.run(t, 24, 6, false)
	f.checkSerial(t, rec)
	if len(rec.peak) != 3 {
		t.Errorf("got %d budgets (%v), want 3: two addresses and one ungrouped host", len(rec.peak), rec.peak)
	}
}

func TestSpacingUnderLoadConcurrencyTwo(t *testing.T) {
	f := farm{
		opts:  Options{Concurrency: 2, MinDelay: 200 * time.Millisecond, AdaptiveFactor: -1},
		addr:  map[string]string{"a.test": "", "b.test": ""},
		rules: map[string]Rules{"b.test": {CrawlDelay: 700 * time.Millisecond}},
	}
	rec := f.run(t, 16, 6, true)
	overlapped := false
	for key, peak := range rec.peak {
		if peak > 2 {
			t.Errorf("%s: %d requests in flight at once, want at most 2", key, peak)
		}
		overlapped = overlapped || peak == 2
	}
	if !overlapped {
		t.Errorf("no two requests ever overlapped: Concurrency 2 had no effect")
	}
	byHost := map[string][]exchange{}
	for _, x := range rec.all {
		byHost[x.host] = append(byHost[x.host], x)
	}
	for host, xs := range byHost {
		d := max(200*time.Millisecond, compileDelay(f.rules[host]))
		slices.SortFunc(xs, func(a, b exchange) int { return a.written.Compare(b.written) })
		for i := 1; i < len(xs); i++ {
			if gap := xs[i].written.Sub(xs[i-1].written); gap < d {
				t.Errorf("%s: requests %d and %d written %v apart, want at least %v", host, i-1, i, gap, d)
			}
		}
		// A request granted after another ended comes at least the delay after that end.
		// Virtual time stands still until every goroutine blocks, so a response that
		// ended strictly before a grant was released before it.
		for _, x := range xs {
			for _, y := range xs {
				if y.ended.Before(x.granted) && x.granted.Sub(y.ended) < d {
					t.Errorf("%s: granted %v after a response ended, want at least %v", host, x.granted.Sub(y.ended), d)
				}
			}
		}
	}
}

func TestAcquireWaitsForReleaseAndDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(Options{AdaptiveFactor: -1})
		ctx := context.Background()
		first, err := s.Acquire(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		got := make(chan time.Time)
		go func() {
			tk, err := s.Acquire(ctx, "a")
			if err != nil {
				t.Errorf("Acquire: %v", err)
			}
			got <- time.Now()
			s.Release(tk, Observation{})
		}()
		synctest.Wait() // the second Acquire is blocked on the first request
		<-time.After(3 * time.Second)
		s.Release(first, Observation{Written: start, End: time.Now(), Status: 200})
		if at := <-got; at.Sub(start) != 4*time.Second {
			t.Fatalf("second Acquire returned %v after the first, want 4s (3s response + 1s delay)", at.Sub(start))
		}
	})
}

func TestAcquireContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(Options{})
		if _, err := s.Acquire(context.Background(), "a"); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := s.Acquire(ctx, "a"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Acquire with the host busy: got %v, want context.DeadlineExceeded", err)
		}
		canceled, cancel2 := context.WithCancel(context.Background())
		cancel2()
		if _, err := s.Acquire(canceled, "b"); !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire with a canceled context: got %v, want context.Canceled", err)
		}
	})
}

func TestAcquireDeferred(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(Options{})
		s.SetRules("a", Rules{CrawlDelay: 2 * time.Minute})
		tk, err := s.Acquire(context.Background(), "a")
		if err != nil {
			t.Fatal(err)
		}
		end := time.Now()
		s.Release(tk, Observation{End: end, Status: 200})
		_, err = s.Acquire(context.Background(), "a")
		d, ok := errors.AsType[*DeferredError](err)
		if !ok || !d.Until.Equal(end.Add(2*time.Minute)) || d.Reason != ReasonCrawlDelay {
			t.Fatalf("Acquire: got %v, want deferred until +2m (crawl-delay)", err)
		}
		if !time.Now().Equal(end) {
			t.Fatalf("Acquire waited %v before deferring, want no wait", time.Since(end))
		}
	})
}

func ExampleDeferredError() {
	err := error(&DeferredError{Host: "example.com", Until: time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC), Reason: ReasonVisitTime})
	if d, ok := errors.AsType[*DeferredError](err); ok {
		fmt.Println(d.Host, d.Until.Format(time.Kitchen), d.Reason)
	}
	// Output: example.com 6:00AM visit-time
}
