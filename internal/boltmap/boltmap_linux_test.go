//go:build linux

package boltmap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

var bucket = []byte("b")

// value is key i's value, 1 KiB.
func value(i int) []byte { return bytes.Repeat(binary.BigEndian.AppendUint64(nil, uint64(i)), 128) }

// openFilled returns a database of n keys of 1 KiB each, over n/4 pages and more.
func openFilled(t *testing.T, n int) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "b.db"), 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for from := 0; from < n; from += 1000 {
		err := db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists(bucket)
			if err != nil {
				return err
			}
			for i := from; i < min(from+1000, n); i++ {
				if err := b.Put(binary.BigEndian.AppendUint64(nil, uint64(i)), value(i)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// readAll reads every key and checks its value.
func readAll(t *testing.T, db *bolt.DB, n int) {
	t.Helper()
	err := db.View(func(tx *bolt.Tx) error {
		got := 0
		err := tx.Bucket(bucket).ForEach(func(k, v []byte) error {
			if i := int(binary.BigEndian.Uint64(k)); i != got || !bytes.Equal(v, value(i)) {
				t.Fatalf("key %d: got key %x, value %x...", got, k, v[:8])
			}
			got++
			return nil
		})
		if got != n {
			t.Fatalf("%d keys, want %d", got, n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func resident(t *testing.T, db *bolt.DB) int64 {
	t.Helper()
	n, err := Resident(db)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDrop(t *testing.T) {
	t.Parallel()
	const n = 10_000 // 10 MiB of values
	db := openFilled(t, n)
	readAll(t, db, n)
	if got := resident(t, db); got < 8<<20 {
		t.Fatalf("after reading every key, %d bytes mapped; want at least 8 MiB", got)
	}
	if err := Drop(db); err != nil {
		t.Fatalf("Drop: %v", err)
	}
	if got := resident(t, db); got > 64<<10 {
		t.Errorf("after Drop, %d bytes mapped; want at most 64 KiB", got)
	}
	readAll(t, db, n)
}

func TestDropWritable(t *testing.T) {
	t.Parallel()
	db := openFilled(t, 1)
	if err := db.Update(DropTx); !errors.Is(err, ErrWritable) {
		t.Fatalf("DropTx(write transaction) = %v, want %v", err, ErrWritable)
	}
}

// TestLimit reads the whole file twice, each time with a Check after, with budgets
// that do and do not drop. It does not run in parallel with other tests: a Limit watches the
// whole process.
func TestLimit(t *testing.T) {
	const n = 10_000
	for _, tc := range []struct {
		budget int64
		drops  int64
	}{{-1, 0}, {1 << 30, 0}, {1 << 20, 2}} {
		l := NewLimit(tc.budget)
		db := openFilled(t, n)
		for range 2 {
			readAll(t, db, n)
			if err := l.Check(db); err != nil {
				t.Fatal(err)
			}
			if tc.drops > 0 {
				if got := resident(t, db); got > 64<<10 {
					t.Errorf("budget %d: after the Check, %d bytes mapped; want at most 64 KiB", tc.budget, got)
				}
			}
		}
		if got := l.Drops(); got != tc.drops {
			t.Errorf("budget %d: %d drops, want %d", tc.budget, got, tc.drops)
		}
		l.Close()
		l.Close()
		if err := l.Check(db); err != nil || l.Drops() != tc.drops {
			t.Errorf("budget %d: Check after Close = %v, %d drops; want nil, %d", tc.budget, err, l.Drops(), tc.drops)
		}
	}
}

// TestDropConcurrent drops the pages over and over while writers grow the file and
// readers check every key: under -race, and with the file remapped as it grows.
func TestDropConcurrent(t *testing.T) {
	t.Parallel()
	db := openFilled(t, 1_000)
	stop := make(chan struct{})
	var bg sync.WaitGroup
	bg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := Drop(db); err != nil {
				t.Errorf("Drop: %v", err)
				return
			}
		}
	})
	var wg sync.WaitGroup
	wg.Go(func() {
		for from := 1_000; from < 20_000; from += 500 {
			err := db.Update(func(tx *bolt.Tx) error {
				for i := from; i < from+500; i++ {
					if err := tx.Bucket(bucket).Put(binary.BigEndian.AppendUint64(nil, uint64(i)), value(i)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 2 {
		wg.Go(func() {
			for range 20 {
				err := db.View(func(tx *bolt.Tx) error {
					return tx.Bucket(bucket).ForEach(func(k, v []byte) error {
						if i := int(binary.BigEndian.Uint64(k)); !bytes.Equal(v, value(i)) {
							t.Errorf("key %d: value %x...", i, v[:8])
						}
						return nil
					})
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	bg.Wait()
	readAll(t, db, 20_000)
}

// TestWatch: the watcher checks at each tick, beside a read transaction that goes on
// reading (as a long write transaction would), and Close stops it.
func TestWatch(t *testing.T) {
	const n = 10_000
	db := openFilled(t, n)
	l := NewLimit(1 << 20)
	ticks := make(chan time.Time) // unbuffered: a second tick is taken once the first is checked
	l.Watch(db, ticks)
	err := db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucket).Cursor()
		i := 0
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if !bytes.Equal(v, value(i)) {
				t.Fatalf("key %d: value %x...", i, v[:8])
			}
			if i++; i == n/2 {
				ticks <- time.Time{}
				ticks <- time.Time{}
				if got := l.Drops(); got != 1 {
					t.Fatalf("half way: %d drops, want 1", got)
				}
				if got := resident(t, db); got > 64<<10 {
					t.Errorf("half way, after the drop: %d bytes mapped; want at most 64 KiB", got)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	select {
	case ticks <- time.Time{}:
		t.Fatal("the watcher took a tick after Close")
	default:
	}
	readAll(t, db, n)
}

// TestLimitBaseAfterDrop maps the whole file again right after a drop, before the
// Limit reads what the process has mapped after it (as the committer and the readers
// do while a drop runs): those pages count toward the next drop, which takes them
// out, rather than raise the base the budget is counted from.
func TestLimitBaseAfterDrop(t *testing.T) {
	const n = 20_000 // 20 MiB of values
	db := openFilled(t, n)
	l := NewLimit(4 << 20)
	defer l.Close()
	readAll(t, db, n)
	testHookDropped = func() { readAll(t, db, n) }
	err := l.Check(db)
	testHookDropped = nil
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(db); err != nil {
		t.Fatal(err)
	}
	if got := l.Drops(); got != 2 {
		t.Errorf("%d drops, want 2: the pages mapped during the first did not count toward the second", got)
	}
	if got := resident(t, db); got > 64<<10 {
		t.Errorf("after the second Check, %d bytes mapped; want at most 64 KiB", got)
	}
}

// TestLimitSetBudget: a budget set later decides the next Check; a Limit that never
// drops stays so.
func TestLimitSetBudget(t *testing.T) {
	const n = 10_000
	db := openFilled(t, n)
	l := NewLimit(1 << 30)
	defer l.Close()
	readAll(t, db, n)
	if err := l.Check(db); err != nil || l.Drops() != 0 {
		t.Fatalf("budget 1 GiB: Check = %v, %d drops; want none", err, l.Drops())
	}
	if old := l.SetBudget(1 << 20); old != 1<<30 {
		t.Errorf("SetBudget(1 MiB) = %d, want the budget before, 1 GiB", old)
	}
	readAll(t, db, n)
	if err := l.Check(db); err != nil || l.Drops() != 1 {
		t.Errorf("budget 1 MiB: Check = %v, %d drops; want one", err, l.Drops())
	}
	if old := l.SetBudget(-1); old != 1<<20 {
		t.Errorf("SetBudget(-1) = %d, want the budget in force, 1 MiB", old)
	}
	if old := l.SetBudget(0); old != 1<<20 || l.SetBudget(-1) != DefaultBudget {
		t.Errorf("SetBudget(0) = %d then a budget of %d; want 1 MiB then DefaultBudget", old, l.SetBudget(-1))
	}
	never := NewLimit(-1)
	defer never.Close()
	if old := never.SetBudget(1 << 20); old >= 0 {
		t.Errorf("SetBudget of a Limit that never drops = %d, want a negative budget", old)
	}
	readAll(t, db, n)
	if err := never.Check(db); err != nil || never.Drops() != 0 {
		t.Errorf("a Limit that never drops, after SetBudget: Check = %v, %d drops; want none", err, never.Drops())
	}
}
