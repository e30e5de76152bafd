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
// A drop keeps mapped the pages that would be read again right after it (see
// DropTx): up to half the budget, the pages of the hot buckets given to NewLimit
// first, then the upper branch pages of every bucket. Those stay mapped, and count
// in the growth since the drop, as if they had been mapped again: the budget bounds
// the pages kept and the pages mapped since together.
//
// A Limit is safe for simultaneous use by multiple goroutines.
type Limit struct {
	mu       sync.Mutex
	budget   int64         // growth in bytes that starts a drop; <= 0: never drop
	base     int64         // the process's file-backed resident bytes after the last drop
	rss      *residentFile // nil where it cannot be read, or after Close: never drop
	hot      [][]byte      // top-level buckets a drop keeps whole, while they fit (see DropTx)
	keep     int64         // bytes of pages a drop keeps mapped at most (SetKeep)
	drops    atomic.Int64
	full     atomic.Int64  // drops that kept nothing: the pages to keep did not read
	kept     atomic.Int64  // bytes the last drop kept mapped
	stop     chan struct{} // closed by Close to stop the watcher
	wg       sync.WaitGroup
	watching bool // a watcher was started
}

// NewLimit returns a Limit of budget bytes: 0 means DefaultBudget, a negative budget
// never drops. hot names the top-level buckets that a drop keeps mapped whole, leaves
// included, as far as they fit in half the budget: buckets read at random all over
// while the rest of the file is read once (a B+tree merged into another). It reads
// the resident size now: call it before opening the file, so that the first Check
// counts what opening it read.
func NewLimit(budget int64, hot ...[]byte) *Limit {
	l := &Limit{budget: budget, hot: hot, stop: make(chan struct{})}
	if l.budget == 0 {
		l.budget = DefaultBudget
	}
	l.keep = l.budget / 2
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
	d, err := l.drop(db)
	if err != nil {
		l.budget = 0
		return err
	}
	l.drops.Add(1)
	if d.full {
		l.full.Add(1)
	}
	l.kept.Store(d.kept)
	// The pages kept count in the budget, as if they had been mapped since the
	// drop: the file's pages stay below the budget, plus what is mapped between two
	// checks, as if nothing were kept. (Some of them may not be resident, which
	// only makes the next drop come sooner.)
	if n = l.rss.bytes(); n >= 0 {
		l.base = n - d.kept
	}
	return nil
}

// SetKeep sets how many bytes of pages a drop keeps mapped at most (see DropTx):
// half the budget unless set; 0 keeps none, every drop dropping every page. The
// pages kept count in the budget, so the more a drop keeps, the sooner the next
// one comes: whether keeping pays depends on how much of what is kept is read again
// before then (BENCHMARKS.md, "the frontier and the crawl at the end of the
// session"). Call it before the first Check.
func (l *Limit) SetKeep(bytes int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keep = max(bytes, 0)
}

// drop drops db's pages but for up to l.keep bytes of pages kept (see DropTx).
func (l *Limit) drop(db *bolt.DB) (dropped, error) {
	tx, err := db.Begin(false)
	if err != nil {
		return dropped{}, err
	}
	defer tx.Rollback()
	return dropTx(tx, l.keep, l.hot)
}

// Drops returns the number of drops Check made.
func (l *Limit) Drops() int64 {
	if l == nil {
		return 0
	}
	return l.drops.Load()
}

// Stats is what a Limit's drops did.
type Stats struct {
	Drops int64 // drops made by Check
	// FullDrops counts the drops that kept no page mapped, because the file's
	// pages did not read as bbolt's layout says (see DropTx): a damaged file, or a
	// bbolt whose layout changed.
	FullDrops int64
	Kept      int64 // bytes of the file the last drop left mapped, resident or not
}

// Stats returns the counts of the Limit's drops; zero for a nil Limit.
func (l *Limit) Stats() Stats {
	if l == nil {
		return Stats{}
	}
	return Stats{Drops: l.drops.Load(), FullDrops: l.full.Load(), Kept: l.kept.Load()}
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

// DropTx drops the pages of the mapping of tx's database from the process (on Linux;
// elsewhere it does nothing but refuse a write transaction):
// [Info().Data, Info().Data+tx.Size()), the file's committed pages, but for the
// pages that are read again right after a drop (see keepSpans): the meta pages, the
// root bucket's pages and the upper branch pages of each top-level bucket, level by
// level from its root, up to DefaultBudget/2 bytes of them. (A Limit keeps up to half its
// budget, and the pages of the buckets it was given whole first.) The pages to keep
// are read from the mapping, in bbolt's page layout; where they do not read as that
// layout says, every page is dropped.
//
// tx must be a read transaction, and that is what makes the range safe: a read
// transaction holds bbolt's mmap lock for reading until it ends, and bbolt remaps the
// file (when a write transaction allocates past the mapping) only under that lock
// for writing, so the mapping stays where it is, as large as it is, for the whole
// call. A read transaction's size is never beyond the mapping (bbolt grows the
// mapping before a write transaction allocates a page past it, and never shrinks it)
// unless the file is damaged, and the range is cut to the mapping, as
// /proc/self/maps gives it, all the same.
// The mapping starts on a page boundary (mmap's result), and the kernel rounds the
// length up to a whole page, which the mapping, made of whole pages, covers. Memory
// outside the mapping is never touched: MADV_DONTNEED over anonymous memory (the Go
// heap) would zero it.
func DropTx(tx *bolt.Tx) error {
	_, err := dropTx(tx, DefaultBudget/2, nil)
	return err
}

// dropped is what a drop did.
type dropped struct {
	kept int64 // bytes of the file left mapped on purpose (they may not all be resident)
	full bool  // the pages to keep could not be read: every page was dropped
}

// Drop drops the pages of db's mapping from the process's page tables, in a read
// transaction of its own (see DropTx).
func Drop(db *bolt.DB) error {
	tx, err := db.Begin(false)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return DropTx(tx)
}
