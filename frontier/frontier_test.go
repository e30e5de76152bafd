package frontier

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// clock is a manual clock for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openTest(t *testing.T, opts Options) (*Frontier, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "frontier.db")
	opts.NoSync = true
	f, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f, path
}

func mustAdd(t *testing.T, f *Frontier, want int, entries ...Entry) {
	t.Helper()
	got, err := f.Add(context.Background(), entries...)
	if err != nil {
		t.Fatalf("Add: %v", err)
	}
	if got != want {
		t.Fatalf("Add(%d entries) = %d, want %d", len(entries), got, want)
	}
}

// lease takes the next lease without blocking and fails the test if there is none.
func lease(t *testing.T, f *Frontier) *Lease {
	t.Helper()
	f.mu.Lock()
	l, wait, err := f.tryNext(f.now())
	f.mu.Unlock()
	if err != nil || l == nil {
		t.Fatalf("tryNext: lease %v, wait %v, err %v; want a lease", l, wait, err)
	}
	f.recordLease(l)
	return l
}

// tryNext returns the next lease or nil without blocking.
func tryNext(f *Frontier) (*Lease, time.Time, error) {
	f.mu.Lock()
	l, wait, err := f.tryNext(f.now())
	f.mu.Unlock()
	if l != nil {
		f.recordLease(l)
	}
	return l, wait, err
}

func done(t *testing.T, f *Frontier, l *Lease, o Outcome) {
	t.Helper()
	if err := f.Done(context.Background(), l, o); err != nil {
		t.Fatalf("Done(%s): %v", l.URL, err)
	}
}

func TestOrderWithinHost(t *testing.T) {
	f, _ := openTest(t, Options{})
	mustAdd(t, f, 6,
		Entry{URL: "http://a.test/d2", Depth: 2},
		Entry{URL: "http://a.test/d1-first", Depth: 1},
		Entry{URL: "http://a.test/d1-second", Depth: 1},
		Entry{URL: "http://a.test/seed", Depth: 0},
		Entry{URL: "http://a.test/sitemap", Depth: 3, Priority: 5},
		Entry{URL: "http://a.test/low", Depth: 0, Priority: -1},
	)
	want := []string{"/sitemap", "/seed", "/d1-first", "/d1-second", "/d2", "/low"}
	for i, w := range want {
		l := lease(t, f)
		if got := l.URL; got != "http://a.test"+w {
			t.Fatalf("lease %d: got %s, want %s", i, got, "http://a.test"+w)
		}
		if l.Host != "http://a.test" || l.Attempt != 1 {
			t.Fatalf("lease %d: Host %q Attempt %d, want http://a.test, 1", i, l.Host, l.Attempt)
		}
		done(t, f, l, Outcome{})
	}
	if _, _, err := tryNext(f); !errors.Is(err, ErrDone) {
		t.Fatalf("after draining: err %v, want ErrDone", err)
	}
}

func TestEntryRoundTrip(t *testing.T) {
	f, _ := openTest(t, Options{})
	in := Entry{URL: "https://B.test:8443/x?y", Depth: 4, Priority: 7, FoundOn: "https://b.test/", Kind: 3, Hops: 2}
	mustAdd(t, f, 1, in)
	l := lease(t, f)
	if l.Entry != in {
		t.Fatalf("lease entry:\n\tgot %+v\n\twant %+v", l.Entry, in)
	}
	if l.Host != "https://b.test:8443" {
		t.Fatalf("Host: got %q, want https://b.test:8443", l.Host)
	}
}

func TestHostExclusive(t *testing.T) {
	for _, inFlight := range []int{0, 1, 2, 3} {
		t.Run(fmt.Sprint(inFlight), func(t *testing.T) {
			f, _ := openTest(t, Options{MaxInFlightPerHost: inFlight})
			for i := range 5 {
				mustAdd(t, f, 1, Entry{URL: fmt.Sprintf("http://a.test/%d", i)})
			}
			limit := max(inFlight, 1)
			var ls []*Lease
			for range limit {
				ls = append(ls, lease(t, f))
			}
			if l, wait, err := tryNext(f); l != nil || err != nil || !wait.IsZero() {
				t.Fatalf("with %d leased: got %v, %v, %v; want nothing until a Done", limit, l, wait, err)
			}
			for i, l := range ls {
				if want := fmt.Sprintf("http://a.test/%d", i); l.URL != want {
					t.Fatalf("lease %d: got %s, want %s", i, l.URL, want)
				}
			}
			done(t, f, ls[0], Outcome{})
			if l := lease(t, f); l.URL != fmt.Sprintf("http://a.test/%d", limit) {
				t.Fatalf("after Done: got %s, want http://a.test/%d", l.URL, limit)
			}
		})
	}
}

