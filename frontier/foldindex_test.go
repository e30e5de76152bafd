package frontier

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// foldLinks returns n links over a few hosts, with sequence numbers from seq, some
// of them the same URL twice.
func testLinks(n int, seq uint64) []prepared {
	var ps []prepared
	for i := range n {
		e := Entry{URL: fmt.Sprintf("http://h%d.test/%d/%s", i%7, i%(n/2+1), strings.Repeat("p", i%300)), Depth: i % 3, Priority: i % 5}
		h, _ := hostOf(e.URL)
		ps = append(ps, prepared{e: Entry{Depth: e.Depth, Priority: e.Priority}, host: h,
			fp: fingerprint(h, e.URL), val: encodeEntry(&e, 0), seq: seq + uint64(i)})
	}
	return ps
}

// readLog builds a fold's index over the whole log as startFold does, and reads its
// links back in the fold's order.
func readLog(tx *bolt.Tx) ([]prepared, error) {
	b := tx.Bucket(bucketStaged)
	recs, idx, err := indexLog(b, 0, func([]byte, int) bool { return true }, 0, 0, "")
	if err != nil {
		return nil, err
	}
	var ps []prepared
	for range (idx.len() + 99) / 100 { // in groups, as a fold reads them
		links, err := idx.take(100)
		if err != nil {
			return nil, err
		}
		if ps, err = readLinks(ps, b, recs, links); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

// TestFoldIndex: the fold's index, read back group by group, gives the links of the
// log, in records of every format (whole or in parts, staged links alone or in a Done
// log record, with or without sequence numbers), exactly in the order of a sort of
// the decoded links by seen key that keeps the order they were staged in.
func TestFoldIndex(t *testing.T) {
	db := logDB(t)
	var recs []logRecord
	// Whole, before parts: without sequence numbers, with them, a log record.
	var noSeq []byte
	for _, p := range testLinks(40, 0) {
		noSeq = binary.AppendUvarint(noSeq, uint64(len(p.host)))
		noSeq = append(append(noSeq, p.host...), p.fp[:]...)
		noSeq = binary.AppendVarint(binary.AppendVarint(noSeq, int64(p.e.Priority)), int64(p.e.Depth))
		noSeq = append(binary.AppendUvarint(noSeq, uint64(len(p.val))), p.val...)
	}
	hosts, ops, _ := testLog()
	recs = append(recs, logRecord{1, noSeq}, logRecord{2, stagedRecord(testLinks(30, 100)...)},
		logRecord{3, encodeLog(hosts, ops, testLinks(50, 200))})
	putRecords(t, db, true, recs...)
	// In parts: large records, whose links straddle parts, and a log record without links.
	parted := []logRecord{{4, stagedRecord(testLinks(300, 1000)...)}, {5, encodeLog(hosts, ops, testLinks(200, 2000))},
		{6, encodeLog(hosts, ops, nil)}, {7, stagedRecord(testLinks(3, 3000)...)}}
	putRecords(t, db, false, parted...)
	recs = append(recs, parted...)
	var want []prepared
	for _, r := range recs {
		var err error
		if want, err = decodeRecord(want, r.rec); err != nil {
			t.Fatal(err)
		}
	}
	sortBySeen(want)
	var got []prepared
	err := db.View(func(tx *bolt.Tx) (err error) {
		got, err = readLog(tx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) != 623 {
		t.Fatalf("%d links, want %d (623)", len(got), len(want))
	}
	for i := range want {
		if !samePrepared(got[i], want[i]) {
			t.Fatalf("link %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if unsafeSize := binary.Size(foldLink{}); unsafeSize != foldLinkSize {
		t.Errorf("a fold link is %d bytes, want %d", unsafeSize, foldLinkSize)
	}
}

// TestFoldIndexCorrupt damages a record after it was indexed, as a file changed
// under a fold would be: reading its links is ErrCorrupt, never a panic or a
// wrong link.
func TestFoldIndexCorrupt(t *testing.T) {
	for _, tt := range []struct {
		name   string
		damage func(b *bolt.Bucket) error
	}{
		{"part lost", func(b *bolt.Bucket) error { return b.Delete(partKey(2, 1)) }},
		{"part cut", func(b *bolt.Bucket) error { return b.Put(partKey(2, 1), []byte{1, 2, 3}) }},
		{"part changed", func(b *bolt.Bucket) error { return b.Put(partKey(2, 0), make([]byte, len(b.Get(partKey(2, 0))))) }},
		{"whole record cut", func(b *bolt.Bucket) error { return b.Put(binary.BigEndian.AppendUint64(nil, 1), []byte{stagedVersion}) }},
		{"whole record lost", func(b *bolt.Bucket) error { return b.Delete(binary.BigEndian.AppendUint64(nil, 1)) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := logDB(t)
			putRecords(t, db, true, logRecord{1, stagedRecord(testLinks(20, 1)...)})
			putRecords(t, db, false, logRecord{2, stagedRecord(testLinks(100, 100)...)})
			err := db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketStaged)
				recs, idx, err := indexLog(b, 0, func([]byte, int) bool { return true }, 0, 0, "")
				if err != nil {
					return err
				}
				if err := tt.damage(b); err != nil {
					return err
				}
				links, err := idx.take(idx.len())
				if err != nil {
					return err
				}
				_, err = readLinks(nil, b, recs, links)
				return err
			})
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("readLinks of a damaged record: got %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestFoldLinks: a fold takes in up to the larger of LinkBatch and Options.FoldLinks
// links, in whole records, and a Flush goes on fold after fold until the log is
// empty. Here FoldLinks is the larger.
func TestFoldLinks(t *testing.T) {
	ctx := context.Background()
	f, _ := openTest(t, Options{LinkBatch: 1000, FoldLinks: 4})
	stageNine(t, f) // three records of three links
	f.linkBatch = 2 // the committer reads it after the op below is sent
	if err := f.foldOnce(ctx); err != nil {
		t.Fatal(err)
	}
	// The fold took the records up to the one that reached 4 links: two.
	if f.fold != nil {
		t.Fatalf("fold of %d links still under way after one commit", f.fold.idx.len())
	}
	if s := f.Stats(); s.Staged != 3 {
		t.Fatalf("after one fold: Staged %d, want 3 (FoldLinks 4: two records of three)", s.Staged)
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Staged != 0 || s.Queued != 9 || s.Added != 12 {
		t.Fatalf("after Flush: %+v", s)
	}
	if !slices.Equal(leaseN(t, f, 1), []string{"http://d.test/a"}) {
		t.Fatal("first lease is not http://d.test/a: a new host first, its links in the order staged")
	}
}

// TestFoldSpan: with LinkBatch above FoldLinks, one fold takes in LinkBatch links
// although it sorts only FoldLinks of them in memory at once: the others go to
// temporary files, which it merges, and nothing is left of them in the database's
// directory. The URLs come out as from a fold sorted in memory.
func TestFoldSpan(t *testing.T) {
	ctx := context.Background()
	var orders [2][]string
	for i, fl := range []int{0, 4} {
		f, path := openTest(t, Options{LinkBatch: 1000, FoldLinks: fl})
		stageNine(t, f) // three records of three links
		if err := f.foldOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if s := f.Stats(); f.fold != nil || s.Staged != 0 || s.Queued != 9 {
			t.Fatalf("FoldLinks %d: after one fold %+v, want all nine queued", fl, s)
		}
		orders[i] = leaseN(t, f, 4) // one per host
		files, err := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 {
			t.Errorf("FoldLinks %d: files beside the database after the fold: %q", fl, files)
		}
	}
	if !slices.Equal(orders[0], orders[1]) {
		t.Errorf("leases after a fold sorted in chunks:\n\t%q\nafter one sorted in memory:\n\t%q", orders[1], orders[0])
	}
}

func leaseN(t *testing.T, f *Frontier, n int) []string {
	t.Helper()
	var urls []string
	for range n {
		urls = append(urls, lease(t, f).URL)
	}
	return urls
}

// TestFoldLogsHosts: the commits of a fold that queue its links log the records of
// the known hosts they touch rather than rewrite the hosts tree each time, and the
// fold's last steps write them; a fold cut in between (Close, as a crash) finds them
// in the log at Open.
func TestFoldLogsHosts(t *testing.T) {
	ctx := context.Background()
	f, path := stagedNine(t)
	stored := func(f *Frontier, name string) hostRecord {
		var rec hostRecord
		err := f.view(func(tx *bolt.Tx) (err error) {
			rec, err = decodeHost(tx.Bucket(bucketHosts).Get([]byte(name)))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	var before []int64
	for _, name := range []string{"http://a.test", "http://b.test", "http://c.test"} {
		before = append(before, stored(f, name).queued)
	}
	for range 2 {
		if err := f.foldOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if f.fold == nil || f.fold.phase != phaseLinks {
		t.Fatal("the fold is not queueing links any more after two commits")
	}
	// http://a.test/x and /y sort first or not, but some known host got links.
	var got, inBucket []int64
	for _, name := range []string{"http://a.test", "http://b.test", "http://c.test"} {
		got = append(got, f.hosts[name].rec.queued)
		inBucket = append(inBucket, stored(f, name).queued)
	}
	if slices.Equal(got, inBucket) {
		t.Fatalf("queued %v in memory and in the hosts bucket: the fold's links went nowhere or their hosts were written", got)
	}
	if !slices.Equal(inBucket, before) {
		t.Fatalf("hosts bucket queued counts %v, before the fold %v: written by the fold's first commits", inBucket, before)
	}
	f = reopen(t, f, path, Options{LinkBatch: 1000})
	var replayed []int64
	for _, name := range []string{"http://a.test", "http://b.test", "http://c.test"} {
		replayed = append(replayed, f.hosts[name].rec.queued)
	}
	if !slices.Equal(replayed, got) {
		t.Fatalf("queued after Open %v, want %v: the logged host records", replayed, got)
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"http://a.test", "http://b.test", "http://c.test"} {
		if s := stored(f, name); s.queued != 2 {
			t.Errorf("%s: %d queued in the hosts bucket after Flush, want 2", name, s.queued)
		}
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestFoldHostOps: the commits of a fold that queue a host's links apply the host's
// pending queue changes too (here the seeds, finished in the Done log), rather than
// leave them to the pass over the changes in key order, which rewrote the host's
// queue pages a second time.
func TestFoldHostOps(t *testing.T) {
	ctx := context.Background()
	f, path := stagedNine(t)
	seeds := []string{"http://a.test/", "http://b.test/", "http://c.test/"}
	if got := queueURLs(t, f); !slices.Equal(got, seeds) {
		t.Fatalf("queue bucket before the fold: %v, want the seeds, finished in the log only", got)
	}
	for range 2 {
		if err := f.foldOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if f.fold == nil || f.fold.phase != phaseLinks {
		t.Fatal("the fold is not queueing links any more after two commits")
	}
	left := 0
	for _, u := range queueURLs(t, f) {
		if slices.Contains(seeds, u) {
			left++
		}
	}
	if left == len(seeds) {
		t.Fatal("every finished seed still in the queue bucket after the fold queued links of their hosts")
	}
	// Cut here, as a crash would: the next Open replays the changes applied, and the
	// fold applies them again.
	f = reopen(t, f, path, Options{LinkBatch: 1000})
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, u := range queueURLs(t, f) {
		if slices.Contains(seeds, u) {
			t.Errorf("finished seed %s queued after Flush", u)
		}
	}
	if s := f.Stats(); s.Queued != 9 || s.Staged != 0 || f.pendN != 0 {
		t.Fatalf("after Flush: %+v, %d changes pending", s, f.pendN)
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestFoldIndexChunks: an index sorted in chunks of sortAt links, written to
// temporary files and merged, reads back exactly as the index sorted in memory:
// every link, in the same order (seen key, then record, then offset, so equal URLs
// staged in different records keep their order), whatever the chunk size; and the
// files are gone from the directory while the index is in use.
func TestFoldIndexChunks(t *testing.T) {
	db := logDB(t)
	var recs []logRecord
	for r := range 30 {
		// testLinks repeats URLs within a record and across records.
		recs = append(recs, logRecord{uint64(r + 1), stagedRecord(testLinks(5+r%11, uint64(100*r+1))...)})
	}
	putRecords(t, db, true, recs...)
	all := func(sortAt int, dir string) []foldLink {
		var out []foldLink
		err := db.View(func(tx *bolt.Tx) error {
			_, idx, err := indexLog(tx.Bucket(bucketStaged), 0, func([]byte, int) bool { return true }, sortAt, 0, dir)
			if err != nil {
				return err
			}
			defer idx.close()
			if dir != "" {
				if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
					t.Errorf("sortAt %d: files left in the directory: %q", sortAt, files)
				}
			}
			for len(out) < idx.len() {
				ls, err := idx.take(13)
				if err != nil {
					return err
				}
				out = append(out, ls...)
			}
			if ls, err := idx.take(13); err != nil || len(ls) != 0 {
				t.Errorf("sortAt %d: take after the end: %d links, %v", sortAt, len(ls), err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := all(0, "")
	if len(want) == 0 || !slices.IsSortedFunc(want, cmpFold) {
		t.Fatalf("index sorted in memory: %d links, sorted %v", len(want), slices.IsSortedFunc(want, cmpFold))
	}
	for _, sortAt := range []int{1, 7, 50, 1000} {
		if got := all(sortAt, t.TempDir()); !slices.Equal(got, want) {
			t.Errorf("sortAt %d: %d links, differ from the %d sorted in memory", sortAt, len(got), len(want))
		}
	}
}

// TestFoldFilesLeft: the files of a fold's index that a process left behind (where
// they cannot be unlinked while open, and the process ended before closing them) are
// removed by the next writable Open, and by no read-only one.
func TestFoldFilesLeft(t *testing.T) {
	t.Parallel()
	f, path := openTest(t, Options{})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	left := filepath.Join(dir, foldFilePrefix+"123456")
	other := filepath.Join(dir, "frontier-fold-notes.txt")
	for _, name := range []string{left, other} {
		if err := os.WriteFile(name, make([]byte, foldLinkSize*4), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
	if _, err := os.Stat(left); err != nil {
		t.Fatalf("after a read-only Open: %v; want the file left alone", err)
	}
	f, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := os.Stat(left); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Open, %s: %v; want it removed", left, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("after Open, %s: %v; want it kept", other, err)
	}
}

// TestFoldIndexInMemory: a fold whose links reach sortAt only with its last record
// (one of LinkBatch links where LinkBatch is FoldLinks, the defaults) sorts them in
// memory and writes no file; one more record, and the first chunk goes to a file.
func TestFoldIndexInMemory(t *testing.T) {
	db := logDB(t)
	var recs []logRecord
	for r := range 4 {
		recs = append(recs, logRecord{uint64(r + 1), stagedRecord(testLinks(10, uint64(100*r+1))...)})
	}
	putRecords(t, db, true, recs...)
	for _, tc := range []struct {
		fold  int // links the fold takes in: whole records while fewer
		files int
	}{{30, 0}, {31, 1}} {
		err := db.View(func(tx *bolt.Tx) error {
			_, idx, err := indexLog(tx.Bucket(bucketStaged), 0, func(_ []byte, links int) bool { return links < tc.fold }, 30, 0, t.TempDir())
			if err != nil {
				return err
			}
			defer idx.close()
			files := 0
			for _, s := range idx.srcs {
				if s.file != nil {
					files++
				}
			}
			if want := 10 * ((tc.fold + 9) / 10); idx.len() != want || files != tc.files {
				t.Errorf("a fold of up to %d links, sorting 30 at a time: %d links, %d files; want %d, %d", tc.fold, idx.len(), files, want, tc.files)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestFoldDefaultSpan: with Options.FoldLinks at its default, a fold takes in
// defaultFoldSpan links (the span that starts a fold of Stage too) and sorts
// defaultFoldLinks of them at a time in memory, the rest in chunks on disk: the
// nine links of three staged records go in one fold, whose index holds at most
// two records' links in memory.
func TestFoldDefaultSpan(t *testing.T) {
	ctx := context.Background()
	fl, span, n, c := defaultFoldLinks, defaultFoldSpan, foldNodes, foldCheck
	t.Cleanup(func() { defaultFoldLinks, defaultFoldSpan, foldNodes, foldCheck = fl, span, n, c })
	defaultFoldLinks, defaultFoldSpan, foldNodes, foldCheck = 4, 1000, 1, 2
	f, path := openTest(t, Options{})
	for r := range 3 {
		var es []Entry
		for i := range 3 {
			es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/%d", i, r)})
		}
		if _, err := f.Stage(ctx, es...); err != nil {
			t.Fatal(err)
		}
	}
	if s := f.Stats(); s.Staged != 9 || f.fold != nil {
		t.Fatalf("after staging nine links in three records: %+v, fold started %v; want nine staged and no fold before the span", s, f.fold != nil)
	}
	if err := f.foldOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if f.fold == nil {
		t.Fatal("one step of the fold ended it; want it in progress")
	}
	idx := f.fold.idx
	if idx.len() != 9 || len(idx.srcs) != 2 || idx.srcs[0].file == nil || len(idx.srcs[1].mem) != 3 {
		t.Errorf("fold index: %d links in %d chunks; want the nine links in two: six on disk, three in memory", idx.len(), len(idx.srcs))
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Staged != 0 || s.Queued != 9 {
		t.Errorf("after Flush: %+v, want the nine links queued", s)
	}
	if files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(files) != 1 {
		t.Errorf("files beside the database after the fold: %q", files)
	}
}
