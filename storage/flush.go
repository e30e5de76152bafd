package storage

import (
	"context"
	"sync"
)

// syncer is what a group commit makes durable: an *os.File in production.
type syncer interface{ Sync() error }

// syncPoint is what the leader of a group commit syncs: every write numbered up
// to seq went to f (or to a file synced before), which was size bytes long.
type syncPoint struct {
	seq  uint64
	f    syncer
	name string
	size int64
	// wetSize is the size of name's WET file, synced with it; 0: none.
	wetSize int64
}

// flusher implements group commit. Writers number their writes 1, 2, 3, ...
// and call wait with their number. One waiter at a time becomes the leader
// and syncs the file once for every write made so far; the others wait for
// that round and, if it did not cover them, the next. While one fsync runs the
// next batch gathers, so N concurrent writers pay far fewer than N fsyncs.
type flusher struct {
	mu     sync.Mutex
	synced uint64        // every write numbered up to synced is durable
	round  chan struct{} // closed when the running sync ends; nil: none runs
	err    error         // sticky: after a failed fsync nothing is durable again
	syncs  uint64        // fsyncs done by leaders
	waits  uint64        // calls to wait: the durability waits writers went through
}

// SyncStats counts a writer's group commits: how many fsync rounds its leaders ran
// and how many times a write waited for one. Waits divided by writes is the number
// of durability waits a write goes through.
type SyncStats struct {
	Syncs uint64 // fsync rounds run by group-commit leaders
	Waits uint64 // writes that waited for a round to make them durable
}

// wait returns once write seq is durable, or with the fsync error, or with
// ctx's error (the write may still become durable). prepare, called by a
// leader with no flusher lock held, tells what to sync; done is called after
// that sync succeeded.
func (fl *flusher) wait(ctx context.Context, seq uint64, prepare func() syncPoint, done func(syncPoint)) error {
	fl.mu.Lock()
	fl.waits++
	fl.mu.Unlock()
	return fl.await(ctx, seq, prepare, done)
}

// await is wait without counting a writer's wait: for a Group's leader, which
// syncs a file on behalf of writes already counted.
func (fl *flusher) await(ctx context.Context, seq uint64, prepare func() syncPoint, done func(syncPoint)) error {
	for {
		fl.mu.Lock()
		if fl.synced >= seq {
			fl.mu.Unlock()
			return nil
		}
		if fl.err != nil {
			err := fl.err
			fl.mu.Unlock()
			return err
		}
		if r := fl.round; r != nil {
			fl.mu.Unlock()
			select {
			case <-r:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		r := make(chan struct{})
		fl.round = r
		fl.syncs++
		fl.mu.Unlock()

		sp := prepare()
		err := sp.f.Sync()
		if err == nil {
			done(sp)
		}

		fl.mu.Lock()
		switch {
		case fl.synced >= sp.seq:
			// A rotation or Close synced (and closed) the file meanwhile;
			// an error from syncing the closed file means nothing.
		case err != nil:
			fl.err = err
		default:
			fl.synced = sp.seq
		}
		fl.round = nil
		close(r)
		fl.mu.Unlock()
	}
}

// advance records that every write up to seq is durable, because the caller
// synced the file itself (before closing or rotating it).
func (fl *flusher) advance(seq uint64) {
	fl.mu.Lock()
	if seq > fl.synced {
		fl.synced = seq
	}
	fl.mu.Unlock()
}

// fail makes err sticky: every later wait returns it.
func (fl *flusher) fail(err error) {
	fl.mu.Lock()
	if fl.err == nil {
		fl.err = err
	}
	fl.mu.Unlock()
}

// count returns the number of fsyncs leaders have done.
func (fl *flusher) count() uint64 {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return fl.syncs
}

// stats returns the fsync rounds and the waits so far.
func (fl *flusher) stats() SyncStats {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return SyncStats{Syncs: fl.syncs, Waits: fl.waits}
}

// durableSeq returns the number of the last write known durable.
func (fl *flusher) durableSeq() uint64 {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return fl.synced
}
