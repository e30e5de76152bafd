package frontier

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestStaging follows links through the staged bucket: kept durably and apart from
// the queues, folded in by Next rather than wait or end the crawl, by a commit that
// reaches LinkBatch, and by Flush; duplicates and limits are decided when folding.
func TestStaging(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	f, path := openTest(t, Options{LinkBatch: 5, MaxQueuedPerHost: 2, Now: c.Now})
	mustAdd(t, f, 2, Entry{URL: "http://a.test/"}, Entry{URL: "http://b.test/"})

	la := lease(t, f)
	done(t, f, la, Outcome{HostReady: c.Now().Add(time.Minute), Links: []Entry{
		{URL: "http://a.test/1", Depth: 1},
		{URL: "http://a.test/", Depth: 1}, // already seen
		{URL: "/relative"},                // refused at once
		{URL: "http://c.test/1", Depth: 1},
	}})
	s := f.Stats()
	if s.Staged != 3 || s.Added != 2 || s.Duplicates != 0 || s.Refused[RefusedURL] != 1 || s.Queued != 1 {
		t.Fatalf("after the first Done: %+v", s)
	}

	// Staged links survive a restart.
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, Options{LinkBatch: 5, MaxQueuedPerHost: 2, Now: c.Now, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if s := f.Stats(); s.Staged != 3 || s.Queued != 1 {
		t.Fatalf("after reopening: %+v", s)
	}

	// The commit that brings the staged links to LinkBatch folds them in, those of
	// earlier commits first; a.test's queue limit refuses the last of a.test's.
	lb := lease(t, f)
	done(t, f, lb, Outcome{Links: []Entry{
		{URL: "http://a.test/2", Depth: 1},
		{URL: "http://c.test/1", Depth: 2}, // staged twice: the first one counts
		{URL: "http://a.test/3", Depth: 1},
	}})
	s = f.Stats()
	if s.Staged != 0 || s.Added != 5 || s.Duplicates != 2 || s.Refused[RefusedHostQueue] != 1 || s.Queued != 3 {
		t.Fatalf("after the fold: %+v", s)
	}
	if h, _ := f.HostStats("http://a.test"); h.Queued != 2 {
		t.Fatalf("a.test: %+v, want 2 queued", h)
	}
	if l := lease(t, f); l.URL != "http://c.test/1" || l.Depth != 1 {
		t.Fatalf("leased %+v", l.Entry)
	}

	// Next folds in staged links rather than wait, and rather than end the crawl.
	g, _ := openTest(t, Options{LinkBatch: 1000, Now: c.Now})
	mustAdd(t, g, 1, Entry{URL: "http://a.test/"})
	done(t, g, lease(t, g), Outcome{HostReady: c.Now().Add(time.Hour), Links: []Entry{{URL: "http://d.test/", Depth: 1}}})
	if _, _, err := tryNext(g); err != nil {
		t.Fatalf("tryNext with links staged: %v, want no ErrDone", err)
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	l, err := g.Next(tctx)
	if err != nil || l.URL != "http://d.test/" {
		t.Fatalf("Next: %v, %v; want http://d.test/ folded in", l, err)
	}
	done(t, g, l, Outcome{Links: []Entry{{URL: "http://d.test/", Depth: 2}}})
	if _, err := g.Next(tctx); !errors.Is(err, ErrDone) {
		t.Fatalf("Next after the last page: %v, want ErrDone once the duplicate is folded in", err)
	}
	if s := g.Stats(); s.Staged != 0 || s.Duplicates != 1 || s.Done != 2 {
		t.Fatalf("g: %+v", s)
	}

	// With LinkBatch < 0, Done queues its links at once.
	h, _ := openTest(t, Options{LinkBatch: -1})
	mustAdd(t, h, 1, Entry{URL: "http://a.test/"})
	done(t, h, lease(t, h), Outcome{Links: []Entry{{URL: "http://a.test/x", Depth: 1}}})
	if s := h.Stats(); s.Staged != 0 || s.Queued != 1 || s.Added != 2 {
		t.Fatalf("unstaged: %+v", s)
	}
}

// TestStagingUpgrade opens a file written before the staged bucket existed.
func TestStagingUpgrade(t *testing.T) {
	f, path := openTest(t, Options{})
	mustAdd(t, f, 1, Entry{URL: "http://a.test/"})
	if err := f.db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketStaged) }); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open of an old file: %v", err)
	}
	if s := ro.Stats(); s.Queued != 1 || s.Staged != 0 {
		t.Fatalf("read-only Stats: %+v", s)
	}
	ro.Close()
	f, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatalf("Open of an old file: %v", err)
	}
	defer f.Close()
	done(t, f, lease(t, f), Outcome{Links: []Entry{{URL: "http://a.test/x", Depth: 1}}})
	if err := f.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Queued != 1 || s.Added != 2 {
		t.Fatalf("Stats: %+v", s)
	}
}

