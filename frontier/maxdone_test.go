package frontier

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestMaxDone checks that MaxDone bounds the URLs finished, not the URLs queued: skipped
// and failed leases leave the budget alone, leases outstanding hold a place, the rest
// stays queued, and a reopen with a larger MaxDone goes on (issue 12, defect 7).
func TestMaxDone(t *testing.T) {
	f, path := openTest(t, Options{MaxDone: 3, MaxInFlightPerHost: 4})
	var es []Entry
	for i := range 10 {
		es = append(es, Entry{URL: fmt.Sprintf("http://a.test/p%d", i)})
	}
	mustAdd(t, f, 10, es...)

	skipped := lease(t, f) // robots-blocked: does not use the budget
	done(t, f, skipped, Outcome{Kind: Skipped, Reason: "robots"})
	failed := lease(t, f)
	done(t, f, failed, Outcome{Kind: Failed, Reason: "dns"})
	first := lease(t, f)
	done(t, f, first, Outcome{})
	a, b := lease(t, f), lease(t, f) // 1 done + 2 leased: the budget is spoken for
	if l, _, err := tryNext(f); l != nil || err != nil {
		t.Fatalf("tryNext at the limit with leases out: got %v, %v; want to wait", l, err)
	}
	done(t, f, a, Outcome{Kind: Skipped, Reason: "robots"}) // frees its place
	c := lease(t, f)
	done(t, f, b, Outcome{})
	done(t, f, c, Outcome{})
	if l, _, err := tryNext(f); l != nil || !errors.Is(err, ErrDone) {
		t.Fatalf("tryNext after MaxDone finished: got %v, %v; want ErrDone", l, err)
	}
	if _, err := f.Next(context.Background()); !errors.Is(err, ErrDone) {
		t.Fatalf("Next after MaxDone finished: %v, want ErrDone", err)
	}
	if s := f.Stats(); s.Done != 3 || s.Queued != 4 {
		t.Fatalf("Stats: Done %d Queued %d, want 3 and 4", s.Done, s.Queued)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	// The same limit again leases nothing; a larger one, two more.
	for _, tt := range []struct{ max, more int }{{3, 0}, {5, 2}} {
		g, err := Open(path, Options{MaxDone: tt.max, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		for range tt.more {
			done(t, g, lease(t, g), Outcome{})
		}
		if l, _, err := tryNext(g); l != nil || !errors.Is(err, ErrDone) {
			t.Fatalf("MaxDone %d after %d more: got %v, %v; want ErrDone", tt.max, tt.more, l, err)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
