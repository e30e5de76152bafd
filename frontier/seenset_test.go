package frontier

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// mustContain reports whether the seen set of s holds k, failing t on an error.
func mustContain(t *testing.T, s *seenTx, k *seenKey) bool {
	t.Helper()
	ok, err := s.contains(k)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// smallSeenSet makes the seen set's levels, runs, blocks and merge steps tiny until
// t ends, so that a small test spills level 0, writes runs of many blocks and cuts
// merges over many commits.
func smallSeenSet(t testing.TB) {
	l0, minRun, fanIn, bk, mb, db := seenL0Max, seenMinRun, seenFanIn, blockKeys, seenMergeBlocks, seenDeadBlocks
	t.Cleanup(func() {
		seenL0Max, seenMinRun, seenFanIn, blockKeys, seenMergeBlocks, seenDeadBlocks = l0, minRun, fanIn, bk, mb, db
	})
	seenL0Max, seenMinRun, seenFanIn, blockKeys, seenMergeBlocks, seenDeadBlocks = 30, 20, 3, 4, 2, 3
}

// keys returns n distinct seen keys, sorted.
func testKeys(n int) []seenKey {
	ks := make([]seenKey, n)
	for i := range ks {
		ks[i] = fingerprint("http://k.test", fmt.Sprintf("http://k.test/%d", i))
	}
	sortKeys(ks)
	return ks
}

func blockOf(ks ...seenKey) []byte {
	var v []byte
	for _, k := range ks {
		v = append(v, k[:]...)
	}
	return v
}

func TestDecodeBlock(t *testing.T) {
	ks := testKeys(blockKeys + 1)
	full := blockOf(ks[:blockKeys]...)
	tests := []struct {
		name string
		k, v []byte
		id   uint64 // 0: errCorrupt
	}{
		{"one key", blockKey(7, ks[0][:]), blockOf(ks[0]), 7},
		{"three keys", blockKey(1, ks[3][:]), blockOf(ks[3], ks[4], ks[9]), 1},
		{"full", blockKey(1<<40, ks[0][:]), full, 1 << 40},
		{"too many keys", blockKey(1, ks[0][:]), blockOf(ks...), 0},
		{"empty value", blockKey(1, ks[0][:]), nil, 0},
		{"short key", blockKey(1, ks[0][:])[:blockKeyLen-1], blockOf(ks[0]), 0},
		{"long key", append(blockKey(1, ks[0][:]), 0), blockOf(ks[0]), 0},
		{"first key differs", blockKey(1, ks[1][:]), blockOf(ks[0], ks[1]), 0},
		{"not sorted", blockKey(1, ks[1][:]), blockOf(ks[1], ks[0]), 0},
		{"repeated key", blockKey(1, ks[1][:]), blockOf(ks[1], ks[1]), 0},
		{"torn key", blockKey(1, ks[0][:]), blockOf(ks[0], ks[1])[:seenKeyLen+7], 0},
	}
	for _, tt := range tests {
		id, err := decodeBlock(tt.k, tt.v)
		if tt.id == 0 && err != errCorrupt || tt.id != 0 && (err != nil || id != tt.id) {
			t.Errorf("%s: decodeBlock = %d, %v; want %d", tt.name, id, err, tt.id)
		}
	}
	v := blockOf(ks[2], ks[5], ks[6], ks[10])
	for i, k := range ks[:12] {
		want := i == 2 || i == 5 || i == 6 || i == 10
		if got := blockHas(v, k[:]); got != want {
			t.Errorf("blockHas(key %d) = %v, want %v", i, got, want)
		}
	}
}

func TestSeenStateEncoding(t *testing.T) {
	ks := testKeys(2)
	states := []seenState{
		{nextID: 1},
		{nextID: 9, l0: 17, runs: []seenRun{{1, 5, 1}, {4, 800, 4}}, open: seenRun{8, 3, 1}, openLast: ks[0], dead: []uint64{2, 3}},
		{nextID: 12, runs: []seenRun{{5, 5, 1}, {6, 7, 1}, {9, 1, 1}}, merge: &seenMerge{in: []uint64{5, 6}, out: seenRun{11, 4, 1}, last: ks[1]}},
	}
	for _, st := range states {
		got, err := decodeSeenState(st.encode())
		if err != nil || !reflect.DeepEqual(got, st) {
			t.Errorf("decodeSeenState(encode(%+v)) = %+v, %v", st, got, err)
		}
	}
	if got, err := decodeSeenState(nil); err != nil || got.nextID != 1 || len(got.runs) != 0 {
		t.Errorf("decodeSeenState(nil) = %+v, %v; want an empty directory", got, err)
	}
	bad := []seenState{
		{nextID: 2, runs: []seenRun{{2, 5, 1}}},                    // id not below nextID
		{nextID: 5, runs: []seenRun{{1, 5, 1}, {1, 6, 1}}},         // a run twice
		{nextID: 5, runs: []seenRun{{1, 0, 0}}},                    // an empty run listed
		{nextID: 5, runs: []seenRun{{1, 5, 0}}},                    // keys in no block
		{nextID: 5, runs: []seenRun{{1, 500, 1}}},                  // more keys than a block holds
		{nextID: 5, runs: []seenRun{{1, 5, 1}}, dead: []uint64{1}}, // dead and listed
		{nextID: 5, runs: []seenRun{{1, 5, 1}, {2, 5, 1}}, merge: &seenMerge{in: []uint64{1, 3}, out: seenRun{4, 0, 0}}},
		{nextID: 5, runs: []seenRun{{1, 5, 1}}, merge: &seenMerge{in: []uint64{1}, out: seenRun{4, 0, 0}}},
	}
	for _, st := range bad {
		if _, err := decodeSeenState(st.encode()); err != errCorrupt {
			t.Errorf("decodeSeenState(encode(%+v)): got %v, want errCorrupt", st, err)
		}
	}
	good := states[1].encode()
	for i := range good {
		if _, err := decodeSeenState(good[:i]); err != errCorrupt {
			t.Errorf("decodeSeenState of the first %d bytes: got %v, want errCorrupt", i, err)
		}
	}
	if _, err := decodeSeenState(append(good, 0)); err != errCorrupt {
		t.Errorf("decodeSeenState with a byte more: got %v, want errCorrupt", err)
	}
}

func FuzzSeenBlock(f *testing.F) {
	ks := testKeys(3)
	f.Add(blockKey(1, ks[0][:]), blockOf(ks...))
	f.Add(blockKey(2, ks[1][:]), blockOf(ks[1], ks[0]))
	f.Add([]byte{1}, []byte{})
	f.Fuzz(func(t *testing.T, k, v []byte) {
		id, err := decodeBlock(k, v)
		if err != nil {
			return
		}
		if id != binary.BigEndian.Uint64(k) {
			t.Fatalf("id %d of key %x", id, k)
		}
		for i := 0; i < len(v); i += seenKeyLen {
			if !blockHas(v, v[i:i+seenKeyLen]) {
				t.Fatalf("key %d of a valid block not found", i/seenKeyLen)
			}
		}
	})
}

func FuzzSeenState(f *testing.F) {
	ks := testKeys(1)
	f.Add((&seenState{nextID: 1}).encode())
	f.Add((&seenState{nextID: 9, l0: 17, runs: []seenRun{{1, 5, 1}, {4, 800, 4}}, open: seenRun{8, 3, 1}, openLast: ks[0], dead: []uint64{2, 3}}).encode())
	f.Add((&seenState{nextID: 12, runs: []seenRun{{5, 5, 1}, {6, 7, 1}}, merge: &seenMerge{in: []uint64{5, 6}, out: seenRun{11, 4, 1}, last: ks[0]}}).encode())
	f.Fuzz(func(t *testing.T, v []byte) {
		st, err := decodeSeenState(v)
		if err != nil {
			return
		}
		again, err := decodeSeenState(st.encode())
		if err != nil || !reflect.DeepEqual(again, st) {
			t.Fatalf("decode(encode(decode(%x))) = %+v, %v; want %+v", v, again, err, st)
		}
	})
}

// commitNothing commits one empty batch: the seen set's upkeep goes on by a step.
func commitNothing(t *testing.T, f *Frontier) {
	t.Helper()
	if err := f.do(context.Background(), &op{apply: func(*batch) error { return nil }}); err != nil {
		t.Fatal(err)
	}
}

// seenURLs reports, for each URL, whether the seen set of f holds it.
func seenURLs(t *testing.T, f *Frontier, urls []string) []bool {
	t.Helper()
	f.mu.Lock()
	st := f.seen.clone()
	f.mu.Unlock()
	got := make([]bool, len(urls))
	err := f.view(func(tx *bolt.Tx) error {
		ss := newSeenTx(tx, st)
		for i, u := range urls {
			fp := fingerprint(hostOfTest(t, u), u)
			got[i] = mustContain(t, ss, &fp)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSeenRuns fills the seen set by every path (Adds of a few URLs, large sorted
// Adds, staged links folded in), with tiny levels, blocks and merge steps, and checks
// after each step that it holds every URL added and nothing else, that Check passes,
// and that the runs are merged down and their blocks deleted, across a reopen.
func TestSeenRuns(t *testing.T) {
	smallSeenSet(t)
	defer func(n int) { addChunk = n }(addChunk)
	addChunk = 50
	ctx := context.Background()
	f, path := openTest(t, Options{LinkBatch: 40})
	var added, never []string
	url := func(i int) string { return fmt.Sprintf("http://h%d.test/p%d", i%13, i) }
	for i := range 300 {
		never = append(never, fmt.Sprintf("http://never%d.test/", i))
	}
	check := func(step string) {
		t.Helper()
		if err := f.Check(); err != nil {
			t.Fatalf("%s: Check: %v", step, err)
		}
		for i, ok := range seenURLs(t, f, added) {
			if !ok {
				t.Fatalf("%s: added URL %s not seen", step, added[i])
			}
		}
		for i, ok := range seenURLs(t, f, never) {
			if ok {
				t.Fatalf("%s: URL %s seen, never added", step, never[i])
			}
		}
	}
	n := 0
	for round := range 6 {
		// A few at a time: level 0.
		for range 10 {
			var es []Entry
			for range 7 {
				es = append(es, Entry{URL: url(n)})
				added = append(added, url(n))
				n++
			}
			es = append(es, Entry{URL: added[n/2]}) // a duplicate
			mustAdd(t, f, 7, es...)
		}
		check(fmt.Sprintf("round %d, small Adds", round))
		// A large Add: sorted, a run of its own, with duplicates of every level.
		var es []Entry
		for range 120 {
			es = append(es, Entry{URL: url(n)})
			added = append(added, url(n))
			n++
		}
		for i := range 40 {
			es = append(es, Entry{URL: added[i*len(added)/40]})
		}
		mustAdd(t, f, 120, es...)
		check(fmt.Sprintf("round %d, large Add", round))
		// Staged links, folded in a run.
		for range 3 {
			l := lease(t, f)
			var links []Entry
			for range 30 {
				links = append(links, Entry{URL: url(n)})
				added = append(added, url(n))
				n++
			}
			links = append(links, Entry{URL: added[len(added)-40]})
			done(t, f, l, Outcome{Links: links})
		}
		if err := f.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("round %d, fold", round))
		if round == 2 {
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			var err error
			if f, err = Open(path, Options{LinkBatch: 40, NoSync: true}); err != nil {
				t.Fatal(err)
			}
			defer f.Close()
		}
	}
	if s := f.Stats(); s.Added != int64(len(added)) {
		t.Fatalf("Added %d, want %d", s.Added, len(added))
	}
	// The upkeep ends: runs merged down, their blocks deleted.
	for i := 0; ; i++ {
		f.mu.Lock()
		busy := f.seen.merge != nil || len(f.seen.dead) > 0
		f.mu.Unlock()
		if !busy {
			break
		}
		if i == 10_000 {
			t.Fatal("the seen set's merges do not end")
		}
		commitNothing(t, f)
	}
	check("merged")
	byTier := make(map[int]int)
	for _, r := range f.seen.runs {
		if byTier[tier(r.n)]++; byTier[tier(r.n)] >= seenFanIn {
			t.Errorf("%d runs of tier %d left: %+v", byTier[tier(r.n)], tier(r.n), f.seen.runs)
		}
	}
	if s := f.Stats(); s.SeenRuns != len(f.seen.runs) || s.SeenLevel0 != f.seen.l0 {
		t.Errorf("Stats: %d runs, %d keys in level 0; directory %+v", s.SeenRuns, s.SeenLevel0, f.seen)
	}
	t.Logf("%d URLs: %d runs, %d keys in level 0", len(added), len(f.seen.runs), f.seen.l0)
	// And no URL added is new again.
	var es []Entry
	for _, u := range added {
		es = append(es, Entry{URL: u})
	}
	mustAdd(t, f, 0, es...)
}

// TestSeenFormat4 reads a file whose seen set is format 4's one B+tree: read-only as
// it is, writable as the oldest level of the seen set, read and never written again.
func TestSeenFormat4(t *testing.T) {
	smallSeenSet(t)
	f, path := openTest(t, Options{})
	var es []Entry
	for i := range 200 {
		es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/%d", i%7, i)})
	}
	mustAdd(t, f, 200, es...)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// As format 4 wrote it: every seen key in the bucket seen, no level 0, no runs.
	boltUpdate(t, path, func(tx *bolt.Tx) error {
		for _, e := range es {
			fp := fingerprint(hostOfTest(t, e.URL), e.URL)
			if err := tx.Bucket(bucketSeen).Put(fp[:], []byte{}); err != nil {
				return err
			}
		}
		for _, name := range [][]byte{bucketSeen0, bucketSeenRuns} {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		if err := meta.Delete(keySeenSet); err != nil {
			return err
		}
		return meta.Put(keyFormat, format4)
	})
	format := func() (v string) {
		t.Helper()
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.View(func(tx *bolt.Tx) error {
			v = fmt.Sprintf("%s, %d legacy keys", tx.Bucket(bucketMeta).Get(keyFormat), tx.Bucket(bucketSeen).Stats().KeyN)
			return nil
		})
		return v
	}
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open of a format-4 file: %v", err)
	}
	if err := ro.Check(); err != nil {
		t.Errorf("Check of a format-4 file: %v", err)
	}
	ro.Close()
	if got, want := format(), "politecrawl-frontier 4, 200 legacy keys"; got != want {
		t.Fatalf("after a read-only Open: %s, want %s", got, want)
	}
	f, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mustAdd(t, f, 0, es...)
	var more []Entry
	for i := range 100 {
		more = append(more, Entry{URL: fmt.Sprintf("http://h%d.test/more/%d", i%7, i)})
	}
	mustAdd(t, f, 100, append(more, es[:50]...)...)
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := format(), string(formatValue)+", 200 legacy keys"; got != want {
		t.Fatalf("after a writable Open: %s, want %s", got, want)
	}
}

// TestSeenMergeResume cuts a merge after each of its commits by closing the file
// (what a crash leaves: every commit is whole) and checks that the next Open goes
// on with it, and that Check passes at every point.
func TestSeenMergeResume(t *testing.T) {
	smallSeenSet(t)
	seenMergeBlocks, seenDeadBlocks = 1, 1
	f, path := openTest(t, Options{})
	var urls []string
	// Level 0 fills seenFanIn times: seenFanIn runs of tier 0, and a merge starts.
	for i := range int(seenL0Max) * seenFanIn {
		urls = append(urls, fmt.Sprintf("http://h%d.test/%d", i%5, i))
		mustAdd(t, f, 1, Entry{URL: urls[i]})
	}
	commitNothing(t, f) // the last commit wrote level 0 out; this one starts the merge
	steps := 0
	for {
		f.mu.Lock()
		st := f.seen.clone()
		f.mu.Unlock()
		if st.merge == nil && len(st.dead) == 0 {
			break
		}
		if err := f.Check(); err != nil {
			t.Fatalf("step %d: Check: %v", steps, err)
		}
		for i, ok := range seenURLs(t, f, urls) {
			if !ok {
				t.Fatalf("step %d: %s not seen", steps, urls[i])
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		var err error
		if f, err = Open(path, Options{NoSync: true}); err != nil {
			t.Fatal(err)
		}
		commitNothing(t, f)
		steps++
	}
	defer f.Close()
	if steps < 10 {
		t.Fatalf("the merge took %d commits; want it cut more often", steps)
	}
	if len(f.seen.runs) != 1 || f.seen.runs[0].n != int64(len(urls)) {
		t.Fatalf("after the merge: %+v, want one run of %d keys", f.seen, len(urls))
	}
	mustAdd(t, f, 0, Entry{URL: urls[0]}, Entry{URL: urls[len(urls)-1]})
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestSeenDamage damages the runs and the directory: Check, or Open, reports
// ErrCorrupt, and nothing panics.
func TestSeenDamage(t *testing.T) {
	smallSeenSet(t)
	build := func(t *testing.T) string {
		f, path := openTest(t, Options{})
		var es []Entry
		for i := range 3 * int(seenL0Max) {
			es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/%d", i%5, i)})
			if len(es) == 8 {
				mustAdd(t, f, 8, es...)
				es = es[:0]
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// nthBlock returns the key and a copy of the value of the i-th block.
	nthBlock := func(tx *bolt.Tx, i int) ([]byte, []byte) {
		c := tx.Bucket(bucketSeenRuns).Cursor()
		k, v := c.First()
		for ; i > 0; i-- {
			k, v = c.Next()
		}
		return bytes.Clone(k), bytes.Clone(v)
	}
	for _, tt := range []struct {
		name   string
		damage func(tx *bolt.Tx) error
	}{
		{"block value", func(tx *bolt.Tx) error {
			k, v := nthBlock(tx, 1)
			return tx.Bucket(bucketSeenRuns).Put(k, v[:len(v)-3])
		}},
		{"block lost", func(tx *bolt.Tx) error {
			k, _ := nthBlock(tx, 1)
			return tx.Bucket(bucketSeenRuns).Delete(k)
		}},
		{"blocks overlap", func(tx *bolt.Tx) error {
			k0, v0 := nthBlock(tx, 0)
			_, v1 := nthBlock(tx, 1)
			// The second block's first key, moved into the first.
			v := append(v0[:len(v0)-seenKeyLen], v1[:seenKeyLen]...)
			return tx.Bucket(bucketSeenRuns).Put(k0, v)
		}},
		{"orphan block", func(tx *bolt.Tx) error {
			_, v := nthBlock(tx, 0)
			return tx.Bucket(bucketSeenRuns).Put(blockKey(1<<40, v[:seenKeyLen]), v)
		}},
		{"level-0 key", func(tx *bolt.Tx) error { return tx.Bucket(bucketSeen0).Put([]byte("short"), []byte{}) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := build(t)
			boltUpdate(t, path, tt.damage)
			f, err := Open(path, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Check(); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Check: got %v, want ErrCorrupt", err)
			}
		})
	}
	for _, name := range [][]byte{bucketSeen0, bucketSeenRuns} {
		t.Run(fmt.Sprintf("bucket %s lost", name), func(t *testing.T) {
			path := build(t)
			boltUpdate(t, path, func(tx *bolt.Tx) error { return tx.DeleteBucket(name) })
			for _, ro := range []bool{true, false} {
				if _, err := Open(path, Options{ReadOnly: ro}); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Open (read-only %v): got %v, want ErrCorrupt", ro, err)
				}
			}
		})
	}
	t.Run("directory", func(t *testing.T) {
		path := build(t)
		boltUpdate(t, path, func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySeenSet, []byte{seenStateVersion, 0}) })
		if _, err := Open(path, Options{}); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Open: got %v, want ErrCorrupt", err)
		}
	})
	// A lookup that meets a damaged block fails the commit, with ErrCorrupt.
	t.Run("lookup", func(t *testing.T) {
		path := build(t)
		boltUpdate(t, path, func(tx *bolt.Tx) error {
			c := tx.Bucket(bucketSeenRuns).Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if err := tx.Bucket(bucketSeenRuns).Put(bytes.Clone(k), append(bytes.Clone(v), v[:seenKeyLen]...)); err != nil {
					return err
				}
			}
			return nil
		})
		f, err := Open(path, Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Add(context.Background(), Entry{URL: "http://h1.test/new"}); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Add: got %v, want ErrCorrupt", err)
		}
	})
}

// TestSeenStreams puts, in one commit, URLs added one by one and two sorted streams
// that interleave (a large Add and a fold, say): the URLs added one by one go to
// level 0, each stream's to runs, a new one whenever the other stream wrote in
// between; every URL is seen and Check passes.
func TestSeenStreams(t *testing.T) {
	smallSeenSet(t)
	defer func(c int) { foldCheck = c }(foldCheck)
	foldCheck = 5
	f, _ := openTest(t, Options{})
	var urls []string
	entries := func(prefix string, n int) []Entry {
		var es []Entry
		for i := range n {
			u := fmt.Sprintf("http://h%d.test/%s/%d", i%3, prefix, i)
			es = append(es, Entry{URL: u})
			urls = append(urls, u)
		}
		return es
	}
	single := f.prepare(entries("one", 7))
	a, b := f.prepare(entries("a", 60)), f.prepare(entries("b", 40))
	sortBySeen(a)
	sortBySeen(b)
	err := f.do(context.Background(), &op{apply: func(bt *batch) error {
		for i := range single {
			if ok, err := bt.add(&single[i]); err != nil || !ok {
				return fmt.Errorf("add %s: %v, %v", single[i].e.URL, ok, err)
			}
		}
		pos, _, err := bt.addSlice(a, 0, 1) // one group of a, then b whole, then the rest of a
		if err != nil || pos == len(a) {
			return fmt.Errorf("a: %d, %v", pos, err)
		}
		if _, _, err := bt.addSlice(b, 0, 1<<40); err != nil {
			return err
		}
		_, _, err = bt.addSlice(a, pos, 1<<40)
		return err
	}})
	if err != nil {
		t.Fatal(err)
	}
	// b's keys follow a's first group or not; a's second part starts a run anew.
	var inRuns int64
	for _, r := range f.seen.runs {
		inRuns += r.n
	}
	if f.seen.l0 != int64(len(single)) || f.seen.open.id != 0 || len(f.seen.runs) < 2 || inRuns != int64(len(a)+len(b)) {
		t.Fatalf("directory %+v: want the %d URLs added one by one in level 0, the %d of the streams in 2 or 3 runs",
			f.seen, len(single), len(a)+len(b))
	}
	for i, ok := range seenURLs(t, f, urls) {
		if !ok {
			t.Fatalf("%s not seen", urls[i])
		}
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestModelSeenRuns runs the model test with a seen set of tiny levels, runs,
// blocks and merge steps: every fold and large Add writes a run, level 0 is written
// out every 8 URLs, and merges span many commits, through Requeue and reopenings.
func TestModelSeenRuns(t *testing.T) {
	smallSeenSet(t)
	seenL0Max, seenMinRun = 8, 2
	optionSets := []Options{
		{},
		{MaxInFlightPerHost: 2, MaxAttempts: 2, LinkBatch: 5},
		{MaxDepth: 2, MaxQueuedPerHost: 4, MaxTotal: 40, LinkBatch: 3},
		{LinkBatch: 1000},
		{LogBatch: 5, LinkBatch: 4, MaxInFlightPerHost: 2},
	}
	for seed := range uint64(10) {
		opts := optionSets[seed%uint64(len(optionSets))]
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) { runModel(t, 100+seed, opts, 400) })
	}
}
