package frontier

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// maxCheckErrors is how many of bbolt's page errors Check quotes.
const maxCheckErrors = 3

// errRollback ends a write transaction that must change nothing.
var errRollback = errors.New("frontier: rollback")

// errStale ends a check whose snapshot of memory is not of the transaction it reads.
var errStale = errors.New("frontier: stale snapshot")

// Check reads the whole database and returns an error wrapping ErrCorrupt at the first
// damage it finds, nil when there is none. It checks what Open does not, and what the
// crawl would otherwise meet only when it reaches the damaged part: every record of
// every bucket decodes (queue entries, leases, staged links, seen keys), every queue
// entry belongs to a known host, each host's count of queued URLs is the number of its
// entries, the staged links add up to their counter, and bbolt's own page check
// (Tx.Check: page types, references, key order, free pages) passes. It reads every page
// of the file, so it takes time in proportion to the file's size; crawl status runs it
// on a database opened with Options.ReadOnly. Check does not change the file; on a
// Frontier open for writing, it holds commits back while it checks the pages. On a
// Frontier stopped by a failed commit it returns that commit's error.
func (f *Frontier) Check() error {
	for {
		// A snapshot of the hosts, with their queue changes logged and not folded in,
		// checked against the transaction that snapshot is of: a commit may land
		// between the two, or be durable and not merged into memory yet.
		f.mu.Lock()
		closed, stopped, txid := f.closed, f.err, f.txid
		ids := make(map[uint64]*host, len(f.hosts))
		for _, h := range f.hosts {
			ids[h.rec.id] = &host{name: h.name, rec: h.rec, pend: new(slices.Clone(h.pending()))}
		}
		staged := f.counters[cStaged]
		f.mu.Unlock()
		if closed {
			return ErrClosed
		}
		// A Frontier stopped by a failed commit holds the state before that commit,
		// which may have reached the file all the same: no snapshot of memory will
		// ever be of the file's last transaction.
		if stopped != nil {
			return stopped
		}
		// The records first, in this goroutine, where a fault on a damaged page becomes
		// an error (view); then bbolt's page check, which runs in a goroutine of its own.
		err := f.view(func(tx *bolt.Tx) error {
			if tx.ID() != txid {
				return errStale
			}
			return checkRecords(tx, ids, staged)
		})
		if err == errStale {
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				err = fmt.Errorf("%w: %v", ErrCorrupt, err)
			}
			return err
		}
		break
	}
	// Both passes read every page of the file: drop them from the process after each
	// (see Options.ResidentMap).
	f.checkMapped()
	defer f.checkMapped()
	// bbolt's page check compares the pages a transaction reaches with the free list,
	// which only a write transaction sees as of its own snapshot (a commit during a
	// read-only check frees pages that the check still reaches): in a Frontier open
	// for writing it runs in a write transaction, which holds commits back meanwhile
	// and is rolled back.
	run := f.view
	if !f.opts.ReadOnly {
		run = func(fn func(*bolt.Tx) error) error {
			err := f.update(func(tx *bolt.Tx) error {
				if err := fn(tx); err != nil {
					return err
				}
				return errRollback
			})
			if err == errRollback {
				return nil
			}
			return err
		}
	}
	return run(func(tx *bolt.Tx) error {
		var msgs []string
		n := 0
		for err := range tx.Check() {
			if n < maxCheckErrors {
				msgs = append(msgs, err.Error())
			}
			n++
		}
		if n == 0 {
			return nil
		}
		if n > maxCheckErrors {
			msgs = append(msgs, fmt.Sprintf("and %d more", n-maxCheckErrors))
		}
		return fmt.Errorf("%w: %s", ErrCorrupt, strings.Join(msgs, "; "))
	})
}

// checkRecords decodes every record and checks the counts against ids, the hosts by
// id, and staged, the staged links counter.
func checkRecords(tx *bolt.Tx, ids map[uint64]*host, staged int64) error {
	queue, size := tx.Bucket(bucketQueue), keySize
	if queue == nil {
		queue, size = tx.Bucket(bucketQueue2), keySize2
	}
	if queue == nil {
		return fmt.Errorf("%w: no queue bucket", ErrCorrupt)
	}
	counted := make(map[uint64]int64, len(ids))
	err := queue.ForEach(func(k, v []byte) error {
		if len(k) != size || v == nil {
			return fmt.Errorf("%w: queue key %x", ErrCorrupt, k)
		}
		id := hostIDOf(k)
		if ids[id] == nil {
			return fmt.Errorf("%w: queue entry %x of no known host", ErrCorrupt, k)
		}
		if _, _, err := decodeEntry(v); err != nil {
			return fmt.Errorf("%w: queue entry %x of %s", ErrCorrupt, k, ids[id].name)
		}
		if p, ok := ids[id].pending().get(k); !ok || p.val != nil {
			counted[id]++ // not finished in the Done log
		}
		return nil
	})
	if err != nil {
		return err
	}
	// URLs given back for later in the Done log and not folded in yet.
	for id, h := range ids {
		for _, p := range h.pending() {
			if p.val != nil && queue.Get(p.key[:]) == nil {
				counted[id]++
			}
		}
	}
	for id, h := range ids {
		if counted[id] != h.rec.queued {
			return fmt.Errorf("%w: host %s counts %d queued URLs but has %d", ErrCorrupt, h.name, h.rec.queued, counted[id])
		}
	}
	if b := tx.Bucket(bucketLeases); b != nil {
		err := b.ForEach(func(k, v []byte) error {
			if len(k) != size || ids[hostIDOf(k)] == nil {
				return fmt.Errorf("%w: lease %x", ErrCorrupt, k)
			}
			r := reader{b: v}
			r.varint()
			r.uvarint()
			if r.err || len(r.b) != 0 {
				return fmt.Errorf("%w: lease %x", ErrCorrupt, k)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	// The records of a fold that is in, being deleted, hold no staged links any more
	// (and the first may have lost parts): only their keys are read.
	var folded uint64
	if v := tx.Bucket(bucketMeta).Get(keyFolded); v != nil {
		if len(v) != 8 {
			return fmt.Errorf("%w: folded mark %x", ErrCorrupt, v)
		}
		folded = binary.BigEndian.Uint64(v)
	}
	var links int64
	if b := tx.Bucket(bucketStaged); b != nil {
		if _, err := countRecords(b, folded); err != nil {
			return err
		}
		var buf []prepared
		err := eachRecordAfter(b, folded, func(key uint64, rec []byte) error {
			var err error
			if buf, err = decodeRecord(buf[:0], rec); err != nil {
				return fmt.Errorf("%w: staged record %d", ErrCorrupt, key)
			}
			links += int64(len(buf))
			return nil
		})
		if err != nil {
			return err
		}
	}
	// A fold under way has queued the first of its links, still in their records.
	if v := tx.Bucket(bucketMeta).Get(keyFold); v != nil {
		pos, n := binary.Uvarint(v[min(8, len(v)):])
		if len(v) < 8 || n <= 0 || 8+n != len(v) && 8+n+keySize != len(v) || binary.BigEndian.Uint64(v) <= folded {
			return fmt.Errorf("%w: fold record %x", ErrCorrupt, v)
		}
		links -= int64(pos)
	}
	if links != staged {
		return fmt.Errorf("%w: %d links staged, counter says %d", ErrCorrupt, links, staged)
	}
	if err := checkSeen(tx); err != nil {
		return err
	}
	// Robots entries are opaque here (the robots cache refetches one it cannot
	// decode), but reading them reads their pages.
	return tx.Bucket(bucketRobots).ForEach(func(k, v []byte) error { return nil })
}