func TestReadyTime(t *testing.T) {
	c := newClock()
	f, _ := openTest(t, Options{Now: c.Now})
	mustAdd(t, f, 4,
		Entry{URL: "http://a.test/1"}, Entry{URL: "http://a.test/2"},
		Entry{URL: "http://b.test/1"}, Entry{URL: "http://b.test/2"})
	la := lease(t, f)
	if la.URL != "http://a.test/1" {
		t.Fatalf("first lease: got %s, want http://a.test/1", la.URL)
	}
	done(t, f, la, Outcome{HostReady: c.Now().Add(10 * time.Second)})
	lb := lease(t, f)
	if lb.URL != "http://b.test/1" {
		t.Fatalf("second lease: got %s, want http://b.test/1", lb.URL)
	}
	done(t, f, lb, Outcome{HostReady: c.Now().Add(5 * time.Second)})
	l, wait, err := tryNext(f)
	if l != nil || err != nil || !wait.Equal(c.Now().Add(5*time.Second)) {
		t.Fatalf("no host ready: got %v, %v, %v; want wait until b is ready", l, wait, err)
	}
	c.Advance(5 * time.Second)
	if l := lease(t, f); l.URL != "http://b.test/2" {
		t.Fatalf("at +5s: got %s, want http://b.test/2", l.URL)
	}
	if hs, _ := f.HostStats("http://a.test"); !hs.Ready.Equal(c.Now().Add(5 * time.Second)) {
		t.Fatalf("a ready: got %v, want %v", hs.Ready, c.Now().Add(5*time.Second))
	}
	if err := f.SetHostReady("http://a.test", c.Now()); err != nil {
		t.Fatal(err)
	}
	if l := lease(t, f); l.URL != "http://a.test/2" {
		t.Fatalf("after SetHostReady: got %s, want http://a.test/2", l.URL)
	}
	if err := f.SetHostReady("http://nobody.test", c.Now()); !errors.Is(err, ErrUnknownHost) {
		t.Fatalf("SetHostReady(unknown): got %v, want ErrUnknownHost", err)
	}
}

func TestRetry(t *testing.T) {
	c := newClock()
	f, _ := openTest(t, Options{Now: c.Now, MaxAttempts: 2})
	mustAdd(t, f, 2, Entry{URL: "http://a.test/1"}, Entry{URL: "http://a.test/2"})

	l := lease(t, f)
	done(t, f, l, Outcome{Kind: Retry, NoAttempt: true})
	l = lease(t, f)
	if l.URL != "http://a.test/1" || l.Attempt != 1 {
		t.Fatalf("after NoAttempt retry: got %s attempt %d, want /1 attempt 1", l.URL, l.Attempt)
	}
	done(t, f, l, Outcome{Kind: Retry, RetryAt: c.Now().Add(time.Minute), Error: true})
	if l, wait, _ := tryNext(f); l != nil || !wait.Equal(c.Now().Add(time.Minute)) {
		t.Fatalf("retry pending: got lease %v wait %v, want wait until RetryAt", l, wait)
	}
	c.Advance(time.Minute)
	l = lease(t, f)
	if l.URL != "http://a.test/1" || l.Attempt != 2 {
		t.Fatalf("retry: got %s attempt %d, want /1 attempt 2", l.URL, l.Attempt)
	}
	done(t, f, l, Outcome{Kind: Retry, Error: true})
	l = lease(t, f)
	if l.URL != "http://a.test/2" {
		t.Fatalf("after max attempts: got %s, want /2", l.URL)
	}
	s := f.Stats()
	if s.Failed["attempts"] != 1 || s.FailedTotal() != 1 {
		t.Fatalf("Failed: got %v, want attempts:1", s.Failed)
	}
	if hs, _ := f.HostStats("http://a.test"); hs.ConsecutiveErrors != 2 || hs.Failed != 1 || hs.Queued != 0 || hs.Leased != 1 {
		t.Fatalf("host stats: got %+v", hs)
	}
	done(t, f, l, Outcome{})
	if hs, _ := f.HostStats("http://a.test"); hs.ConsecutiveErrors != 0 || hs.Done != 1 {
		t.Fatalf("host stats after Finished: got %+v, want errors reset, done 1", hs)
	}
}

