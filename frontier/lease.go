package frontier

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A Lease is a URL handed out by Next. Its holder fetches it and reports the outcome
// with Done exactly once. The fields are copies: changing them changes nothing.
type Lease struct {
	Entry
	// Host is the URL's authority, scheme://host[:port].
	Host string
	// Attempt is 1 for the first try of the URL and grows with each Retry outcome
	// that consumed an attempt.
	Attempt int
	// At is when Next handed the lease out, by Options.Now.
	At time.Time
	// Due is the time the URL was due, as given by the Outcome.Refetch that queued
	// it again; zero for a URL due at once (every new link).
	Due time.Time

	f     *Frontier
	h     *host
	key   []byte
	later bool  // key has a due time
	entry Entry // the stored entry, for a Retry
	done  bool  // Done was called; guarded by f.mu
}

// OutcomeKind says what became of a leased URL.
type OutcomeKind uint8

const (
	// Finished: fetched (whatever the status code). The zero value.
	Finished OutcomeKind = iota
	// Retry: try again at Outcome.RetryAt; after Options.MaxAttempts attempts it
	// becomes Failed.
	Retry
	// Failed: given up; Outcome.Reason says why ("error" if empty).
	Failed
	// Skipped: not fetched on purpose; Outcome.Reason says why ("robots", "scope",
	// "limit", ...; "skipped" if empty).
	Skipped
)

func (k OutcomeKind) String() string {
	switch k {
	case Finished:
		return "finished"
	case Retry:
		return "retry"
	case Failed:
		return "failed"
	case Skipped:
		return "skipped"
	}
	return fmt.Sprintf("OutcomeKind(%d)", uint8(k))
}

// Outcome is what Done records for a lease.
type Outcome struct {
	// Kind is what became of the URL; the zero value is Finished.
	Kind OutcomeKind
	// Reason qualifies Failed and Skipped outcomes; it keys Stats.Failed and
	// Stats.Skipped and is cut to 64 bytes.
	Reason string
	// RetryAt is when a Retry may be tried again; zero means as soon as the host is
	// ready. The URL keeps its place at the head of its host's queue, so the host is
	// not ready before RetryAt.
	RetryAt time.Time
	// HostReady is when the host may be leased again; zero means now.
	HostReady time.Time
	// Links are queued in the same transaction, as by Add (or staged, with
	// Options.LinkBatch).
	Links []Entry
	// Requisites are queued in the same transaction, as by Add, and never staged:
	// what the page needs to be shown (its stylesheets, images, fonts), due at once,
	// which a high Entry.Priority puts at the head of their hosts' queues, so that a
	// crawl cut short holds whole pages. Their duplicates are found at once too.
	Requisites []Entry
	// Error counts the outcome as a consecutive error of the host; a Finished outcome
	// without Error resets the count.
	Error bool
	// NoAttempt makes a Retry not consume an attempt (waiting for robots.txt or a
	// Visit-time window).
	NoAttempt bool
	// Refetch, if not zero, gives a Finished, Failed or Skipped URL back to its
	// host's queue, due at this time (a recrawl): it is counted as done, failed or
	// skipped now and leased again, with its attempts reset, once Refetch has come
	// and the host is ready. Zero means the URL leaves the frontier. A Retry
	// ignores it.
	Refetch time.Time
}

// Next leases the head URL of the host whose ready time is earliest, once that time
// has come. It waits while no host is ready, and returns ErrDone once nothing is
// queued or leased (parked hosts aside), ctx.Err() if ctx ends first, and ErrClosed
// after Close. Once ctx has ended it leases nothing, even when a host is ready: that
// is how a crawl stops leasing. Within a host, higher Priority comes first, then lower
// Depth, then first added.
func (f *Frontier) Next(ctx context.Context) (*Lease, error) {
	if f.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f.mu.Lock()
		l, wait, err := f.tryNext(f.now())
		wake := f.wake
		// Rather than wait, or end the crawl, fold in the staged links: they may
		// hold the next ready host. One caller folds; the others wait for it.
		fold := l == nil && err == nil && f.counters[cStaged] > 0 && !f.folding
		if fold {
			f.folding = true
		}
		f.mu.Unlock()
		if fold {
			err = f.foldOnce(ctx)
			f.mu.Lock()
			f.folding = false
			f.broadcast()
			f.mu.Unlock()
			if err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if l != nil {
			f.recordLease(l)
			return l, nil
		}
		var tc <-chan time.Time
		if !wait.IsZero() {
			d := max(wait.Sub(f.now()), time.Millisecond)
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			tc = timer.C
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wake:
		case <-tc:
		}
	}
}

// doneCounted returns the URLs finished that MaxDone counts. f.mu must be held.
func (f *Frontier) doneCounted() int64 {
	return max(f.counters[cDone]-f.counters[cDoneUnc], 0)
}

