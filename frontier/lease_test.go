package frontier

import (
	"context"
	"errors"
	"testing"
)

// TestNextAfterCancel checks that Next leases nothing once ctx has ended, even while a
// host is ready: a stopping crawl must not go on leasing.
func TestNextAfterCancel(t *testing.T) {
	f, _ := openTest(t, Options{})
	mustAdd(t, f, 2, Entry{URL: "http://a.test/1"}, Entry{URL: "http://b.test/1"})
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := f.Next(ctx); err != nil {
		t.Fatalf("Next before cancel: %v", err)
	}
	cancel()
	l, err := f.Next(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after cancel with b.test ready:\n\tgot %v, %v\n\twant nil, context.Canceled", l, err)
	}
	if st := f.Stats(); st.Leased != 1 {
		t.Errorf("leased after cancel: got %d, want 1", st.Leased)
	}
}

// TestDoneForgetsLease checks that a finished lease is no longer reachable from its
// host: a host keeps its slice of leases between leases, and a lease left in the
// slice's spare capacity kept its entry, its key and its URL alive for as long as the
// host, 400 bytes per host at 10M URLs over 100,000 hosts.
func TestDoneForgetsLease(t *testing.T) {
	f, _ := openTest(t, Options{MaxInFlightPerHost: 2})
	mustAdd(t, f, 3, Entry{URL: "http://a.test/1"}, Entry{URL: "http://a.test/2"}, Entry{URL: "http://b.test/1"})
	ctx := context.Background()
	var leases []*Lease
	for range 3 {
		l, err := f.Next(ctx)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		leases = append(leases, l)
	}
	for _, l := range leases {
		if err := f.Done(ctx, l, Outcome{}); err != nil {
			t.Fatalf("Done(%s): %v", l.URL, err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for name, h := range f.hosts {
		var held []*Lease
		if h.leases != nil {
			held = (*h.leases)[:cap(*h.leases)]
		}
		for i, l := range held {
			if l != nil {
				t.Errorf("host %s: leases[%d] (len %d) still holds the finished lease of %s", name, i, len(h.leaseList()), l.URL)
			}
		}
	}
}
