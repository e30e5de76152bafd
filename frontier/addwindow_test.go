package frontier

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"
	"unsafe"
)

// TestAddMemoryBound checks that what a large Add holds is bounded by its window and
// its commits, not by the entries it is given: an Add of 10M URLs held about 350
// bytes of prepared entries per URL (11 GiB of peak RSS, counting the collector's
// headroom) until its last commit.
func TestAddMemoryBound(t *testing.T) {
	an, w := addNodes, addWindow
	t.Cleanup(func() { addNodes, addWindow = an, w })
	addNodes, addWindow = 512, 1<<15 // commits of at most 4,096 URLs, windows of 32,768

	// 100,000 entries: 25 commits, and 35 MB of prepared entries were they all held,
	// four times the bound (under -race on 2 busy cores, 200,000 took 38 s).
	const n = 100_000
	f, _ := openTest(t, Options{})
	entries := make([]Entry, n)
	for i := range entries {
		entries[i] = Entry{URL: fmt.Sprintf("https://h%d.test/a/rather/long/path/to/page/%d", i%1000, i), FoundOn: "https://seed.test/"}
	}
	before := liveHeap()
	var most int64
	commits := 0
	defer func() { addCommitted = nil }()
	addCommitted = func() {
		if commits++; commits%5 == 0 {
			most = max(most, liveHeap()-before)
		}
	}
	mustAdd(t, f, n, entries...)
	addCommitted = nil
	runtime.KeepAlive(entries)
	t.Logf("%d commits, the most live heap over the entries' own: %d bytes, %d per entry", commits, most, most/n)
	if commits < 10 {
		t.Fatalf("%d commits: the test measures too few", commits)
	}
	// The window's sort keys (0.9 MiB), a commit's prepared entries (about 1.5 MiB)
	// and its transaction's nodes.
	const bound = 8 << 20
	if most > bound {
		t.Errorf("live heap during the Add, over the entries': got %d bytes (%d per entry), want at most %d", most, most/n, bound)
	}
}

// TestAddWindows checks that an Add larger than its window counts and queues as the
// Adds of its windows one after the other, with duplicates (within a window, across
// windows and against URLs queued before), refusals and both limits.
func TestAddWindows(t *testing.T) {
	smallSeenSet(t)
	smallAdds(t)
	w := addWindow
	t.Cleanup(func() { addWindow = w })
	addWindow = 64

	ctx := context.Background()
	es := mixedEntries(700) // every tenth a duplicate of one 7 before
	for i := range es {
		switch i % 53 {
		case 5:
			es[i].URL = "not a url"
		case 6:
			es[i].Depth = 9
		case 7:
			es[i] = es[i/3] // a duplicate in an earlier window
		}
	}
	before := es[600:650] // queued before the large Add
	opts := Options{MaxQueuedPerHost: 60, MaxTotal: 400, MaxDepth: 5}

	ref, _ := openTest(t, opts)
	var want []int
	n, err := ref.Add(ctx, before...)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, n)
	total := 0
	for lo := 0; lo < len(es); lo += addWindow {
		n, err := ref.Add(ctx, es[lo:min(lo+addWindow, len(es))]...)
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	want = append(want, total)

	win, _ := openTest(t, opts)
	var got []int
	for _, b := range [][]Entry{before, es} {
		n, err := win.Add(ctx, b...)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("URLs added:\n\tgot  %v\n\twant %v", got, want)
	}
	gs, ws := win.Stats(), ref.Stats()
	if fmt.Sprint(gs.Added, gs.Duplicates, gs.Refused) != fmt.Sprint(ws.Added, ws.Duplicates, ws.Refused) {
		t.Fatalf("Stats:\n\tgot  %+v\n\twant %+v", gs, ws)
	}
	for _, r := range []string{RefusedURL, RefusedDepth, RefusedTotal, RefusedHostQueue} {
		if ws.Refused[r] == 0 {
			t.Errorf("no entry refused for %q: the test does not cover it", r)
		}
	}
	if ws.Duplicates < 100 {
		t.Errorf("%d duplicates: the test covers too few", ws.Duplicates)
	}
	for _, f := range []*Frontier{win, ref} {
		if err := f.Check(); err != nil {
			t.Fatal(err)
		}
	}
	if w, g := drainHosts(t, ref), drainHosts(t, win); fmt.Sprint(g) != fmt.Sprint(w) {
		t.Fatalf("lease order per host:\n\tgot  %v\n\twant %v", g, w)
	}
}

// TestPrepareKeys checks that a large Add's entries, sorted by their keys and
// prepared from them a commit at a time, are those that prepare gives sorted by seen
// key, refusals included.
func TestPrepareKeys(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	if s := unsafe.Sizeof(sortKey{}); s != sortKeySize {
		t.Errorf("a sortKey is %d bytes, sortKeySize says %d", s, sortKeySize)
	}
	f := &Frontier{opts: Options{MaxDepth: 5}}
	entries := prepareEntries(5000) // with duplicates
	want := f.prepare(entries)
	for i := range want {
		want[i].seq = 100 + uint64(i) + 1
	}
	sortBySeen(want)
	keys := f.sortKeys(entries)
	var got []prepared
	for lo := 0; lo < len(keys); lo += 5000 {
		got = f.prepareKeys(got, keys, lo, min(lo+5000, len(keys)), entries, 100, nil)
	}
	if len(got) != len(want) {
		t.Fatalf("%d prepared, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.e != w.e || g.host != w.host || g.fp != w.fp || !bytes.Equal(g.val, w.val) || g.reject != w.reject || g.seq != w.seq {
			t.Fatalf("entry %d:\n\tgot %+v\n\twant %+v", i, g, w)
		}
	}
}