func TestOutcomesAndLinks(t *testing.T) {
	f, _ := openTest(t, Options{})
	mustAdd(t, f, 3, Entry{URL: "http://a.test/1"}, Entry{URL: "http://b.test/1"}, Entry{URL: "http://c.test/1"})
	l := lease(t, f)
	done(t, f, l, Outcome{Links: []Entry{
		{URL: "http://a.test/2", Depth: 1, FoundOn: l.URL},
		{URL: "http://a.test/1", Depth: 1}, // seen
		{URL: "http://d.test/", Depth: 1},
	}})
	done(t, f, lease(t, f), Outcome{Kind: Skipped, Reason: "robots"})
	done(t, f, lease(t, f), Outcome{Kind: Failed, Reason: "dns"})
	s := f.Stats()
	if s.Staged != 0 || s.Done != 1 || s.Skipped["robots"] != 1 || s.Failed["dns"] != 1 || s.Added != 5 || s.Duplicates != 1 ||
		s.Queued != 2 || s.Hosts != 4 || s.HostsReady != 2 {
		t.Fatalf("Stats: got %+v", s)
	}
	if err := f.Done(context.Background(), l, Outcome{}); !errors.Is(err, ErrLease) {
		t.Fatalf("second Done: got %v, want ErrLease", err)
	}
	if err := f.Done(context.Background(), nil, Outcome{}); !errors.Is(err, ErrLease) {
		t.Fatalf("Done(nil): got %v, want ErrLease", err)
	}
}

func TestLimits(t *testing.T) {
	f, _ := openTest(t, Options{MaxDepth: 2, MaxQueuedPerHost: 2, MaxTotal: 4})
	mustAdd(t, f, 2,
		Entry{URL: "http://a.test/1"},
		Entry{URL: "http://a.test/deep", Depth: 3},
		Entry{URL: "http://a.test/2", Depth: 2},
		Entry{URL: "http://a.test/3"},
		Entry{URL: "/relative"},
		Entry{URL: "http://[::1"},
		Entry{URL: "http://a.test/" + string(make([]byte, MaxURLSize))},
	)
	l := lease(t, f)
	done(t, f, l, Outcome{})
	// One slot free on a.test; the refused /3 was not marked seen.
	mustAdd(t, f, 2, Entry{URL: "http://a.test/3"}, Entry{URL: "http://b.test/1"}, Entry{URL: "http://c.test/1"})
	s := f.Stats()
	want := map[string]int64{RefusedDepth: 1, RefusedHostQueue: 1, RefusedURL: 3, RefusedTotal: 1}
	if fmt.Sprint(s.Refused) != fmt.Sprint(want) {
		t.Fatalf("Refused: got %v, want %v", s.Refused, want)
	}
	if s.Added != 4 {
		t.Fatalf("Added: got %d, want 4", s.Added)
	}
}

func TestEndAndPark(t *testing.T) {
	f, path := openTest(t, Options{})
	ctx := context.Background()
	mustAdd(t, f, 3, Entry{URL: "http://a.test/1"}, Entry{URL: "http://a.test/2"}, Entry{URL: "http://b.test/1"})
	la := lease(t, f)
	if err := f.Park(ctx, "http://a.test", "robots-unreachable"); err != nil {
		t.Fatal(err)
	}
	lb := lease(t, f)
	if lb.URL != "http://b.test/1" {
		t.Fatalf("got %s, want b.test/1 (a.test parked)", lb.URL)
	}
	done(t, f, lb, Outcome{})
	if l, wait, err := tryNext(f); l != nil || err != nil || !wait.IsZero() {
		t.Fatalf("a lease outstanding: got %v %v %v, want nothing, no ErrDone", l, wait, err)
	}
	done(t, f, la, Outcome{})
	mustAdd(t, f, 1, Entry{URL: "http://a.test/3"})
	if _, _, err := tryNext(f); !errors.Is(err, ErrDone) {
		t.Fatalf("only parked URLs left: got %v, want ErrDone", err)
	}
	if _, err := f.Next(ctx); !errors.Is(err, ErrDone) {
		t.Fatalf("Next: got %v, want ErrDone", err)
	}
	s := f.Stats()
	if s.Queued != 0 || s.Parked != 2 || s.Skipped["robots-unreachable"] != 2 || s.HostsParked != 1 || s.Done != 2 {
		t.Fatalf("Stats: got %+v", s)
	}
	// Parked URLs come back at the next Open.
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if s := f.Stats(); s.Queued != 2 || s.Parked != 0 || s.Done != 2 || s.Added != 4 {
		t.Fatalf("Stats after reopen: got %+v", s)
	}
	if l := lease(t, f); l.URL != "http://a.test/2" {
		t.Fatalf("after reopen: got %s, want a.test/2", l.URL)
	}
}

