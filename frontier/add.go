package frontier

import (
	"context"
	"runtime"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// Reasons Add refuses an entry; Stats.Refused counts them.
const (
	RefusedURL       = "url"        // not an absolute URL with a host, or longer than MaxURLSize
	RefusedDepth     = "depth"      // Depth > Options.MaxDepth
	RefusedTotal     = "total"      // Options.MaxTotal URLs already accepted
	RefusedHostQueue = "host-queue" // Options.MaxQueuedPerHost URLs already queued on the host
)

// Counter names in the meta bucket and in Frontier.counters.
const (
	cAdded     = "added"
	cDuplicate = "duplicate"
	cDone      = "done"
	pFailed    = "failed/"
	pSkipped   = "skipped/"
	pRefused   = "refused/"
)

// maxReason is the longest reason kept, in bytes; longer ones are cut.
const maxReason = 64

// prepared is an entry with what can be computed outside the transaction.
type prepared struct {
	e      Entry
	host   string
	fp     seenKey
	val    []byte
	reject string // a refusal reason known before the transaction
	seq    uint64 // for a staged link, the sequence number it got when staged; else 0

	// A large Add looks its URLs up in the seen set before its commits, beside the
	// committer (precheck): dup if the URL was seen then; else since, the seen set's
	// next run id then (0: not looked up), and sinceOpen, its open run then, so that
	// the commit probes only what was added after (seenTx.containsSince).
	dup       bool
	since     uint64
	sinceOpen uint64
}

func (f *Frontier) prepare(entries []Entry) []prepared {
	ps := make([]prepared, len(entries))
	parts := min(runtime.GOMAXPROCS(0), len(entries)/prepareSplit)
	if parts <= 1 {
		f.prepareInto(ps, entries)
		return ps
	}
	// SHA-256 and the encoding of many entries, in parallel.
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := i*len(entries)/parts, (i+1)*len(entries)/parts
		wg.Go(func() { f.prepareInto(ps[lo:hi], entries[lo:hi]) })
	}
	wg.Wait()
	return ps
}

// prepareSplit is the fewest entries prepare gives a goroutine of its own.
const prepareSplit = 4096

// prepareInto prepares entries into ps, of the same length. Their values share one
// allocation.
func (f *Frontier) prepareInto(ps []prepared, entries []Entry) {
	size := 0
	for i := range entries {
		size += entrySize(&entries[i])
	}
	buf := make([]byte, 0, size)
	for i := range entries {
		p := &ps[i]
		p.e = entries[i]
		if f.opts.MaxDepth > 0 && p.e.Depth > f.opts.MaxDepth {
			p.reject = RefusedDepth
			continue
		}
		h, err := hostOf(p.e.URL)
		if err != nil || len(p.e.URL) > MaxURLSize {
			p.reject = RefusedURL
			continue
		}
		p.host = h
		p.fp = fingerprint(h, p.e.URL)
		start := len(buf)
		buf = appendEntry(buf, &p.e, 0)
		p.val = buf[start:len(buf):len(buf)]
	}
}

// add queues one prepared entry in the batch and reports whether it was new and
// accepted.
func (b *batch) add(p *prepared) (bool, error) {
	if p.reject != "" {
		b.count(pRefused+p.reject, 1)
		return false, nil
	}
	if seen, err := b.seenBefore(p); err != nil {
		return false, err
	} else if seen {
		b.count(cDuplicate, 1)
		return false, nil
	}
	opts := &b.f.opts
	if opts.MaxTotal > 0 && b.counter(cAdded) >= int64(opts.MaxTotal) {
		b.count(pRefused+RefusedTotal, 1)
		return false, nil
	}
	if opts.MaxQueuedPerHost > 0 {
		if ht := b.hostTx(p.host, false); ht != nil && ht.rec.queued >= int64(opts.MaxQueuedPerHost) {
			b.count(pRefused+RefusedHostQueue, 1)
			return false, nil
		}
	}
	ht := b.addHost(p.host)
	seq := p.seq
	if seq == 0 {
		b.seq++
		seq = b.seq
	}
	b.newSeen[p.fp] = struct{}{}
	b.seen.added(&p.fp)
	b.newQueue = append(b.newQueue, keyValue{queueKey(ht.rec.id, 0, p.e.Priority, p.e.Depth, seq), p.val})
	ht.rec.queued++
	b.count(cAdded, 1)
	return true, nil
}

// seenBefore reports whether p's URL is in the seen set or was added by this batch.
func (b *batch) seenBefore(p *prepared) (bool, error) {
	if _, ok := b.newSeen[p.fp]; ok || p.dup {
		return true, nil
	}
	if p.since != 0 {
		return b.seen.containsSince(&p.fp, p.since, p.sinceOpen)
	}
	return b.seen.contains(&p.fp)
}

// addChunk is the largest Add applied in one transaction, in the order given; larger
// ones take the sorted path of a fold.
var addChunk = 4096 // a variable for tests