// tryNext leases a URL if a host is ready at now. Otherwise it returns the time the
// earliest host gets ready (zero if no host can be leased until something changes),
// or ErrDone. f.mu must be held.
func (f *Frontier) tryNext(now time.Time) (*Lease, time.Time, error) {
	if f.closed {
		return nil, time.Time{}, ErrClosed
	}
	if f.err != nil {
		return nil, time.Time{}, f.err
	}
	full := f.opts.MaxDone > 0 && f.doneCounted()+int64(f.leased-f.leasedUnc) >= int64(f.opts.MaxDone)
	if full && f.opts.Uncounted == 0 {
		if f.leased == 0 {
			return nil, time.Time{}, ErrDone // the rest stays queued
		}
		return nil, time.Time{}, nil // a lease that ends other than Finished frees a place
	}
	for {
		if len(f.heap) == 0 {
			if f.leased == 0 && (full || f.counters[cStaged] == 0) {
				return nil, time.Time{}, ErrDone
			}
			return nil, time.Time{}, nil
		}
		h := f.heap[0]
		if h.at > now.UnixNano() {
			return nil, time.Unix(0, h.at), nil
		}
		l, err := f.head(h, now.UnixNano())
		if err != nil {
			f.err = err
			f.broadcast()
			return nil, time.Time{}, err
		}
		if l == nil {
			continue // h's first due time was later than h.at said; fixed, try again
		}
		uncounted := l.Kind&f.opts.Uncounted != 0
		if full && !uncounted {
			if f.doneCounted() < int64(f.opts.MaxDone) {
				return nil, time.Time{}, nil // a lease that ends other than Finished frees a place
			}
			h.capped = true // until an uncounted URL is queued on it
			f.fix(h)
			continue
		}
		if uncounted {
			f.leasedUnc++
		}
		l.At = now
		h.addLease(l)
		h.ahead = false
		f.leased++
		f.fix(h)
		f.readAhead()
		return l, time.Time{}, nil
	}
}