// TestFoldBudget folds a few links per commit when each commit may rewrite only one
// node: the fold goes on over commits, in seen-key order, and a host's links keep the
// order in which they were found.
func TestFoldBudget(t *testing.T) {
	ctx := context.Background()
	f, _ := stagedNine(t)
	if err := f.foldOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Staged != 7 || s.Added+s.Duplicates != 5 {
		t.Fatalf("after one commit of the fold: %+v", s)
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Staged != 0 || s.Queued != 9 || s.Added != 12 {
		t.Fatalf("after Flush: %+v", s)
	}
	l := lease(t, f)
	if l.URL != "http://d.test/a" {
		t.Fatalf("first lease %s, want http://d.test/a: a new host first, its links in the order staged", l.URL)
	}
}

// stagedNine opens a frontier that stages links (LinkBatch 1,000) and folds a link or
// two per commit (foldNodes 1, foldCheck 2, until the test ends), and stages nine
// links on it (stageNine).
func stagedNine(t *testing.T) (*Frontier, string) {
	t.Helper()
	n, c := foldNodes, foldCheck
	t.Cleanup(func() { foldNodes, foldCheck = n, c })
	foldNodes, foldCheck = 1, 2
	f, path := openTest(t, Options{LinkBatch: 1000})
	stageNine(t, f)
	return f, path
}

// stageNine adds three seeds, finishes them and stages nine links.
func stageNine(t *testing.T, f *Frontier) {
	t.Helper()
	mustAdd(t, f, 3, Entry{URL: "http://a.test/"}, Entry{URL: "http://b.test/"}, Entry{URL: "http://c.test/"})
	for i, l := range []*Lease{lease(t, f), lease(t, f), lease(t, f)} {
		done(t, f, l, Outcome{Links: []Entry{
			{URL: l.URL + "x", Depth: 1}, {URL: l.URL + "y", Depth: 1}, {URL: "http://d.test/" + string(rune('a'+i)), Depth: 1},
		}})
	}
	if s := f.Stats(); s.Staged != 9 {
		t.Fatalf("Staged %d, want 9", s.Staged)
	}
}

// TestFoldResume closes the file in the middle of a fold, as a crash would leave it,
// and checks that the next Open goes on where the fold stopped: every link queued
// once, none counted twice.
// With FoldLinks 7, the fold's index is sorted in chunks of a record (20 links), in
// temporary files, and merged: the fold opened again skips the links queued before
// in the same order.
func TestFoldResume(t *testing.T) {
	for _, fl := range []int{0, 7} {
		t.Run(fmt.Sprintf("FoldLinks %d", fl), func(t *testing.T) { testFoldResume(t, fl) })
	}
}

func testFoldResume(t *testing.T, foldLinks int) {
	defer func(n int64, c int) { foldNodes, foldCheck = n, c }(foldNodes, foldCheck)
	foldNodes, foldCheck = 1, 2
	ctx := context.Background()
	f, path := openTest(t, Options{LinkBatch: 1000, FoldLinks: foldLinks})
	mustAdd(t, f, 3, Entry{URL: "http://a.test/"}, Entry{URL: "http://b.test/"}, Entry{URL: "http://c.test/"})
	for i, l := range []*Lease{lease(t, f), lease(t, f), lease(t, f)} {
		var links []Entry
		for j := range 10 {
			links = append(links, Entry{URL: fmt.Sprintf("%sx%d", l.URL, j), Depth: 1},
				Entry{URL: fmt.Sprintf("http://d.test/%d-%d", i, j), Depth: 1})
		}
		done(t, f, l, Outcome{Links: links})
	}
	for range 2 {
		if err := f.foldOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if s := f.Stats(); s.Staged != 56 {
		t.Fatalf("after two commits of the fold: Staged %d, want 56", s.Staged)
	}
	// A Done staging more links while the fold is under way: they wait for the next.
	mustAdd(t, f, 1, Entry{URL: "http://e.test/"})
	done(t, f, leaseURL(t, f, "http://e.test/"), Outcome{Links: []Entry{{URL: "http://e.test/z", Depth: 1}, {URL: "http://a.test/x3", Depth: 1}}})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Every commit goes on with the fold, one node's worth: it is not over yet.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketMeta).Get(keyFold) == nil {
			t.Error("no fold under way at Close")
		}
		return nil
	})
	db.Close()
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := ro.Check(); err != nil {
		t.Errorf("Check of a file with a fold under way: %v", err)
	}
	ro.Close()
	f, err = Open(path, Options{LinkBatch: 1000, FoldLinks: foldLinks, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := f.Stats()
	if s.Staged != 0 || s.Queued != 61 || s.Added != 65 || s.Duplicates != 1 {
		t.Fatalf("after Flush: %+v", s)
	}
	f.view(func(tx *bolt.Tx) error {
		if n := tx.Bucket(bucketStaged).Stats().KeyN; n != 0 {
			t.Errorf("%d staged records left", n)
		}
		if v := tx.Bucket(bucketMeta).Get(keyFold); v != nil {
			t.Errorf("fold record %x left", v)
		}
		return nil
	})
}

// leaseURL leases until it gets rawURL, giving the others back with a Retry that uses
// no attempt.
func leaseURL(t *testing.T, f *Frontier, rawURL string) *Lease {
	t.Helper()
	for range 100 {
		l := lease(t, f)
		if l.URL == rawURL {
			return l
		}
		done(t, f, l, Outcome{Kind: Retry, NoAttempt: true})
	}
	t.Fatalf("never leased %s", rawURL)
	return nil
}

// TestStagedCounterCorrupt: a staged counter with nothing staged is an error, not a
// Flush that never ends.
func TestStagedCounterCorrupt(t *testing.T) {
	f, path := openTest(t, Options{})
	mustAdd(t, f, 1, Entry{URL: "http://a.test/"})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(append(append([]byte(nil), counterPfx...), cStaged...), []byte{5})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Flush(context.Background()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Flush: %v, want ErrCorrupt", err)
	}
}

// TestAddSorted checks that a large Add, sorted and split over commits, queues the
// same URLs in the same order per host, and counts the same duplicates, as Adds
// small enough for one transaction each.
func TestAddSorted(t *testing.T) {
	defer func(n, an int64, c, a int) { foldNodes, addNodes, foldCheck, addChunk = n, an, c, a }(foldNodes, addNodes, foldCheck, addChunk)
	es := mixedEntries(200)
	es = append(es, Entry{URL: "/relative"})
	ctx := context.Background()
	small, _ := openTest(t, Options{})
	for i := 0; i < len(es); i += 10 {
		if _, err := small.Add(ctx, es[i:min(i+10, len(es))]...); err != nil {
			t.Fatal(err)
		}
	}
	foldNodes, addNodes, foldCheck, addChunk = 1, 1, 4, 16
	large, _ := openTest(t, Options{})
	n, err := large.Add(ctx, es...)
	if err != nil {
		t.Fatal(err)
	}
	ws, gs := small.Stats(), large.Stats()
	if n != int(ws.Added) || gs.Added != ws.Added || gs.Duplicates != ws.Duplicates || gs.Refused[RefusedURL] != 1 {
		t.Fatalf("large Add: %d added, Stats %+v; want as the small Adds: %+v", n, gs, ws)
	}
	want, got := drainHosts(t, small), drainHosts(t, large)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("lease order per host:\n\tgot  %v\n\twant %v", got, want)
	}
}

