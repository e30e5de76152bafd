package frontier

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// logDB returns a bbolt file with an empty staged bucket.
func logDB(t *testing.T) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "log.db"), 0o600, &bolt.Options{NoSync: true, NoFreelistSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucketStaged); return err }); err != nil {
		t.Fatal(err)
	}
	return db
}

// logRecord is a log record as eachRecord yields it.
type logRecord struct {
	key uint64
	rec []byte
}

// putRecords writes recs to the log, those with old set under 8-byte keys, whole,
// as files written before parts hold them.
func putRecords(t *testing.T, db *bolt.DB, old bool, recs ...logRecord) {
	t.Helper()
	err := db.Update(func(tx *bolt.Tx) error {
		b := &batch{tx: tx, staged: tx.Bucket(bucketStaged)}
		for _, r := range recs {
			var err error
			if old {
				err = b.staged.Put(binary.BigEndian.AppendUint64(nil, r.key), r.rec)
			} else {
				err = b.putRecord(r.key, r.rec)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readRecords(db *bolt.DB) (recs []logRecord, err error) {
	err = db.View(func(tx *bolt.Tx) error {
		return eachRecord(tx.Bucket(bucketStaged), func(key uint64, rec []byte) error {
			recs = append(recs, logRecord{key, bytes.Clone(rec)})
			return nil
		})
	})
	return recs, err
}

func record(n int, seed byte) []byte {
	rec := make([]byte, n)
	for i := range rec {
		rec[i] = seed + byte(i*7)
	}
	return rec
}

// TestLogParts writes log records in parts, beside records written whole before
// parts, and reads them back whole, in order; deleteRecords takes out whole records.
func TestLogParts(t *testing.T) {
	size := partSize(4096)
	if size != 992 {
		t.Fatalf("partSize(4096) = %d, want 992: four parts and their keys fill a page", size)
	}
	db := logDB(t)
	size = partSize(db.Info().PageSize)
	old := []logRecord{{1, record(10, 1)}, {2, record(3*size+5, 2)}}
	var parted []logRecord
	for i, n := range []int{1, size - 1, size, size + 1, 2 * size, 7*size + 3, 100_000} {
		parted = append(parted, logRecord{uint64(3 + i), record(n, byte(i))})
	}
	putRecords(t, db, true, old...)
	putRecords(t, db, false, parted...)
	want := append(append([]logRecord(nil), old...), parted...)
	got, err := readRecords(db)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].key != want[i].key || !bytes.Equal(got[i].rec, want[i].rec) {
			t.Errorf("record %d: key %d, %d bytes; want key %d, %d bytes", i, got[i].key, len(got[i].rec), want[i].key, len(want[i].rec))
		}
	}
	// errEnough stops the walk.
	n := 0
	err = db.View(func(tx *bolt.Tx) error {
		return eachRecord(tx.Bucket(bucketStaged), func(key uint64, rec []byte) error {
			if n++; key == 4 {
				return errEnough
			}
			return nil
		})
	})
	if err != nil || n != 4 {
		t.Fatalf("walk stopped at record 4: %d records seen, %v", n, err)
	}
	// Through 8, one key per transaction (enough says so after each), as a fold
	// deletes its records: the records after 8 stay whole, those through 8 are
	// counted until their last part goes.
	calls := 0
	for done := false; !done; {
		if calls++; calls > 100 {
			t.Fatal("deleteRecords through 8 does not end")
		}
		var left int
		var after []logRecord
		err = db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketStaged)
			var err error
			if _, done, err = deleteRecords(b, 8, func() bool { return true }); err != nil {
				return err
			}
			if left, err = countRecords(b, 8); err != nil {
				return err
			}
			return eachRecordAfter(b, 8, func(key uint64, rec []byte) error {
				after = append(after, logRecord{key, bytes.Clone(rec)})
				return nil
			})
		})
		if err != nil {
			t.Fatalf("deleteRecords through 8, call %d: %v", calls, err)
		}
		if len(after) != len(want)-8 || after[0].key != 9 || !bytes.Equal(after[len(after)-1].rec, want[len(want)-1].rec) {
			t.Fatalf("call %d: %d records after 8, want %d from 9", calls, len(after), len(want)-8)
		}
		if done != (left == 0) {
			t.Fatalf("call %d: done %v with %d records left through 8", calls, done, left)
		}
	}
	// One key each: 8-byte records 1 and 2, one part each for 3 to 5, 2, 2 and 8.
	if calls != 17 {
		t.Fatalf("deleteRecords through 8 took %d calls, want 17, one per key", calls)
	}
	// Nothing is left to delete through 8; through 9, at once, 101 parts.
	err = db.Update(func(tx *bolt.Tx) error {
		if n, done, err := deleteRecords(tx.Bucket(bucketStaged), 8, nil); n != 0 || !done || err != nil {
			return fmt.Errorf("deleteRecords through 8 again: %d records, done %v, %v; want 0, true", n, done, err)
		}
		if n, done, err := deleteRecords(tx.Bucket(bucketStaged), 9, nil); n != 1 || !done || err != nil {
			return fmt.Errorf("deleteRecords through 9: %d records, done %v, %v; want 1, true", n, done, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err = readRecords(db); err != nil || len(got) != 0 {
		t.Fatalf("after deleteRecords through 9: %d records, %v; want none", len(got), err)
	}
}

// TestLogPartsCorrupt damages the parts of a record: every damage is ErrCorrupt,
// never a panic or a record put together wrong.
func TestLogPartsCorrupt(t *testing.T) {
	key := func(seq uint64, i uint32) []byte { return partKey(seq, i) }
	for _, tt := range []struct {
		name   string
		damage func(b *bolt.Bucket) error
	}{
		{"middle part lost", func(b *bolt.Bucket) error { return b.Delete(key(2, 1)) }},
		{"first part lost", func(b *bolt.Bucket) error { return b.Delete(key(2, 0)) }},
		{"last part lost", func(b *bolt.Bucket) error { return b.Delete(key(2, 2|partLast)) }},
		{"last part lost at the end", func(b *bolt.Bucket) error { return b.Delete(key(3, 1|partLast)) }},
		{"last part not marked", func(b *bolt.Bucket) error {
			v := bytes.Clone(b.Get(key(3, 1|partLast)))
			if err := b.Delete(key(3, 1|partLast)); err != nil {
				return err
			}
			return b.Put(key(3, 1), v)
		}},
		{"short key", func(b *bolt.Bucket) error { return b.Put([]byte{0, 0, 0, 2, 1}, []byte{1}) }},
		{"long key", func(b *bolt.Bucket) error { return b.Put(append(key(2, 1), 0), []byte{1}) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := logDB(t)
			size := partSize(db.Info().PageSize)
			putRecords(t, db, false, logRecord{1, record(10, 1)}, logRecord{2, record(2*size+1, 2)}, logRecord{3, record(size+1, 3)})
			if err := db.Update(func(tx *bolt.Tx) error { return tt.damage(tx.Bucket(bucketStaged)) }); err != nil {
				t.Fatal(err)
			}
			if _, err := readRecords(db); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("eachRecord: got %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestLogAppendCost appends records of 100 KB, one per transaction, as a commit of
// Dones does: each transaction allocates about its record's bytes, not the records
// before it again. Stored whole, each record lay in the log's last leaf with up to
// three before it (bbolt splits no leaf of four keys or fewer), and every commit
// rewrote them all.
func TestLogAppendCost(t *testing.T) {
	db := logDB(t)
	const size = 100_000
	for i := range 20 {
		tx, err := db.Begin(true)
		if err != nil {
			t.Fatal(err)
		}
		b := &batch{tx: tx, staged: tx.Bucket(bucketStaged)}
		if err := b.putRecord(uint64(i+1), record(size, byte(i))); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		s := tx.Stats()
		alloc := s.GetPageAlloc()
		if i >= 4 && alloc > size*5/4 {
			t.Errorf("record %d: the commit wrote %d bytes of pages for a record of %d", i+1, alloc, size)
		}
	}
}
