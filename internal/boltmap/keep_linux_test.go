//go:build linux

package boltmap

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// openBuckets returns a database of several top-level buckets: "deep" (small values,
// three levels and more), "wide" (1 KiB values), "over" (values of three pages, on
// overflow pages), "one" (a single key: a one-leaf tree) and "tiny" (inline, in the
// root bucket's leaf).
func openBuckets(t *testing.T) (*bolt.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "b.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	fill := func(name string, n, size int) {
		for from := 0; from < n; from += 5000 {
			err := db.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucketIfNotExists([]byte(name))
				if err != nil {
					return err
				}
				for i := from; i < min(from+5000, n); i++ {
					k := fmt.Appendf(nil, "%s-key-%09d", name, i)
					if err := b.Put(k, bytes.Repeat(k[len(k)-1:], size)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	fill("deep", 300_000, 8)
	fill("wide", 5_000, 1024)
	fill("over", 40, 3*db.Info().PageSize)
	fill("one", 1, 10)
	fill("tiny", 2, 1)
	return db, path
}

// pageTypes returns bbolt's own view of the pages of spans: each page's type, by id
// (the overflow pages of a page are its own).
func pageTypes(t *testing.T, tx *bolt.Tx, spans []span) map[uint64]string {
	t.Helper()
	types := make(map[uint64]string)
	for _, s := range spans {
		for id := s.first; id <= s.last; {
			info, err := tx.Page(int(id))
			if err != nil || info == nil {
				t.Fatalf("page %d: %v, %v", id, info, err)
			}
			types[id] = info.Type
			id += uint64(info.OverflowCount) + 1
		}
	}
	return types
}

// mapping returns the readable part of tx's mapping, as readable reads it.
func mapping(t *testing.T, tx *bolt.Tx, path string) []byte {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	addr := tx.DB().Info().Data
	return unsafeSlice(addr, uintptr(min(fi.Size(), tx.Size())))
}

// TestKeepSpans reads the pages a drop keeps and checks them against bbolt's view:
// the meta pages, the root bucket's, every page of the hot bucket, and the upper
// branch pages of the others; nothing else.
func TestKeepSpans(t *testing.T) {
	t.Parallel()
	db, path := openBuckets(t)
	tx, err := db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	stats := make(map[string]bolt.BucketStats)
	tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		stats[string(name)] = b.Stats()
		return nil
	})
	// Every tree is at most three levels deep (a root, the lowest branch pages,
	// the leaves): of its branch pages, a drop keeps the root, unless the bucket is
	// hot.
	if s := stats["deep"]; s.Depth != 3 || s.BranchPageN < 10 || stats["wide"].Depth != 3 || stats["over"].Depth != 2 ||
		stats["over"].LeafOverflowN == 0 || stats["tiny"].InlineBucketN != 1 {
		t.Fatalf("the file is not as the test needs it: deep %+v, wide %+v, over %+v, tiny %+v", s, stats["wide"], stats["over"], stats["tiny"])
	}
	for _, hot := range []string{"", "wide", "over"} {
		spans, err := keepSpans(tx, mapping(t, tx, path), 1<<40, [][]byte{[]byte(hot)})
		if err != nil {
			t.Fatalf("hot %q: %v", hot, err)
		}
		count := make(map[string]int)
		for id, typ := range pageTypes(t, tx, spans) {
			switch {
			case id < 2 && typ == "meta":
			case typ == "branch" || typ == "leaf":
				count[typ]++
			default:
				t.Errorf("hot %q: page %d kept, of type %q", hot, id, typ)
			}
		}
		// The root bucket here is one leaf; the hot bucket's pages; the roots of
		// the other buckets' trees.
		wantBranch, wantLeaf := 0, 1
		for name, s := range stats {
			switch {
			case name == hot:
				wantBranch += s.BranchPageN
				wantLeaf += s.LeafPageN
			case s.Depth > 1:
				wantBranch++
			}
		}
		if count["branch"] != wantBranch || count["leaf"] != wantLeaf {
			t.Errorf("hot %q: kept %d branch pages and %d leaves; want %d and %d", hot, count["branch"], count["leaf"], wantBranch, wantLeaf)
		}
	}
}

// TestKeepLimit: with a limit of a few pages, the meta pages and the root bucket's
// page come first, then the roots of the trees, up to the limit.
func TestKeepLimit(t *testing.T) {
	t.Parallel()
	db, path := openBuckets(t)
	tx, err := db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ps := int64(db.Info().PageSize)
	root := tx.Bucket([]byte("deep")).Root()
	for _, pages := range []int64{1, 3, 4, 10, 40} {
		spans, err := keepSpans(tx, mapping(t, tx, path), pages*ps, nil)
		if err != nil {
			t.Fatal(err)
		}
		kept := int64(0)
		for _, s := range spans {
			kept += int64(s.last-s.first+1) * ps
		}
		types := pageTypes(t, tx, spans)
		// Branch pages have no overflow here: the limit is overshot by at most the
		// meta pages' second page.
		if kept > (pages+1)*ps || kept < min(pages, 2)*ps || types[0] != "meta" || types[1] != "meta" {
			t.Errorf("limit of %d pages: kept %d bytes, %v; want at most %d, the meta pages first", pages, kept, spans, (pages+1)*ps)
		}
		if _, ok := types[uint64(root)]; ok != (pages >= 4) {
			t.Errorf("limit of %d pages: deep's root kept %v; want %v (it comes after the meta pages and the root bucket's leaf)", pages, ok, pages >= 4)
		}
	}
}

// present returns the pages of tx's mapping mapped in this process, from
// /proc/self/pagemap (the present bit needs no privilege).
func present(t *testing.T, tx *bolt.Tx) map[uint64]bool {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps := uint64(os.Getpagesize())
	if uint64(tx.DB().Info().PageSize) != ps {
		t.Skip("bbolt's page size is not the system's")
	}
	n := uint64(tx.Size()) / ps
	buf := make([]byte, n*8)
	if _, err := f.ReadAt(buf, int64(uint64(tx.DB().Info().Data)/ps*8)); err != nil {
		t.Fatal(err)
	}
	got := make(map[uint64]bool)
	for i := range n {
		if binary.NativeEndian.Uint64(buf[i*8:])>>63 == 1 {
			got[i] = true
		}
	}
	return got
}

// TestDropKeeps reads every page, drops with a hot bucket, and finds mapped exactly
// the pages kept: the others are dropped, the kept ones were not.
func TestDropKeeps(t *testing.T) {
	t.Parallel()
	db, path := openBuckets(t)
	err := db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return b.ForEach(func(k, v []byte) error { return nil }) })
	})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	hot := [][]byte{[]byte("wide")}
	spans, err := keepSpans(tx, mapping(t, tx, path), 1<<40, hot)
	if err != nil {
		t.Fatal(err)
	}
	before := present(t, tx)
	d, err := dropTx(tx, 1<<40, hot)
	if err != nil || d.full {
		t.Fatalf("dropTx: %+v, %v", d, err)
	}
	after := present(t, tx)
	kept := make(map[uint64]bool)
	for _, s := range spans {
		for id := s.first; id <= s.last; id++ {
			kept[id] = true
		}
	}
	if int64(len(kept))*int64(db.Info().PageSize) != d.kept {
		t.Errorf("dropTx kept %d bytes, keepSpans %d pages", d.kept, len(kept))
	}
	missing := 0
	for id := range kept {
		if before[id] && !after[id] {
			missing++
		}
	}
	extra := 0
	for id := range after {
		if !kept[id] {
			extra++
		}
	}
	if missing > 0 || extra > 0 || len(before) < 2*len(kept) {
		t.Errorf("%d pages mapped before the drop, %d kept, %d mapped after: %d kept pages dropped, %d others left; want 0, 0",
			len(before), len(kept), len(after), missing, extra)
	}
}

