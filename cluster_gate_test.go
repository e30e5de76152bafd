package crawl

import (
	"context"
	"testing"
	"testing/synctest"
)

// TestIdleGate: a worker whose frontier is done waits until an intake moves the gate
// (true: ask again) or the crawl ends (false); the gate is idle only while every worker
// waits, and an intake between a worker's look at the frontier and its wait is not
// missed.
func TestIdleGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g idleGate
		finished := make(chan struct{})
		ctx := context.Background()

		gen := g.generation()
		g.bump() // links arrive after the worker looked, before it waits
		if !g.wait(ctx, gen, finished) {
			t.Fatal("wait after an intake since the look = false, want true at once")
		}

		results := make(chan bool, 2)
		for range 2 {
			gen := g.generation()
			go func() { results <- g.wait(ctx, gen, finished) }()
		}
		synctest.Wait()
		if !g.idle(2) {
			t.Error("two workers waiting: idle(2) = false")
		}
		if g.idle(3) {
			t.Error("two of three workers waiting: idle(3) = true")
		}
		g.bump()
		for range 2 {
			if !<-results {
				t.Error("woken by an intake: wait = false, want true")
			}
		}
		if g.idle(1) {
			t.Error("after an intake: idle(1) = true, want the workers busy")
		}

		gen = g.generation()
		go func() { results <- g.wait(ctx, gen, finished) }()
		synctest.Wait()
		close(finished)
		if <-results {
			t.Error("crawl finished: wait = true, want false")
		}

		cctx, cancel := context.WithCancel(ctx)
		go func() { results <- g.wait(cctx, g.generation(), make(chan struct{})) }()
		synctest.Wait()
		cancel()
		if <-results {
			t.Error("ctx ended: wait = true, want false")
		}
		if g.idle(1) {
			t.Error("no worker waiting: idle(1) = true")
		}
	})
}
