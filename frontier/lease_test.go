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
