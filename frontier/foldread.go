package frontier

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Reading a fold's links ahead. Each group of links a fold queues is first read from
// the log (readLinks: a seek per link, into records all over the staged bucket) and
// looked up in the seen set (a probe of every run per link); at 10M URLs that was a
// sixth of the committer's CPU, which every Next and Done waits for. Neither needs
// the write transaction: the fold's records are committed and stay as they are until
// the fold is in, and a link looked up in the seen set as committed needs from its
// commit only a look at what was added since (seenTx.containsSince, as for a large
// Add: precheck). So once the commit that starts a fold is committed, a goroutine
// takes the fold's index and reads its links ahead, a group of aheadGroup at a time
// in a read transaction of its own, at most foldAhead groups ahead of the commits,
// which take them in the index's order as they would have read them. What the fold
// writes, and in which commits, is unchanged; a crash loses only links read ahead,
// which the next Open's fold reads again.

// aheadGroup is how many links the reader reads in one read transaction, and checks
// the pages mapped after: its reads land all over the log and the seen set, and each
// maps the pages around the one it reads, so a group must stay small enough not to
// overrun the 64 MiB of Options.ResidentMap between two checks (BENCHMARKS.md,
// "Figures moved out of the code's comments"). foldAhead is the most groups read
// ahead and not yet taken by a commit: 8,192 links.
const (
	aheadGroup = 128
	foldAhead  = 64
)

// foldReader reads a fold's links ahead (see above). Only its goroutine uses the
// fold's index from the time it starts.
type foldReader struct {
	groups chan foldGroup
	stop   chan struct{}
	done   chan struct{}
	rest   []prepared // the links of a group a commit took only part of
}

// foldGroup is a group of links read ahead, or the error that ended the reading.
type foldGroup struct {
	ps  []prepared
	err error
}

// startReader starts reading ahead the links of fs not queued yet, unless it reads
// them already or has none left. The fold's records must all be committed. Only the
// committer calls it.
func (f *Frontier) startReader(fs *foldState) {
	if fs.reader != nil || fs.phase != phaseLinks || fs.idx == nil || fs.idx.taken >= fs.idx.len() {
		return
	}
	r := &foldReader{groups: make(chan foldGroup, foldAhead), stop: make(chan struct{}), done: make(chan struct{})}
	fs.reader = r
	idx, recs, group := fs.idx, fs.recs, aheadGroup
	go func() {
		defer close(r.done)
		for idx.taken < idx.len() {
			var g foldGroup
			g.err = f.view(func(tx *bolt.Tx) error {
				links, err := idx.take(group)
				if err != nil {
					return err
				}
				if g.ps, err = readLinks(make([]prepared, 0, len(links)), tx.Bucket(bucketStaged), recs, links); err != nil {
					return err
				}
				if lookupSeen(tx, g.ps) != nil {
					clearLookups(g.ps) // the commit looks them up
				}
				return nil
			})
			// Its reads mapped pages all over the log and the seen set, which the
			// committer checked for between groups when it read them.
			f.checkMapped()
			select {
			case r.groups <- g:
			case <-r.stop:
				return
			}
			if g.err != nil {
				return
			}
		}
	}()
}

// take returns the next n links of the fold, read ahead, into dst.
func (r *foldReader) take(dst []prepared, n int) ([]prepared, error) {
	for len(dst) < n {
		if len(r.rest) == 0 {
			select {
			case g := <-r.groups:
				if g.err != nil {
					return dst, g.err
				}
				r.rest = g.ps
			case <-r.done:
				// Ended: what it sent last may still be waiting.
				select {
				case g := <-r.groups:
					if g.err != nil {
						return dst, g.err
					}
					r.rest = g.ps
				default:
					return dst, fmt.Errorf("%w: fold index: %d links short", ErrCorrupt, n-len(dst))
				}
			}
			if len(r.rest) == 0 {
				return dst, fmt.Errorf("%w: fold index: %d links short", ErrCorrupt, n-len(dst))
			}
		}
		k := min(n-len(dst), len(r.rest))
		dst = append(dst, r.rest[:k]...)
		r.rest = r.rest[k:]
	}
	return dst, nil
}

// stopReader stops the reading ahead, if any, and waits for it to end. A second call
// does nothing.
func (fs *foldState) stopReader() {
	if r := fs.reader; r != nil {
		close(r.stop)
		<-r.done
		fs.reader = nil
	}
}

// close stops the reading ahead and closes the fold's index.
func (fs *foldState) close() {
	fs.stopReader()
	fs.idx.close()
}

// takeLinks returns the next n links of the fold, in the index's order, decoded,
// into dst: read ahead, or else read now with b's transaction.
func (b *batch) takeLinks(fs *foldState, dst []prepared, n int) ([]prepared, error) {
	if fs.reader != nil {
		return fs.reader.take(dst, n)
	}
	links, err := fs.idx.take(n)
	if err != nil {
		return dst, err
	}
	return readLinks(dst, b.staged, fs.recs, links)
}