func TestReopenRequeuesLeases(t *testing.T) {
	f, path := openTest(t, Options{})
	mustAdd(t, f, 3, Entry{URL: "http://a.test/1"}, Entry{URL: "http://b.test/1"}, Entry{URL: "http://c.test/1"})
	la, lb := lease(t, f), lease(t, f)
	done(t, f, lb, Outcome{})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Done(context.Background(), la, Outcome{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Done after Close: got %v, want ErrClosed", err)
	}
	if _, err := f.Add(context.Background(), Entry{URL: "http://x.test/"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Add after Close: got %v, want ErrClosed", err)
	}
	f, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if s := f.Stats(); s.Recovered != 1 || s.Queued != 2 || s.Done != 1 {
		t.Fatalf("Stats: got %+v, want 1 recovered, 2 queued, 1 done", s)
	}
	got := map[string]bool{lease(t, f).URL: true, lease(t, f).URL: true}
	if !got["http://a.test/1"] || !got["http://c.test/1"] {
		t.Fatalf("leases after reopen: got %v, want a.test/1 and c.test/1", got)
	}
	if err := f.Done(context.Background(), la, Outcome{}); !errors.Is(err, ErrLease) {
		t.Fatalf("Done with a lease of the closed frontier: got %v, want ErrLease", err)
	}
	if n, err := f.Add(context.Background(), Entry{URL: "http://b.test/1"}); n != 0 || err != nil {
		t.Fatalf("re-adding a finished URL: got %d, %v, want 0, nil", n, err)
	}
}

func TestNextWaitsAndCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, _ := openTest(t, Options{})
		ctx := context.Background()
		mustAdd(t, f, 2, Entry{URL: "http://a.test/1"}, Entry{URL: "http://a.test/2"})
		l, err := f.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := f.Done(ctx, l, Outcome{HostReady: start.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		// Cancelled before the host is ready.
		cctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if _, err := f.Next(cctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Next with 1 min deadline: got %v, want DeadlineExceeded", err)
		}
		// Waits until the ready time.
		l, err = f.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != time.Hour {
			t.Fatalf("Next returned after %v, want 1h", got)
		}
		// Woken by an Add of a ready host.
		got := make(chan string)
		go func() {
			l, err := f.Next(ctx)
			if err != nil {
				got <- err.Error()
				return
			}
			if err := f.Done(ctx, l, Outcome{}); err != nil {
				got <- err.Error()
				return
			}
			got <- l.URL
		}()
		synctest.Wait()
		mustAdd(t, f, 1, Entry{URL: "http://b.test/1"})
		if u := <-got; u != "http://b.test/1" {
			t.Fatalf("woken Next: got %s, want http://b.test/1", u)
		}
		// Woken with ErrDone by the last Done, then ErrClosed.
		go func() {
			_, err := f.Next(ctx)
			got <- fmt.Sprint(err)
		}()
		synctest.Wait()
		if err := f.Done(ctx, l, Outcome{}); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != ErrDone.Error() {
			t.Fatalf("waiting Next after the last Done: got %s, want %v", err, ErrDone)
		}
		mustAdd(t, f, 1, Entry{URL: "http://a.test/3"})
		if err := f.SetHostReady("http://a.test", time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		go func() {
			_, err := f.Next(ctx)
			got <- fmt.Sprint(err)
		}()
		synctest.Wait()
		f.Close()
		if err := <-got; err != ErrClosed.Error() {
			t.Fatalf("waiting Next at Close: got %s, want %v", err, ErrClosed)
		}
	})
}

func TestRobots(t *testing.T) {
	f, path := openTest(t, Options{})
	if data, err := f.LoadRobots("http://a.test"); data != nil || err != nil {
		t.Fatalf("LoadRobots(absent): got %q, %v; want nil, nil", data, err)
	}
	if err := f.SaveRobots("http://a.test", []byte("User-agent: *\nDisallow: /")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := f.LoadRobots("http://a.test")
	if string(data) != "User-agent: *\nDisallow: /" || err != nil {
		t.Fatalf("LoadRobots: got %q, %v", data, err)
	}
}

func TestReadOnly(t *testing.T) {
	f, path := openTest(t, Options{})
	mustAdd(t, f, 2, Entry{URL: "http://a.test/1"}, Entry{URL: "http://b.test/1"})
	lease(t, f)
	if err := f.SaveRobots("http://a.test", []byte("x")); err != nil { // commits the lease record
		t.Fatal(err)
	}
	if _, err := Open(path, Options{ReadOnly: true, LockTimeout: 10 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		t.Fatalf("read-only Open during a crawl: got %v, want ErrLocked", err)
	}
	f.Close()
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if s := ro.Stats(); s.Queued != 2 || s.Hosts != 2 || s.Leased != 1 {
		t.Fatalf("read-only Stats: got %+v", s)
	}
	var hosts []string
	for hs := range ro.Hosts() {
		hosts = append(hosts, hs.Host)
	}
	if fmt.Sprint(hosts) != "[http://a.test http://b.test]" {
		t.Fatalf("Hosts: got %v", hosts)
	}
	if _, err := ro.Add(context.Background(), Entry{URL: "http://c.test/"}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Add: got %v, want ErrReadOnly", err)
	}
	if _, err := ro.Next(context.Background()); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Next: got %v, want ErrReadOnly", err)
	}
	if err := ro.SaveRobots("x", nil); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("SaveRobots: got %v, want ErrReadOnly", err)
	}
}