// Add queues the entries whose URLs were never seen before and returns how many that
// was. Entries refused by a limit or an unparseable URL are counted in Stats.Refused,
// duplicates in Stats.Duplicates; neither is an error. A refused URL is not marked
// seen, so it may be added later. Add returns once the entries are committed.
//
// An Add of up to 4,096 entries is one transaction and decides duplicates and limits
// in the order given. A larger one (a seed file, a sitemap, URLs from another
// process) goes the way staged links are folded in: sorted by seen key and committed
// over as many transactions as keep each one's rewritten pages to a bounded number,
// so that each page is rewritten once per Add and memory stays bounded however
// many entries there are; duplicates and limits are then decided in seen-key order,
// and a host's new URLs still queue in the order given. If ctx ends or the process
// dies part way, a part of the entries, in seen-key order, is queued: Add returns
// how many of them were added, with the error.
//
// Add returns ctx.Err() only if ctx ends before the write (or a part of it) is handed
// to the committer.
func (f *Frontier) Add(ctx context.Context, entries ...Entry) (added int, err error) {
	if len(entries) == 0 {
		return 0, f.checkOpen()
	}
	ps := f.prepare(entries)
	if len(ps) > addChunk {
		return f.addSorted(ctx, ps)
	}
	n := 0
	err = f.do(ctx, &op{apply: func(b *batch) error {
		for i := range ps {
			ok, err := b.add(&ps[i])
			if err != nil {
				return err
			}
			if ok {
				n++
			}
		}
		return nil
	}})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// addSorted is Add of many entries: sorted by seen key, in chunks of addNodes nodes.
// The entries get consecutive sequence numbers in the order given, so that a host's
// URLs queue in that order.
func (f *Frontier) addSorted(ctx context.Context, ps []prepared) (int, error) {
	for i := range ps {
		ps[i].seq = uint64(i + 1) // made absolute by the first chunk
	}
	sortBySeen(ps)
	f.precheck(ps)
	added, pos := 0, 0
	for pos < len(ps) {
		var next, n int
		err := f.do(ctx, &op{apply: func(b *batch) error {
			if pos == 0 {
				for i := range ps {
					ps[i].seq += b.seq
				}
				b.seq += uint64(len(ps))
			}
			var err error
			next, n, err = b.addSlice(ps, pos, addNodes)
			return err
		}})
		if err != nil {
			return added, err
		}
		pos, added = next, added+n
		if addCommitted != nil {
			addCommitted()
		}
	}
	return added, nil
}

// precheckChunk is how many URLs precheck looks up per read transaction (0: none,
// for tests): a read transaction holds off the remap of a growing file until it ends.
var precheckChunk = 16384

// prechecked, if set, is called by precheck after each read transaction, and
// addCommitted by a large Add after each commit.
var prechecked, addCommitted func() // for tests

// precheck looks the URLs of ps, sorted by seen key, up in the seen set as committed,
// in read transactions, and marks them for seenBefore: the lookups of a large Add,
// a probe of every run per URL, then run in the caller's goroutine rather than in
// the committer's, which all commits wait for. A URL seen then is a duplicate; one
// not seen is looked up again by its commit, but only in what changed since (level
// 0, new runs, the run that was open). A failure leaves the lookups to the commits.
func (f *Frontier) precheck(ps []prepared) {
	if precheckChunk <= 0 || f.checkOpen() != nil {
		return
	}
	for lo := 0; lo < len(ps); lo += precheckChunk {
		hi := min(lo+precheckChunk, len(ps))
		err := f.view(func(tx *bolt.Tx) error { return lookupSeen(tx, ps[lo:hi]) })
		if err != nil {
			clearLookups(ps[lo:hi])
			return
		}
		if prechecked != nil {
			prechecked()
		}
	}
}

// lookupSeen looks the URLs of ps, sorted by seen key, up in the seen set as tx has
// it, and marks them for seenBefore: dup if seen, else what to look at again.
func lookupSeen(tx *bolt.Tx, ps []prepared) error {
	st, err := decodeSeenState(tx.Bucket(bucketMeta).Get(keySeenSet))
	if err != nil {
		return err
	}
	s := newSeenTx(tx, st)
	for i := range ps {
		p := &ps[i]
		if p.reject != "" {
			continue
		}
		seen, err := s.contains(&p.fp)
		if err != nil {
			return err
		}
		p.dup, p.since, p.sinceOpen = seen, st.nextID, st.open.id
	}
	return nil
}

// clearLookups undoes lookupSeen's marks, after it failed part way.
func clearLookups(ps []prepared) {
	for i := range ps {
		ps[i].dup, ps[i].since, ps[i].sinceOpen = false, 0, 0
	}
}

// checkOpen returns the error a call would meet: ErrReadOnly, ErrClosed or a failed
// commit.
func (f *Frontier) checkOpen() error {
	if f.opts.ReadOnly {
		return ErrReadOnly
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	return f.err
}

func cutReason(s, def string) string {
	if s == "" {
		return def
	}
	if len(s) > maxReason {
		return s[:maxReason]
	}
	return s
}
