package frontier

import (
	"context"
	"fmt"
	"testing"
)

// TestAddPrecheck checks that a large Add whose URLs were looked up before its
// commits (precheck) counts as one that looks them up in its commits, when other Adds
// commit in between: URLs they add, some of the Add's among them, go to level 0, to
// runs written out from it and to merges, all made after the lookups.
func TestAddPrecheck(t *testing.T) {
	smallSeenSet(t)
	smallAdds(t)
	ctx := context.Background()
	es := mixedEntries(600)
	first, large := es[:200], es[150:450]
	var between [][]Entry // Adds committed after the lookups, before the large Add
	for i := 490; i >= 300; i -= 10 {
		// The last ones are of the large Add's URLs, and still in level 0.
		between = append(between, es[i:i+10])
	}
	between = append(between, es[295:300])
	opts := Options{MaxQueuedPerHost: 60, MaxTotal: 420}

	// ref looks URLs up in the commits: the other Adds come first.
	precheckChunk = 0
	ref, _ := openTest(t, opts)
	var want []int
	for _, b := range append([][]Entry{first}, append(between, large)...) {
		n, err := ref.Add(ctx, b...)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, n)
	}

	// pre looks them up first, and the other Adds commit after each read.
	precheckChunk = 7
	pre, _ := openTest(t, opts)
	var got []int
	n, err := pre.Add(ctx, first...)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, n)
	defer func() { prechecked = nil }()
	next := 0
	prechecked = func() {
		if next < len(between) {
			b := between[next]
			next++
			n, err := pre.Add(ctx, b...)
			if err != nil {
				t.Error(err)
			}
			got = append(got, n)
			pre.mu.Lock()
			l0 := pre.seen.l0
			pre.mu.Unlock()
			if next == len(between) && l0 == 0 {
				t.Error("level 0 is empty after the Adds between: the test no longer covers it")
			}
		}
	}
	if precheckChunk*len(between) > len(large) {
		t.Fatalf("the large Add reads %d times, fewer than the %d Adds between", len(large)/precheckChunk, len(between))
	}
	n, err = pre.Add(ctx, large...)
	prechecked = nil
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, n)

	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("URLs added by each Add:\n\tgot  %v\n\twant %v", got, want)
	}
	if gs, ws := pre.Stats(), ref.Stats(); fmt.Sprint(gs.Added, gs.Duplicates, gs.Refused) != fmt.Sprint(ws.Added, ws.Duplicates, ws.Refused) {
		t.Fatalf("Stats:\n\tgot  %+v\n\twant %+v", gs, ws)
	}
	if pre.seen.open.id != 0 || len(pre.seen.runs) < 3 {
		t.Fatalf("seen set %+v: want several runs, none open", pre.seen)
	}
	for _, f := range []*Frontier{pre, ref} {
		if err := f.Check(); err != nil {
			t.Fatal(err)
		}
	}
	if w, g := drainHosts(t, ref), drainHosts(t, pre); fmt.Sprint(g) != fmt.Sprint(w) {
		t.Fatalf("lease order per host:\n\tgot  %v\n\twant %v", g, w)
	}
	// Everything is now seen: a large Add again adds nothing.
	if n, err := pre.Add(ctx, es...); n != 0 || err != nil {
		t.Fatalf("Add of every URL again: %d, %v; want 0, nil", n, err)
	}
}

// TestAddPrecheckOpenRun checks a large Add whose lookups ran while another large
// Add was appending its URLs to the open run of the seen set, which that one then
// completes before the first's commits: the run is older than the lookups, and
// holds URLs added after them.
func TestAddPrecheckOpenRun(t *testing.T) {
	smallSeenSet(t)
	smallAdds(t)
	ctx := context.Background()
	es := mixedEntries(400)
	x, y := es[:300], es[100:]

	precheckChunk = 0
	ref, _ := openTest(t, Options{})
	var want []int
	for _, b := range [][]Entry{x, y} {
		n, err := ref.Add(ctx, b...)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, n)
	}

	precheckChunk = 1000
	pre, _ := openTest(t, Options{})
	defer func() { prechecked, addCommitted = nil, nil }()
	var (
		yLooked = make(chan bool) // y's lookups are done, and whether a run was open
		xDone   = make(chan struct{})
		yDone   = make(chan int)
	)
	addCommitted = func() {
		addCommitted = nil // only after x's first commit
		go func() {
			prechecked = func() {
				prechecked = nil
				pre.mu.Lock()
				open := pre.seen.open.id != 0
				pre.mu.Unlock()
				yLooked <- open
				<-xDone
			}
			n, err := pre.Add(ctx, y...)
			if err != nil {
				t.Error(err)
			}
			yDone <- n
		}()
		if !<-yLooked {
			t.Error("no run open when y looked its URLs up")
		}
	}
	nx, err := pre.Add(ctx, x...)
	if err != nil {
		t.Fatal(err)
	}
	close(xDone)
	ny := <-yDone
	if got := []int{nx, ny}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("URLs added by x and y:\n\tgot  %v\n\twant %v", got, want)
	}
	if err := pre.Check(); err != nil {
		t.Fatal(err)
	}
	if w, g := drainHosts(t, ref), drainHosts(t, pre); fmt.Sprint(g) != fmt.Sprint(w) {
		t.Fatalf("lease order per host:\n\tgot  %v\n\twant %v", g, w)
	}
}

// smallAdds makes a large Add take many small commits (addNodes 2, foldCheck 4,
// addChunk 16) until the test ends.
func smallAdds(t *testing.T) {
	an, c, a, p := addNodes, foldCheck, addChunk, precheckChunk
	t.Cleanup(func() { addNodes, foldCheck, addChunk, precheckChunk = an, c, a, p })
	addNodes, foldCheck, addChunk = 2, 4, 16
}
