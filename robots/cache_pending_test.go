package robots

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// interruptions records the calls of CacheOptions.Interrupted.
type interruptions struct{ calls []string }

func (i *interruptions) hook(authority string, at, seen time.Time, last *Robots) {
	call := authority + " " + at.UTC().Format(time.RFC3339)
	if last != nil {
		call += fmt.Sprintf(" last %d", last.Status())
	}
	i.calls = append(i.calls, call)
}

// TestCacheInterrupted: a fetch abandoned (or cut by a kill) after it began leaves a mark
// in the Store, which the next Cache reports before fetching again, once, with the
// rules of the earlier copy when there is one.
func TestCacheInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		last  string // the earlier copy as the hook reports it
		store func() *memStore
	}{
		{"first fetch", "", newStore},
		{"refetch of an expired copy", " last 200", func() *memStore {
			s := newStore()
			f := fetcher(reply{status: 200, body: body})
			mustGet(t, NewCache(f, s, CacheOptions{Now: func() time.Time { return t0.Add(-48 * time.Hour) }}), host)
			return s
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := tc.store()
			clk := newClock()
			bf := newBlockingFetcher()
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-bf.started; cancel() }()
			if _, err := NewCache(bf, store, CacheOptions{Now: clk.Now}).Get(ctx, host); !errors.Is(err, context.Canceled) {
				t.Fatalf("Get cut during the fetch: got %v, want context.Canceled", err)
			}

			clk.Set(t0.Add(time.Minute))
			var got interruptions
			f := fetcher(reply{status: 200, body: body})
			c := NewCache(f, store, CacheOptions{Now: clk.Now, Interrupted: got.hook})
			mustGet(t, c, host)
			want := host + " " + t0.Format(time.RFC3339) + tc.last
			if len(got.calls) != 1 || got.calls[0] != want {
				t.Errorf("Interrupted calls: got %q, want [%q]", got.calls, want)
			}
			if f.count(host) != 1 {
				t.Errorf("fetches after the interruption: got %d, want 1", f.count(host))
			}

			// The fetch that completed cleared the mark.
			var again interruptions
			mustGet(t, NewCache(fetcher(reply{status: 200, body: body}), store, CacheOptions{Now: clk.Now, Interrupted: again.hook}), host)
			if len(again.calls) != 0 {
				t.Errorf("Interrupted after a completed fetch: got %q, want none", again.calls)
			}
		})
	}
}

// permErr is a fetch error that says whether trying again may help.
type permErr struct{ temporary bool }

func (e *permErr) Error() string   { return "fetch failed" }
func (e *permErr) Temporary() bool { return e.temporary }

// TestCachePermanentError: a permanent fetch error gives up on the authority at the
// first fetch; a temporary one counts attempts as before.
func TestCachePermanentError(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		gaveUp bool
	}{
		{"permanent", &permErr{temporary: false}, true},
		{"temporary", &permErr{temporary: true}, false},
		{"plain", errNetwork, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fetcher(reply{err: tc.err})
			e := mustGet(t, NewCache(f, newStore(), CacheOptions{Now: newClock().Now}), host)
			if !e.Unreachable || e.GaveUp != tc.gaveUp || e.Attempts < 1 {
				t.Errorf("after one fetch failing with %v: unreachable %v, gave up %v after %d attempts; want unreachable, gave up %v",
					tc.err, e.Unreachable, e.GaveUp, e.Attempts, tc.gaveUp)
			}
		})
	}
}

// notYet is a fetch error saying the fetch did not begin.
type notYet struct{}

func (notYet) Error() string    { return "not yet" }
func (notYet) Until() time.Time { return t0.Add(time.Hour) }

// TestCacheNotBegun: a fetch that did not begin records nothing; the next Get fetches.
func TestCacheNotBegun(t *testing.T) {
	f := fetcher(reply{err: notYet{}}, reply{status: 200, body: body})
	c := NewCache(f, newStore(), CacheOptions{Now: newClock().Now})
	if _, err := c.Get(context.Background(), host); !errors.As(err, new(notYet)) {
		t.Fatalf("Get: got %v, want the fetcher's notYet", err)
	}
	if e := mustGet(t, c, host); e.Unreachable || allows(e) != "yes/no/yes" {
		t.Errorf("Get after a fetch that did not begin: got %v, want the fetched rules", e)
	}
}

// waitThenSend is a Fetcher that waits for its host's turn (until ctx ends or turn is
// closed), then calls Begin and sends: it blocks again until ctx ends.
type waitThenSend struct {
	waiting, sending chan struct{}
	turn             chan struct{}
}

func (f *waitThenSend) FetchRobots(ctx context.Context, robotsURL string) (*FetchResult, error) {
	f.waiting <- struct{}{}
	select {
	case <-f.turn:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := Begin(ctx); err != nil {
		return nil, err
	}
	f.sending <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestCacheMarkOnBegin: with MarkOnBegin, a fetch cut while it waited for the host's
// turn leaves no mark (no request was sent, the next run need not hold the host back);
// one cut after Begin, while its request was out, leaves the mark.
func TestCacheMarkOnBegin(t *testing.T) {
	for _, sent := range []bool{false, true} {
		store := newStore()
		f := &waitThenSend{waiting: make(chan struct{}, 1), sending: make(chan struct{}, 1), turn: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-f.waiting
			if sent {
				close(f.turn)
				<-f.sending
			}
			cancel()
		}()
		clk := newClock()
		if _, err := NewCache(f, store, CacheOptions{Now: clk.Now, MarkOnBegin: true}).Get(ctx, host); !errors.Is(err, context.Canceled) {
			t.Fatalf("sent %v: Get cut: got %v, want context.Canceled", sent, err)
		}
		var got interruptions
		mustGet(t, NewCache(fetcher(reply{status: 200, body: body}), store, CacheOptions{Now: clk.Now, Interrupted: got.hook}), host)
		if want := map[bool]int{false: 0, true: 1}[sent]; len(got.calls) != want {
			t.Errorf("sent %v: Interrupted calls %q, want %d", sent, got.calls, want)
		}
	}
}

// TestCachePendingSeen: the mark of a cut fetch is reported with when a Cache first
// read it; later Caches that do not fetch (stopped again before their request went
// out) report that same moment, not their own start.
func TestCachePendingSeen(t *testing.T) {
	store := newStore()
	clk := newClock()
	bf := newBlockingFetcher()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-bf.started; cancel() }()
	if _, err := NewCache(bf, store, CacheOptions{Now: clk.Now}).Get(ctx, host); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get cut during the fetch: got %v", err)
	}
	var seen []time.Time
	hook := func(_ string, _, s time.Time, _ *Robots) { seen = append(seen, s) }
	for i := 1; i <= 2; i++ {
		clk.Set(t0.Add(time.Duration(i) * time.Minute))
		f := &waitThenSend{waiting: make(chan struct{}, 1), sending: make(chan struct{}, 1), turn: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-f.waiting; cancel() }()
		NewCache(f, store, CacheOptions{Now: clk.Now, Interrupted: hook, MarkOnBegin: true}).Get(ctx, host)
	}
	want := t0.Add(time.Minute)
	if len(seen) != 2 || !seen[0].Equal(want) || !seen[1].Equal(want) {
		t.Errorf("seen %v, want [%v %v]", seen, want, want)
	}
}
