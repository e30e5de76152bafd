package frontier

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// defaultResidentMap is Options.ResidentMap's default, in bytes.
const defaultResidentMap = 64 << 20

// errDropWritable is returned by dropTx for a write transaction.
var errDropWritable = errors.New("frontier: mapped pages dropped in a write transaction")

// mapCheckEvery is the least time between two checks of the resident set after
// commits: reading it costs a few microseconds, and the commits of 10 ms read few
// pages.
const mapCheckEvery = 10 * time.Millisecond

// mapLimit keeps the pages of the database file mapped in the process near
// Options.ResidentMap.
//
// bbolt maps the whole file read-only and shared, and reads every page through that
// mapping: each page a lookup or a fold reads stays mapped, and counts in the
// process's resident set (RssFile), until the kernel reclaims it, which it does late
// since the page cache holds it anyway. At 10M URLs the file is several GiB, all of
// it read by folds. bbolt never writes through the mapping (it writes with pwrite),
// so the mapped pages are clean copies of the page cache: dropping them from the
// process (madvise MADV_DONTNEED) loses nothing, and the next read of a page maps it
// again from the page cache (a minor fault) with the same content.
//
// The check reads the process's file-backed resident size (/proc/self/statm) and
// drops the mapping's pages when that size has grown by more than the budget since
// the last drop. Other mapped files count too (the program's own text, other bbolt
// files): they can only make a drop come sooner. It is made at the end of Open and
// after commits, at most every mapCheckEvery, by the committer goroutine, and after
// Check.
type mapLimit struct {
	mu     sync.Mutex
	budget int64         // growth in bytes that starts a drop; <= 0: never drop
	every  time.Duration // least time between two checks
	last   time.Time     // of the last check
	base   int64         // the process's file-backed resident bytes after the last drop
	rss    *residentFile // nil where it cannot be read: never drop
	drops  atomic.Int64  // drops made
}

// newMapLimit returns the mapLimit of opts, having read the resident size before the
// file is opened.
func newMapLimit(opts Options) *mapLimit {
	m := &mapLimit{}
	m.budget = opts.ResidentMap
	if m.budget == 0 {
		m.budget = defaultResidentMap
	}
	m.every = mapCheckEvery
	if m.budget > 0 {
		m.rss = openResidentFile()
	}
	if n := m.rss.bytes(); n >= 0 {
		m.base = n
	}
	return m
}

// check drops db's mapped pages if the resident set has grown by more than the
// budget since the last drop. force skips the wait between two checks.
func (m *mapLimit) check(db *bolt.DB, force bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.budget <= 0 || m.rss == nil {
		return nil
	}
	now := time.Now()
	if !force && now.Sub(m.last) < m.every {
		return nil
	}
	m.last = now
	n := m.rss.bytes()
	if n < 0 {
		return nil
	}
	// Growth since the last drop. Where another mapping shrank meanwhile (another
	// Frontier's drop, in the same process), this file's own growth is seen less
	// that much; it is never more than the other's pages at this file's last drop
	// (the other cannot drop pages it did not have), so this file's pages stay
	// below the budget plus those. Taking base down to n instead would forget the
	// pages this file had at that moment, each time, without bound.
	if n-m.base <= m.budget {
		return nil
	}
	if err := dropMapped(db); err != nil {
		// Not the data's fault, and nothing is lost: go on without dropping.
		m.budget = 0
		return err
	}
	m.drops.Add(1)
	if n = m.rss.bytes(); n >= 0 {
		m.base = n
	}
	return nil
}

// close releases what m holds.
func (m *mapLimit) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rss.close()
	m.rss = nil
}

// dropMapped drops every page of db's mapping from the process's page tables. It runs
// in a read transaction, which holds bbolt's mmap lock for reading: the file cannot
// be remapped meanwhile (a write transaction that grows the file past the mapping
// waits for that lock), so the address and length below are those of the mapping as
// it is for the whole call, and the pages dropped are the committed pages of the
// file, [Info().Data, Info().Data+tx.Size()): a read transaction's size is never
// beyond the mapping, which bbolt grows before a write transaction allocates a page
// past it, and never shrinks. Memory outside that range is never touched: MADV_DONTNEED
// over anonymous memory (the Go heap) would zero it.
func dropMapped(db *bolt.DB) error {
	tx, err := db.Begin(false)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return dropTx(tx)
}
