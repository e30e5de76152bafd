// Package boltmap keeps the pages of a bbolt file's mapping out of the process's
// resident set.
//
// bbolt maps the whole file read-only and shared, and reads every page through that
// mapping: each page a lookup reads stays mapped, and counts in the process's resident
// set (RssFile), until the kernel reclaims it, which it does only when memory runs
// short, since the page cache holds the page anyway. bbolt never writes through the
// mapping (it writes with pwrite), so the mapped pages are clean copies of the page
// cache: dropping them from the process (madvise MADV_DONTNEED) loses nothing, and the
// next read of a page maps it again from the page cache (a minor fault) with the same
// content. A [Limit] drops them once the process's file-backed resident size has grown
// by a budget.
//
// Dropping works on Linux; elsewhere it does nothing and the pages are left to the
// system.
package boltmap

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DefaultBudget is a Limit's budget when none is given, in bytes.
const DefaultBudget = 64 << 20

// DefaultInterval is how often a watching Limit checks: reading the resident size
// costs a few microseconds, and a fold maps at most a few MiB in 10 ms.
const DefaultInterval = 10 * time.Millisecond

// ErrWritable is returned by DropTx for a write transaction, which may remap the file.
var ErrWritable = errors.New("boltmap: write transaction")

// A Limit drops the pages of a bbolt mapping once the process's file-backed resident
// size (RssFile and RssShmem, from /proc/self/statm) has grown by more than its budget
// since its last drop. Other mapped files count in that growth too (the program's own
// text, other bbolt files): they only make a drop come sooner. Where another mapping
// shrinks meanwhile (another Limit's drop), this one's growth is seen less that much,
// never more than the other's pages at this Limit's last drop, so the pages of the
// file checked stay below the budget plus those.
//
// A read maps more than the page it reads: the kernel maps the pages around it that
// the page cache holds (64 KiB at a time, or a whole large folio), so one lookup in a
// B+tree maps about 128 KiB, and a transaction that reads a thousand random leaves
// maps 100 MiB. That is why a Limit watches from a goroutine of its own (Watch)
// rather than after transactions: a drop runs in a read transaction, which bbolt lets
// run beside a write transaction, so the pages a long write transaction maps are
// dropped while it runs.
//
// A Limit is safe for simultaneous use by multiple goroutines.
type Limit struct {
	mu       sync.Mutex
	budget   int64         // growth in bytes that starts a drop; <= 0: never drop
	base     int64         // the process's file-backed resident bytes after the last drop
	rss      *residentFile // nil where it cannot be read, or after Close: never drop
	drops    atomic.Int64
	stop     chan struct{} // closed by Close to stop the watcher
	wg       sync.WaitGroup
	watching bool // a watcher was started
}

// NewLimit returns a Limit of budget bytes: 0 means DefaultBudget, a negative budget
// never drops. It reads the resident size now: call it before opening the file, so
// that the first Check counts what opening it read.
func NewLimit(budget int64) *Limit {
	l := &Limit{budget: budget, stop: make(chan struct{})}
	if l.budget == 0 {
		l.budget = DefaultBudget
	}
	if l.budget > 0 {
		l.rss = openResidentFile()
	}
	l.base = max(l.rss.bytes(), 0)
	return l
}

// Watch starts a goroutine that checks db (see Check) at every tick until Close; nil
// ticks means every DefaultInterval. A Limit that never drops starts none. Call it
// once.
func (l *Limit) Watch(db *bolt.DB, ticks <-chan time.Time) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.budget <= 0 || l.rss == nil {
		return
	}
	var ticker *time.Ticker
	if ticks == nil {
		ticker = time.NewTicker(DefaultInterval)
		ticks = ticker.C
	}
	l.watching = true
	l.wg.Go(func() {
		if ticker != nil {
			defer ticker.Stop()
		}
		for {
			select {
			case <-l.stop:
				return
			case <-ticks:
				if l.Check(db) != nil {
					return // turned off
				}
			}
		}
	})
}

// Watching reports whether Watch started a watcher (until Close).
func (l *Limit) Watching() bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.watching && l.rss != nil
}

// SetBudget sets the growth in bytes that starts a drop from the next Check on, and
// returns the budget before; 0 means DefaultBudget, and a negative budget changes
// nothing. It only changes a Limit that
// drops: one that never drops (a negative budget, or a system where the resident
// size cannot be read), or that a failed drop turned off, is left as it is and
// SetBudget returns a negative budget.
func (l *Limit) SetBudget(budget int64) int64 {
	if l == nil {
		return -1
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.budget <= 0 || l.rss == nil {
		return -1
	}
	old := l.budget
	if budget == 0 {
		budget = DefaultBudget
	}
	if budget > 0 {
		l.budget = budget
	}
	return old
}

// Check drops db's mapped pages if the resident size has grown by more than the budget
// since the last drop. A failed drop (which loses nothing) turns the Limit off and is
// returned. A nil Limit never drops.
func (l *Limit) Check(db *bolt.DB) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.budget <= 0 || l.rss == nil {
		return nil
	}
	n := l.rss.bytes()
	if n < 0 || n-l.base <= l.budget {
		return nil
	}
	if err := Drop(db); err != nil {
		l.budget = 0
		return err
	}
	l.drops.Add(1)
	if testHookDropped != nil {
		testHookDropped()
	}
	// The size read now counts the pages other goroutines mapped again since the
	// drop, 20-50 MiB at times at 10M URLs on a loaded machine, and a base that
	// high let the file's pages reach the budget and that much more before the
	// next drop: the base rises by an eighth of the budget at most per drop, so
	// that a lasting growth of other mappings (the program's text, other files)
	// is followed within a few drops.
	if n = l.rss.bytes(); n >= 0 {
		l.base = min(n, l.base+l.budget/8)
	}
	return nil
}

// testHookDropped, if set, runs after each drop of Check, before it reads the new
// base.
var testHookDropped func()

// Drops returns the number of drops Check made.
func (l *Limit) Drops() int64 {
	if l == nil {
		return 0
	}
	return l.drops.Load()
}

// Close stops the watcher, waits for it, and releases what the Limit holds; later
// Checks do nothing. Call it before closing the database. Close is safe to call more
// than once, and on a nil Limit.
func (l *Limit) Close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.mu.Unlock()
	l.wg.Wait() // outside mu: the watcher's Check takes it
	l.mu.Lock()
	l.rss.close()
	l.rss = nil
	l.mu.Unlock()
}

// Drop drops every page of db's mapping from the process's page tables, in a read
// transaction of its own (see DropTx).
func Drop(db *bolt.DB) error {
	tx, err := db.Begin(false)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return DropTx(tx)
}
