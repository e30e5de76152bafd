package frontier

import (
	"bytes"
	"context"
	"encoding/binary"
	"maps"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// maxBatch caps the operations of one group commit.
const maxBatch = 1024

// An op is one caller's share of a group commit. apply runs inside the write
// transaction and must only fail for reasons that doom the whole transaction; merge
// runs under f.mu once the transaction is committed, to update the in-memory state.
type op struct {
	apply func(b *batch) error
	merge func()
	done  chan error // nil when nobody waits
	sync  bool       // a Done: its transaction commits after Options.SyncDone
}

// send hands o to the committer. It returns ErrClosed after Close and ctx.Err() if ctx
// ends before the committer accepts o; once accepted, o is applied.
func (f *Frontier) send(ctx context.Context, o *op) error {
	if f.opts.ReadOnly {
		return ErrReadOnly
	}
	f.sendMu.RLock()
	defer f.sendMu.RUnlock()
	if !f.sending {
		return ErrClosed
	}
	select {
	case f.ops <- o:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// do sends o and waits for its commit.
func (f *Frontier) do(ctx context.Context, o *op) error {
	o.done = make(chan error, 1)
	if err := f.send(ctx, o); err != nil {
		return err
	}
	return <-o.done
}

func (f *Frontier) commitLoop() {
	defer close(f.stopped)
	ops := make([]*op, 0, maxBatch)
	for {
		first, ok := <-f.ops
		if !ok {
			return
		}
		ops = append(ops[:0], first)
	drain:
		for len(ops) < maxBatch {
			select {
			case o, ok := <-f.ops:
				if !ok {
					break drain
				}
				ops = append(ops, o)
			default:
				break drain
			}
		}
		f.commit(ops)
		clear(ops)
		// A commit maps pages in bursts (bbolt's rebalance reads the siblings of
		// the nodes it changed) faster than the watcher's ticks catch on a
		// loaded machine: at 10M URLs, up to 80 MiB past the budget.
		f.checkMapped()
	}
}

// syncDones starts Options.SyncDone for the Dones among ops in a goroutine of its
// own, and returns where its result comes; nil if there is none to wait for.
func (f *Frontier) syncDones(ops []*op) <-chan error {
	if f.opts.SyncDone == nil {
		return nil
	}
	n := 0
	for _, o := range ops {
		if o.sync {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	c := make(chan error, 1)
	go func() { c <- f.opts.SyncDone(n) }()
	return c
}

// commit applies ops in one transaction and, once it is durable, merges their effects
// into memory and tells their callers. When ops hold Dones, Options.SyncDone runs
// while the transaction is written, and the transaction commits only once it has
// returned nil. A failed transaction stops the Frontier.
func (f *Frontier) commit(ops []*op) {
	f.mu.Lock()
	err := f.err
	f.mu.Unlock()
	var b *batch
	if err == nil {
		synced := f.syncDones(ops)
		b = &batch{f: f, hosts: make(map[string]*hostTx), counters: make(map[string]int64),
			newSeen: make(map[seenKey]struct{})}
		err = f.update(func(tx *bolt.Tx) error {
			b.begin(tx)
			for _, o := range ops {
				if err := o.apply(b); err != nil {
					return err
				}
			}
			if err := b.deleteFolded(); err != nil {
				return err
			}
			if b.shouldFold() {
				if err := b.flushLog(); err != nil {
					return err
				}
				if err := b.foldStep(); err != nil {
					return err
				}
			}
			if err := b.flush(); err != nil {
				return err
			}
			if synced != nil {
				c := synced
				synced = nil
				return <-c
			}
			return nil
		})
		if synced != nil {
			// The transaction failed before SyncDone returned: wait for it all the
			// same, so that none runs once the Dones have returned.
			<-synced
		}
		if err != nil {
			err = &opError{op: "commit", err: err}
		}
	}
	f.mu.Lock()
	if err != nil {
		if f.err == nil {
			f.err = err
		}
	} else {
		b.merge()
		for _, o := range ops {
			if o.merge != nil {
				o.merge()
			}
		}
	}
	f.broadcast()
	f.mu.Unlock()
	for _, o := range ops {
		if o.done != nil {
			o.done <- err
		}
	}
}

// batch is the state of one write transaction: the hosts it touched, with their
// records as they will be once it commits, and counter increments.
type batch struct {
	f        *Frontier
	tx       *bolt.Tx
	meta     *bolt.Bucket
	hostsB   *bolt.Bucket
	queue    *bolt.Bucket
	seen     *seenTx
	leases   *bolt.Bucket
	robots   *bolt.Bucket
	staged   *bolt.Bucket
	hosts    map[string]*hostTx
	lastHost *hostTx          // the one hostTx returned last: a sorted Add's URLs come by host
	counters map[string]int64 // increments
	seq      uint64
	hostID   uint64
	txid     int

	// The URLs this batch adds, written by flush in key order: bbolt inserts into a
	// node by shifting the keys after the new one, so keys put in random order cost
	// time quadratic in the number a node receives in one transaction (minutes for an
	// Add of a few hundred thousand URLs to a new file).
	newSeen  map[seenKey]struct{}
	newQueue []keyValue

	stagedLinks []prepared         // links that Done staged in this batch
	folding     bool               // Flush or Next asked to fold the log in
	logHosts    bool               // a fold is queueing links: their hosts' records are logged (addHost)
	opsApplied  map[*host]struct{} // hosts whose pending queue changes a fold applied (applyHostOps)

	// The Done log (donelog.go): queue changes not yet in a record, those written
	// to this batch's record, those a fold applied (their records up to unpendLast),
	// and how many records the fold took out of the log.
	logOps     []logOp
	newPend    int // keys logOps adds to the pending ones
	logged     []loggedOp
	logWritten int
	unpend     []foldOp
	unpendLast uint64
	logDeleted int
}

type keyValue struct{ key, value []byte }

// hostTx is a host's record inside a batch. h is nil for a host this batch creates.
// A host's record is either written to the hosts bucket at the end of the batch
// (direct) or, when only Done outcomes changed it, carried by the batch's log record
// (logged and not direct).
type hostTx struct {
	h       *host
	name    string
	rec     hostRecord
	ops     map[string]pendOp // the queue changes this batch logged, by key
	direct  bool
	logged  bool
	flushed bool // in the batch's log record
	// uncounted is set when the batch queued an entry of Options.Uncounted kinds.
	uncounted bool
}

func (b *batch) begin(tx *bolt.Tx) {
	b.tx = tx
	b.meta = tx.Bucket(bucketMeta)
	b.hostsB = tx.Bucket(bucketHosts)
	b.queue = tx.Bucket(bucketQueue)
	b.seen = newSeenTx(tx, b.f.seen.clone())
	b.leases = tx.Bucket(bucketLeases)
	b.robots = tx.Bucket(bucketRobots)
	b.staged = tx.Bucket(bucketStaged)
	b.seq = b.f.seq
	b.hostID = b.f.hostID
	b.txid = tx.ID()
}

// host returns the batch's copy of a host's record, to be written to the hosts
// bucket, or nil if the host is unknown and create is false. Only the committer
// goroutine writes f.hosts, host.rec and host.pend, so it reads them here without
// f.mu.
func (b *batch) host(name string, create bool) *hostTx {
	ht := b.hostTx(name, create)
	if ht != nil {
		ht.direct = true
	}
	return ht
}

// hostTx is host without marking the record to be written: Done logs it.
func (b *batch) hostTx(name string, create bool) *hostTx {
	if ht := b.lastHost; ht != nil && ht.name == name {
		return ht
	}
	if ht := b.hosts[name]; ht != nil {
		b.lastHost = ht
		return ht
	}
	if h := b.f.hosts[name]; h != nil {
		ht := &hostTx{h: h, name: name, rec: h.rec}
		b.hosts[name] = ht
		b.lastHost = ht
		return ht
	}
	if !create {
		return nil
	}
	b.hostID++
	// A copy: name may be a prefix of a URL (hostFast), kept for as long as the host.
	name = strings.Clone(name)
	ht := &hostTx{name: name, rec: hostRecord{id: b.hostID}}
	b.hosts[name] = ht
	b.lastHost = ht
	return ht
}

// overlay returns the queue changes of ht not in the queue bucket.
func (ht *hostTx) overlay() overlay {
	o := overlay{ops: ht.ops}
	if ht.h != nil {
		o.pend = ht.h.pending()
	}
	return o
}

// count adds d to a crawl-wide counter.
func (b *batch) count(name string, d int64) { b.counters[name] += d }

// counter returns a counter's value as of this point of the batch.
func (b *batch) counter(name string) int64 { return b.f.counters[name] + b.counters[name] }

// flush writes the log record, the new URLs, the host records to write, the
// counters and the sequences.
func (b *batch) flush() error {
	if err := b.flushLog(); err != nil {
		return err
	}
	if err := b.putNew(); err != nil {
		return err
	}
	if err := b.seen.maintain(b.meta, b.tx); err != nil {
		return err
	}
	// Host records too go in key order (see newSeen): an Add of many new hosts.
	for _, name := range slices.Sorted(maps.Keys(b.hosts)) {
		if ht := b.hosts[name]; ht.direct {
			if err := b.hostsB.Put([]byte(name), ht.rec.encode()); err != nil {
				return err
			}
		}
	}
	for name, d := range b.counters {
		if d == 0 {
			continue
		}
		k := append(append([]byte(nil), counterPfx...), name...)
		v := binary.AppendUvarint(nil, uint64(b.f.counters[name]+d))
		if err := b.meta.Put(k, v); err != nil {
			return err
		}
	}
	if err := b.meta.Put(keySeq, binary.BigEndian.AppendUint64(nil, b.seq)); err != nil {
		return err
	}
	return b.meta.Put(keyHostID, binary.BigEndian.AppendUint64(nil, b.hostID))
}

// putNew writes the seen and queue keys of the URLs added so far, in key order, and
// forgets them: seenBefore then finds them in the bucket.
func (b *batch) putNew() error {
	fps := slices.AppendSeq(make([]seenKey, 0, len(b.newSeen)), maps.Keys(b.newSeen))
	sortKeys(fps)
	if err := b.seen.put(fps); err != nil {
		return err
	}
	slices.SortFunc(b.newQueue, func(x, y keyValue) int { return bytes.Compare(x.key, y.key) })
	for _, kv := range b.newQueue {
		if err := b.queue.Put(kv.key, kv.value); err != nil {
			return err
		}
	}
	clear(b.newSeen)
	clear(b.newQueue)
	b.newQueue = b.newQueue[:0]
	return nil
}

// merge makes the committed batch the in-memory state. f.mu must be held.
func (b *batch) merge() {
	f := b.f
	f.seq, f.hostID, f.txid = b.seq, b.hostID, b.txid
	f.seen = b.seen.st
	for name, d := range b.counters {
		f.counters[name] += d
	}
	f.logLen += b.logWritten - b.logDeleted
	if f.fold != nil {
		f.startReader(f.fold) // its records are all committed now
	}
	for _, ht := range b.hosts {
		h := ht.h
		if h == nil {
			_, parked := f.parked[ht.name]
			h = &host{name: ht.name, index: -1, parked: parked}
			f.hosts[ht.name] = h
		}
		h.rec = ht.rec
		h.dueHint = 0
		if ht.uncounted {
			h.capped = false
		}
		switch {
		case ht.direct && h.dirty:
			h.dirty = false
			delete(f.dirty, h)
		case !ht.direct && ht.logged && !h.dirty:
			h.dirty = true
			f.dirty[h] = struct{}{}
		}
		f.fix(h)
	}
	for _, op := range b.logged {
		h := op.ht.h
		if h.setPending(op.key, pendOp{val: op.val, rec: op.rec}) {
			f.pendN++
		}
		if len(h.pending()) >= hostPendMax {
			f.hot = true
		}
	}
	for _, op := range b.unpend {
		h := op.h
		if p, ok := h.pending().get(op.key); ok && p.rec <= b.unpendLast {
			h.removePending(op.key)
			f.pendN--
		}
	}
}