func TestSortBySeen(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 60 {
		ps := make([]prepared, n)
		for i := range ps {
			ps[i].fp[0] = byte(rng.IntN(5)) // many equal keys
			ps[i].seq = uint64(i)
		}
		want := slices.Clone(ps)
		slices.SortStableFunc(want, func(x, y prepared) int { return bytes.Compare(x.fp[:], y.fp[:]) })
		sortBySeen(ps)
		for i := range ps {
			if ps[i].fp != want[i].fp || ps[i].seq != want[i].seq {
				t.Fatalf("n=%d: position %d holds %v/%d, want %v/%d", n, i, ps[i].fp[0], ps[i].seq, want[i].fp[0], want[i].seq)
			}
		}
	}
}

// mixedEntries returns n entries over 7 hosts in turn, a tenth of them repeating an
// earlier URL, with priorities and depths mixed.
func mixedEntries(n int) []Entry {
	es := make([]Entry, 0, n)
	for i := range n {
		m := i
		if i%10 == 9 {
			m = i - 7
		}
		es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/p%d", m%7, m), Depth: m % 3, Priority: m%4 - 1})
	}
	return es
}

// drainHosts leases and finishes every URL f hands out now, and returns them by host
// in the order leased.
func drainHosts(t *testing.T, f *Frontier) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for {
		l, _, err := tryNext(f)
		if err != nil || l == nil {
			return got
		}
		got[l.Host] = append(got[l.Host], l.URL)
		done(t, f, l, Outcome{})
	}
}