// TestDropDamagedBranch: a branch page that does not read as one (its flags
// damaged) makes the drop keep nothing, and drop everything: counted, not an error.
func TestDropDamagedBranch(t *testing.T) {
	db, path := openBuckets(t)
	var branch uint64
	err := db.View(func(tx *bolt.Tx) error {
		branch = uint64(tx.Bucket([]byte("deep")).Root())
		info, err := tx.Page(int(branch))
		if err == nil && info.Type != "branch" {
			err = fmt.Errorf("deep's root is a %s", info.Type)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ps := db.Info().PageSize
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0x40, 0}, int64(branch)*int64(ps)+8); err != nil { // flags: no page type
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	l := NewLimit(1<<20, []byte("wide"))
	defer l.Close()
	db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error { // 5 MiB, beyond the budget
		return tx.Bucket([]byte("wide")).ForEach(func(k, v []byte) error { return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(db); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if s := l.Stats(); s.Drops != 1 || s.FullDrops != 1 || s.Kept != 0 {
		t.Errorf("Stats %+v; want 1 drop, a full one, nothing kept", s)
	}
	if got := resident(t, db); got > 64<<10 {
		t.Errorf("after the full drop, %d bytes mapped; want at most 64 KiB", got)
	}
}

// TestSetKeepNone: a Limit set to keep nothing drops every page of the file, where
// the same drop with the default keep leaves the pages to keep mapped.
func TestSetKeepNone(t *testing.T) {
	t.Parallel()
	for _, keep := range []int64{-1, 0} { // -1: NewLimit's default, half the budget
		db, _ := openBuckets(t)
		l := NewLimit(1<<20, []byte("wide"))
		if keep >= 0 {
			l.SetKeep(keep)
		}
		err := db.View(func(tx *bolt.Tx) error { // beyond the budget
			return tx.Bucket([]byte("wide")).ForEach(func(k, v []byte) error { return nil })
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Check(db); err != nil {
			t.Fatalf("Check: %v", err)
		}
		s := l.Stats()
		l.Close()
		if s.Drops != 1 || s.FullDrops != 0 || (s.Kept == 0) != (keep == 0) {
			t.Errorf("keep %d: Stats %+v; want 1 drop, not full, pages kept unless keep is 0", keep, s)
		}
		if got := resident(t, db); keep == 0 && got > 64<<10 {
			t.Errorf("keep 0: after the drop, %d bytes mapped; want at most 64 KiB", got)
		}
	}
}
