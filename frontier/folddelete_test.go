package frontier

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// foldedState reads, in f's file, the folded mark (0: none) and how many log records,
// and keys, lie at or before it.
func foldedState(t *testing.T, f *Frontier) (mark uint64, left, keys int) {
	t.Helper()
	err := f.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(keyFolded)
		if v == nil {
			return nil
		}
		mark = binary.BigEndian.Uint64(v)
		c := tx.Bucket(bucketStaged).Cursor()
		for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k) <= mark; k, _ = c.Next() {
			keys++
		}
		var err error
		left, err = countRecords(tx.Bucket(bucketStaged), mark)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return mark, left, keys
}

// TestFoldDeleteCut folds a log of outcomes and staged links over commits of one
// node each and opens the file again after each commit of the deletion of the
// fold's records, as a kill would leave it: the records are deleted over several
// commits, marked folded meanwhile; at every cut the file checks, Open's replay
// and a read-only Open (crawl status) give the state of before, and the next Flush
// queues every link once.
func TestFoldDeleteCut(t *testing.T) {
	n, d, c := foldNodes, deleteNodes, foldCheck
	t.Cleanup(func() { foldNodes, deleteNodes, foldCheck = n, d, c })
	foldNodes, deleteNodes, foldCheck = 1, 1, 2
	ctx := context.Background()
	clk := newClock()
	opts := Options{Now: clk.Now, LinkBatch: 1000, MaxInFlightPerHost: 2}
	f, path := openTest(t, opts)
	var es []Entry
	for i := range 40 {
		es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/%d", i%4, i)})
	}
	mustAdd(t, f, len(es), es...)
	all, finished := map[string]bool{}, map[string]bool{}
	for _, e := range es {
		all[e.URL] = true
	}
	for i := range 30 {
		l := lease(t, f)
		o := Outcome{Links: []Entry{{URL: l.URL + "/x", Depth: 1}, {URL: fmt.Sprintf("http://n%d.test/", i%7), Depth: 1}}}
		for _, e := range o.Links {
			all[e.URL] = true
		}
		switch i % 4 {
		case 1:
			o.Kind = Retry
		case 2:
			o.Kind, o.Reason = Skipped, "robots"
		}
		done(t, f, l, o)
		if o.Kind != Retry {
			finished[l.URL] = true
		}
	}
	// Fold until the fold is in and its records are being deleted.
	for steps := 0; ; steps++ {
		if steps > 10_000 {
			t.Fatal("the fold never reached the deletion of its records")
		}
		if mark, _, _ := foldedState(t, f); mark != 0 {
			break
		}
		s := f.Stats()
		if s.Staged == 0 && f.logLen == 0 {
			t.Fatal("the fold deleted its records at once: no commit left them marked folded")
		}
		if err := f.foldOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	want := f.Stats()
	want.Recovered = 0
	wantHosts := hostsOf(f)
	cuts := 0
	for {
		mark, left, keys := foldedState(t, f)
		if mark == 0 {
			break
		}
		cuts++
		f.mu.Lock()
		pendN := f.pendN
		f.mu.Unlock()
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		// A read-only Open, as crawl status does it, reads the state of before.
		ro, err := Open(path, Options{ReadOnly: true, Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		got := ro.Stats()
		if err := ro.Check(); err != nil {
			t.Fatalf("cut %d: Check, read-only: %v", cuts, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || hostsOf(ro) != wantHosts {
			t.Fatalf("cut %d: read-only Open\n\tgot  %+v %s\n\twant %+v %s", cuts, got, hostsOf(ro), want, wantHosts)
		}
		ro.Close()
		if f, err = Open(path, opts); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		got = f.Stats()
		got.Recovered = 0
		if fmt.Sprint(got) != fmt.Sprint(want) || hostsOf(f) != wantHosts {
			t.Fatalf("cut %d (%d folded records left): after Open\n\tgot  %+v %s\n\twant %+v %s", cuts, left, got, hostsOf(f), want, wantHosts)
		}
		if err := f.Check(); err != nil {
			t.Fatalf("cut %d: Check: %v", cuts, err)
		}
		if f.pendN != pendN {
			t.Fatalf("cut %d: %d queue changes pending after Open, %d before: the replay took folded records", cuts, f.pendN, pendN)
		}
		records := left
		f.view(func(tx *bolt.Tx) error {
			return eachRecordAfter(tx.Bucket(bucketStaged), mark, func(uint64, []byte) error { records++; return nil })
		})
		if f.logLen != records {
			t.Fatalf("cut %d: logLen %d, the log holds %d records", cuts, f.logLen, records)
		}
		if cuts == 1 {
			// A Done while the records are being deleted: the next fold, which
			// starts before they are gone, takes its record.
			l := lease(t, f)
			done(t, f, l, Outcome{Links: []Entry{{URL: "http://late.test/", Depth: 1}}})
			all["http://late.test/"], finished[l.URL] = true, true
		}
		// This commit folds the Done's record in too, at once (one link): the
		// mark moves on to it.
		if err := f.foldOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if m, _, now := foldedState(t, f); m == mark && now >= keys && now > 0 {
			t.Fatalf("cut %d: a commit deleted none of the %d keys of folded records", cuts, keys)
		}
		want = f.Stats()
		want.Recovered = 0
		wantHosts = hostsOf(f)
	}
	if cuts < 3 {
		t.Fatalf("the fold's records went in %d commits, want them deleted over more", cuts)
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, u := range queueURLs(t, f) {
		if finished[u] {
			t.Fatalf("finished URL %s is queued", u)
		}
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	seen := map[string]bool{}
	for {
		l, _, err := tryNext(f)
		if err != nil || l == nil {
			break
		}
		if finished[l.URL] || seen[l.URL] {
			t.Fatalf("URL %s leased again", l.URL)
		}
		seen[l.URL] = true
		done(t, f, l, Outcome{})
	}
	for u := range all {
		if !finished[u] && !seen[u] {
			t.Fatalf("URL %s lost", u)
		}
	}
}

// TestFoldDeleteBounded checks that the commits that delete a fold's records each
// rewrite about deleteNodes nodes: the deletion in one commit rewrote every leaf of the
// log (55,310 nodes, 30 MiB of heap, for a fold of 1M links).
func TestFoldDeleteBounded(t *testing.T) {
	defer func(n, d int64, c int) { foldNodes, deleteNodes, foldCheck = n, d, c }(foldNodes, deleteNodes, foldCheck)
	foldNodes, deleteNodes, foldCheck = 16, 16, 64
	f, err := Open(filepath.Join(t.TempDir(), "f.db"), Options{NoSync: true, LinkBatch: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	const n = 20_000
	es := make([]Entry, 0, n)
	for i := range n {
		es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/a/fairly/long/path/to/page-%d.html", i%50, i), Depth: 1})
	}
	if _, err := f.Stage(ctx, es...); err != nil {
		t.Fatal(err)
	}
	var leaves int
	f.view(func(tx *bolt.Tx) error {
		leaves = tx.Bucket(bucketStaged).Stats().LeafPageN
		return nil
	})
	var most int64
	deleting := 0
	for steps := 0; f.Stats().Staged > 0 || f.logLen > 0; steps++ {
		if steps > 100_000 {
			t.Fatal("the fold does not end")
		}
		st := f.db.Stats()
		before := st.TxStats.GetNodeCount()
		if err := f.foldOnce(ctx); err != nil {
			t.Fatal(err)
		}
		st = f.db.Stats()
		nodes := st.TxStats.GetNodeCount() - before
		if f.Stats().Staged == 0 {
			// The fold is in: this commit deleted some of its records.
			deleting++
			most = max(most, nodes)
		}
	}
	if got := f.Stats().Queued; got != n {
		t.Fatalf("queued %d, want %d", got, n)
	}
	t.Logf("the log's %d leaves deleted over %d commits, at most %d nodes a commit", leaves, deleting, most)
	// deleteNodes, and the branches, meta and the commit's own.
	if limit := 4 * deleteNodes; most > limit || leaves < 10*int(deleteNodes) {
		t.Errorf("a commit deleting the fold's records rewrote %d nodes, more than %d (the log had %d leaves)", most, limit, leaves)
	}
}

// TestFormat5 opens a file of format 5 with a fold under way: Open marks it format
// 6, which builds of before refuse (they would fold the records marked folded again),
// and the fold ends as in format 6.
func TestFormat5(t *testing.T) {
	f, path := stagedNine(t)
	if err := f.foldOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	boltUpdate(t, path, func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta.Get(keyFold) == nil || meta.Get(keyFolded) != nil {
			return fmt.Errorf("want a fold under way, its links not all queued")
		}
		return meta.Put(keyFormat, format5)
	})
	for _, readOnly := range []bool{true, false} {
		g, err := Open(path, Options{ReadOnly: readOnly, LinkBatch: 1000, NoSync: true})
		if err != nil {
			t.Fatalf("ReadOnly %v: %v", readOnly, err)
		}
		if err := g.Check(); err != nil {
			t.Fatalf("ReadOnly %v: Check: %v", readOnly, err)
		}
		var format []byte
		g.view(func(tx *bolt.Tx) error {
			format = bytes.Clone(tx.Bucket(bucketMeta).Get(keyFormat))
			return nil
		})
		want := format5
		if !readOnly {
			want = formatValue
			if err := g.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			if s := g.Stats(); s.Staged != 0 || s.Queued != 9 {
				t.Fatalf("after Flush: Staged %d, Queued %d; want 0, 9", s.Staged, s.Queued)
			}
		}
		if !bytes.Equal(format, want) {
			t.Errorf("ReadOnly %v: format %q, want %q", readOnly, format, want)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