// head returns a lease of h's next URL: the first not leased of those due at once,
// or the first not leased of those with a due time, if it has come and comes first
// by priority and depth. If no URL is due after all (h.at was stale because the first
// due URLs are leased), it corrects h's place in the heap and returns nil. f.mu must be
// held.
func (f *Frontier) head(h *host, now int64) (*Lease, error) {
	var first, later []byte
	var firstVal, laterVal []byte
	// The queue as it is: the bucket with the Done outcomes logged and not yet
	// folded in applied over it, so that a URL finished in the log is never handed
	// out again and a retried one comes with its new attempt count.
	o := overlay{pend: h.pending()}
	err := f.view(func(tx *bolt.Tx) error {
		q := tx.Bucket(bucketQueue)
		id := h.rec.id
		if h.availableNow() > 0 {
			first, firstVal = o.first(q, hostPrefix(id), laterPrefix(id), h.leasedKey)
			if first == nil {
				return fmt.Errorf("%w: host %s counts %d URLs due at once but has none", ErrCorrupt, h.name, h.availableNow())
			}
		}
		if h.availableLater() > 0 {
			later, laterVal = o.first(q, laterPrefix(id), hostEnd(id), h.leasedKey)
			if later == nil {
				return fmt.Errorf("%w: host %s counts %d URLs due later but has none", ErrCorrupt, h.name, h.availableLater())
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if later != nil && first == nil && max(h.rec.ready, dueOf(later)) != h.at {
		h.dueHint = dueOf(later)
		f.fix(h)
		return nil, nil
	}
	key, val := first, firstVal
	// A URL whose due time has come goes first unless one due at once ranks before it
	// by priority and depth.
	if later != nil && dueOf(later) <= now && (first == nil || bytes.Compare(rankOf(later)[:8], rankOf(first)[:8]) <= 0) {
		key, val = later, laterVal
	}
	e, attempts, err := decodeEntry(val)
	if err != nil {
		return nil, fmt.Errorf("%w: queue entry %x of %s", ErrCorrupt, key, h.name)
	}
	l := &Lease{Entry: e, Host: h.name, Attempt: attempts + 1, f: f, h: h, key: key, later: dueOf(key) > 0, entry: e}
	if l.later {
		l.Due = time.Unix(0, dueOf(key))
	}
	return l, nil
}

func (h *host) leasedKey(k []byte) bool {
	for _, l := range h.leaseList() {
		if bytes.Equal(l.key, k) {
			return true
		}
	}
	return false
}

// recordLease writes the lease to the leases bucket with the next group commit,
// without waiting: until then the entry is still queued on disk, which is what a crash
// needs. Done's write is sent later, so it lands in the same or a later transaction.
func (f *Frontier) recordLease(l *Lease) {
	v := binary.AppendVarint(nil, l.At.UnixNano())
	v = binary.AppendUvarint(v, uint64(l.Attempt))
	_ = f.send(context.Background(), &op{apply: func(b *batch) error {
		return b.leases.Put(l.key, v)
	}})
}

// Done records the outcome of a lease: it removes the URL from its host's queue
// (Finished, Failed, Skipped) or keeps it for a Retry, sets the host's next ready time,
// and queues o.Links, all in one transaction. It returns once that transaction is
// committed, after Options.SyncDone if set. It returns ErrLease for a lease that is not outstanding, and ctx.Err()
// only if ctx ends before the write is handed to the committer (the lease then stays
// outstanding and Done may be called again).
func (f *Frontier) Done(ctx context.Context, l *Lease, o Outcome) error {
	if f.opts.ReadOnly {
		return ErrReadOnly
	}
	f.mu.Lock()
	if l == nil || l.f != f || l.done {
		f.mu.Unlock()
		return ErrLease
	}
	l.done = true
	f.mu.Unlock()
	links := f.prepare(o.Links)
	var reqs []prepared
	if len(o.Requisites) > 0 {
		reqs = f.prepare(o.Requisites)
	}
	now := f.now()
	err := f.do(ctx, &op{
		sync:  true,
		apply: func(b *batch) error { return b.done(l, &o, links, reqs, now) },
		merge: func() {
			h := l.h
			h.removeLease(l)
			f.leased--
			if l.Kind&f.opts.Uncounted != 0 {
				f.leasedUnc--
			}
			f.fix(h)
		},
	})
	if err != nil && !f.stopping() {
		// Never handed to the committer: the lease stays outstanding.
		f.mu.Lock()
		l.done = false
		f.mu.Unlock()
	}
	return err
}

// stopping reports whether the Frontier is closed or failed, in which case a Done that
// did not happen must not be retried.
func (f *Frontier) stopping() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed || f.err != nil
}

// done applies a lease's outcome in the batch.
func (b *batch) done(l *Lease, o *Outcome, links, reqs []prepared, now time.Time) error {
	ht := b.hostTx(l.Host, false)
	if ht == nil {
		return fmt.Errorf("frontier: lease of unknown host %s", l.Host)
	}
	ready := o.HostReady
	if ready.IsZero() {
		ready = now
	}
	kind, why := o.Kind, o.Reason
	if kind == Retry {
		attempts := l.Attempt
		if o.NoAttempt {
			attempts--
		}
		if attempts >= b.f.maxAttempts {
			kind, why = Failed, cutReason(why, "attempts")
		} else {
			if o.RetryAt.After(ready) {
				ready = o.RetryAt
			}
			b.logPut(ht, l.key, encodeEntry(&l.entry, attempts))
		}
	}
	switch kind {
	case Finished:
		ht.rec.done++
		b.count(cDone, 1)
		if l.Kind&b.f.opts.Uncounted != 0 {
			b.count(cDoneUnc, 1)
		}
	case Failed:
		ht.rec.failed++
		b.count(pFailed+cutReason(why, "error"), 1)
	case Skipped:
		ht.rec.skipped++
		b.count(pSkipped+cutReason(why, "skipped"), 1)
	}
	if kind != Retry {
		b.logDelete(ht, l.key)
		ht.rec.queued--
		if l.later {
			ht.rec.later--
		}
		if !o.Refetch.IsZero() {
			b.seq++
			due := max(o.Refetch.UnixNano(), 1)
			k := queueKey(ht.rec.id, due, l.entry.Priority, l.entry.Depth, b.seq)
			b.logPut(ht, k, encodeEntry(&l.entry, 0))
			ht.rec.queued++
			ht.rec.later++
		}
		if l.later || !o.Refetch.IsZero() {
			ht.rec.laterDue = b.firstDue(ht)
		}
	}
	if err := b.leases.Delete(l.key); err != nil {
		return err
	}
	switch {
	case o.Error:
		ht.rec.errors++
	case kind == Finished:
		ht.rec.errors = 0
	}
	ht.rec.ready = ready.UnixNano()
	for i := range links {
		p := &links[i]
		if b.f.linkBatch > 0 && p.reject == "" {
			b.stage(p)
			continue
		}
		if _, err := b.add(p); err != nil {
			return err
		}
	}
	for i := range reqs {
		if _, err := b.add(&reqs[i]); err != nil {
			return err
		}
	}
	return nil
}

// firstDue returns the earliest due time of the host's URLs with one, 0 if none.
func (b *batch) firstDue(ht *hostTx) int64 {
	id := ht.rec.id
	k, _ := ht.overlay().first(b.queue, laterPrefix(id), hostEnd(id), nil)
	if k == nil {
		return 0
	}
	return dueOf(k)
}
