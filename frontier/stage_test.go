package frontier

import (
	"context"
	"errors"
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

// TestFoldBudget folds a record at a time when each fold may rewrite only one node.
func TestFoldBudget(t *testing.T) {
	defer func(n int64) { foldNodes = n }(foldNodes)
	foldNodes = 1
	ctx := context.Background()
	f, _ := openTest(t, Options{LinkBatch: 1000})
	mustAdd(t, f, 3, Entry{URL: "http://a.test/"}, Entry{URL: "http://b.test/"}, Entry{URL: "http://c.test/"})
	for i, l := range []*Lease{lease(t, f), lease(t, f), lease(t, f)} {
		done(t, f, l, Outcome{Links: []Entry{
			{URL: l.URL + "x", Depth: 1}, {URL: l.URL + "y", Depth: 1}, {URL: "http://d.test/" + string(rune('a'+i)), Depth: 1},
		}})
	}
	if s := f.Stats(); s.Staged != 9 {
		t.Fatalf("Staged %d, want 9", s.Staged)
	}
	if err := f.foldOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Staged != 6 || s.Queued != 3 || s.Added != 6 {
		t.Fatalf("after one fold of one record: %+v", s)
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
