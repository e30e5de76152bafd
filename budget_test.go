package crawl

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestMemBudgetNoDeadlock grows many claims at once, in random steps up to claims
// of random size, some as large as the whole budget and some larger: every page
// finishes (a deadlock would hang the test), and no more than the budget is ever
// held except by a page holding all of it alone.
func TestMemBudgetNoDeadlock(t *testing.T) {
	const total = 1000
	for seed := range uint64(20) {
		b := newMemBudget(total, nil)
		rng := rand.New(rand.NewPCG(seed, 1))
		var wg sync.WaitGroup
		for range 32 {
			claim := 1 + rng.Int64N(total*3/2)
			steps := make([]int64, 0, 8)
			for left := claim; left > 0; {
				s := min(left, 1+rng.Int64N(claim/4+1))
				steps = append(steps, s)
				left -= s
			}
			wg.Go(func() {
				c := b.claim()
				defer c.Done()
				for _, s := range steps {
					if err := c.Reserve(context.Background(), s, claim); err != nil {
						t.Error(err)
						return
					}
					b.mu.Lock()
					held, mine := b.held, c.held
					b.mu.Unlock()
					if held > total && held != mine {
						t.Errorf("seed %d: %d bytes held by several pages, budget %d", seed, held, total)
					}
				}
			})
		}
		wg.Wait()
		if b.held != 0 || len(b.claims) != 0 {
			t.Fatalf("seed %d: %d bytes and %d claims left after every page finished", seed, b.held, len(b.claims))
		}
	}
}

// TestMemBudgetAlone checks that a page needing more than the whole budget goes on
// once it holds everything, and that others wait for it.
func TestMemBudgetAlone(t *testing.T) {
	b := newMemBudget(100, nil)
	big := b.claim()
	if err := big.Reserve(context.Background(), 60, 250); err != nil {
		t.Fatal(err)
	}
	if err := big.Reserve(context.Background(), 190, 250); err != nil { // past the budget: alone
		t.Fatal(err)
	}
	if b.held != 250 {
		t.Fatalf("held %d, want 250", b.held)
	}
	small := b.claim()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- small.Reserve(ctx, 10, 10) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a page waiting while the budget is overdrawn: got %v, want context.Canceled", err)
	}
	if small.held != 0 || len(b.claims) != 1 {
		t.Errorf("a cancelled reservation left %d bytes and %d claims", small.held, len(b.claims))
	}
	big.Done()
	if err := small.Reserve(context.Background(), 10, 10); err != nil || b.held != 10 {
		t.Errorf("after the big page: got %v, %d held; want nil, 10", err, b.held)
	}
	small.Done()
}

// TestMemBudgetUnsafeWaits checks the banker's rule on a case small enough to
// follow: two pages with claims of 80 out of 100 may each hold 10, but the one
// that asks for a step that would leave neither able to finish waits until the
// other is done.
func TestMemBudgetUnsafeWaits(t *testing.T) {
	b := newMemBudget(100, nil)
	a, c := b.claim(), b.claim()
	ctx := context.Background()
	if err := a.Reserve(ctx, 10, 80); err != nil {
		t.Fatal(err)
	}
	if err := c.Reserve(ctx, 10, 80); err != nil {
		t.Fatal(err)
	}
	if err := a.Reserve(ctx, 30, 80); err != nil { // a 40, c 10, free 50
		t.Fatal(err)
	}
	b.mu.Lock()
	// c +40 → c 50, a 40, free 10: a needs 40, c needs 30: neither can finish.
	deadlock := b.grantable(c, 40)
	b.mu.Unlock()
	if deadlock {
		t.Fatal("grantable allowed a state in which no page can finish")
	}
	done := make(chan error)
	go func() { done <- c.Reserve(ctx, 40, 80) }()
	a.Done()
	if err := <-done; err != nil || c.held != 50 {
		t.Fatalf("after a finished: got %v, c holds %d; want nil, 50", err, c.held)
	}
	c.Done()
}
