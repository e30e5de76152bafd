package robots

import (
	"context"
	"errors"
	"testing"
	"time"
)

// interruptions records the calls of CacheOptions.Interrupted.
type interruptions struct{ calls []string }

func (i *interruptions) hook(authority string, at time.Time) {
	i.calls = append(i.calls, authority+" "+at.UTC().Format(time.RFC3339))
}

// TestCacheInterrupted: a fetch abandoned (or cut by a kill) after it began leaves a mark
// in the Store, which the next Cache reports before fetching again, once.
func TestCacheInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store func() *memStore
	}{
		{"first fetch", newStore},
		{"refetch of an expired copy", func() *memStore {
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
			want := host + " " + t0.Format(time.RFC3339)
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
