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

// TestMaxDoneUncounted checks that entries of Uncounted kinds (page requisites) are
// leased past MaxDone and do not use its budget, that a host whose head is a counted
// URL is set aside once the budget is spent, and that an uncounted URL queued on it
// later brings it back; MaxQueuedPerHost does not refuse them.
func TestMaxDoneUncounted(t *testing.T) {
	const req = 0x80
	f, _ := openTest(t, Options{MaxDone: 2, Uncounted: req, MaxQueuedPerHost: 3})
	mustAdd(t, f, 3, Entry{URL: "http://a.test/p0"}, Entry{URL: "http://a.test/p1"}, Entry{URL: "http://a.test/p2"})
	mustAdd(t, f, 0, Entry{URL: "http://a.test/p3"}) // a.test holds 3: refused

	want := func(l *Lease, url string) {
		t.Helper()
		if l == nil || l.URL != url {
			t.Fatalf("leased %v, want %s", l, url)
		}
	}
	p0 := lease(t, f)
	want(p0, "http://a.test/p0")
	done(t, f, p0, Outcome{Requisites: []Entry{
		{URL: "http://a.test/s.css", Priority: 1000, Kind: req | 1},
		{URL: "http://a.test/t.css", Priority: 1000, Kind: req | 1}, // a.test holds 4 now
	}})
	s := lease(t, f)
	want(s, "http://a.test/s.css")
	done(t, f, s, Outcome{})
	tc := lease(t, f)
	want(tc, "http://a.test/t.css")
	done(t, f, tc, Outcome{})
	p1 := lease(t, f)
	want(p1, "http://a.test/p1")
	// The budget is spent with p1: its requisites still come.
	done(t, f, p1, Outcome{Requisites: []Entry{
		{URL: "http://a.test/u.png", Priority: 1000, Kind: req | 2},
		{URL: "http://b.test/v.png", Priority: 1000, Kind: req | 2},
	}})
	first, second := lease(t, f), lease(t, f)
	if first.Host == second.Host {
		t.Fatalf("leased %s and %s, want one of each host", first.URL, second.URL)
	}
	a, b := first, second
	if a.Host != "http://a.test" {
		a, b = b, a
	}
	want(a, "http://a.test/u.png")
	want(b, "http://b.test/v.png")
	done(t, f, a, Outcome{})
	// a.test's head is p2, a page: set aside, while b.test's lease is out.
	if l, _, err := tryNext(f); l != nil || err != nil {
		t.Fatalf("tryNext with only pages at a.test: got %v, %v; want to wait", l, err)
	}
	done(t, f, b, Outcome{Requisites: []Entry{{URL: "http://a.test/w.woff", Priority: 1000, Kind: req | 3}}})
	w := lease(t, f)
	want(w, "http://a.test/w.woff")
	done(t, f, w, Outcome{})
	if l, _, err := tryNext(f); l != nil || !errors.Is(err, ErrDone) {
		t.Fatalf("tryNext with only pages left: got %v, %v; want ErrDone", l, err)
	}
	st := f.Stats()
	if st.Done != 7 || st.DoneUncounted != 5 || st.Queued != 1 {
		t.Fatalf("Stats: Done %d, DoneUncounted %d, Queued %d; want 7, 5, 1", st.Done, st.DoneUncounted, st.Queued)
	}
}
