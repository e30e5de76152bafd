package frontier

import (
	"testing"
	"time"
)

// TestLeaseDue checks Lease.Due: zero for a URL due at once, the Refetch time for a URL
// given back for later, and still that time after a Retry of the refetch.
func TestLeaseDue(t *testing.T) {
	c := newClock()
	f, _ := openTest(t, Options{Now: c.Now})
	mustAdd(t, f, 1, Entry{URL: "http://a.test/1"})
	l := lease(t, f)
	if !l.Due.IsZero() {
		t.Fatalf("first lease: Due %v, want zero (due at once)", l.Due)
	}
	due := c.Now().Add(time.Hour)
	done(t, f, l, Outcome{Refetch: due})
	c.Advance(time.Hour)
	l = lease(t, f)
	if !l.Due.Equal(due) {
		t.Fatalf("refetch lease: Due %v, want %v", l.Due, due)
	}
	done(t, f, l, Outcome{Kind: Retry, NoAttempt: true})
	if l = lease(t, f); !l.Due.Equal(due) {
		t.Fatalf("refetch lease after a retry: Due %v, want %v", l.Due, due)
	}
}
