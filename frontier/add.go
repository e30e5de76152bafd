package frontier

import (
	"cmp"
	"context"
	"runtime"
	"slices"
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
	cDoneUnc   = "done-uncounted" // of done, the entries of Options.Uncounted kinds
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
	uncounted := p.e.Kind&opts.Uncounted != 0
	if opts.MaxQueuedPerHost > 0 && !uncounted {
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
	ht.uncounted = ht.uncounted || uncounted
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

// addWindow is the most entries of one Add sorted together: a larger Add is taken in
// windows of addWindow entries, in the order given, each sorted and committed in
// turn, so that what Add holds is bounded however many entries it is given (a sort
// key of sortKeySize bytes per entry of the window, and the prepared entries of one
// commit). 4,194,304 entries hold 112 MiB of sort keys.
var addWindow = 1 << 22 // a variable for tests

// Add queues the entries whose URLs were never seen before and returns how many that
// was. Entries refused by a limit or an unparseable URL are counted in Stats.Refused,
// duplicates in Stats.Duplicates; neither is an error. A refused URL is not marked
// seen, so it may be added later. Add returns once the entries are committed.
//
// An Add of up to 4,096 entries is one transaction and decides duplicates and limits
// in the order given. A larger one (a seed file, a sitemap, URLs from another
// process) goes the way staged links are folded in: sorted by seen key and committed
// over as many transactions as keep each one's rewritten pages to a bounded number,
// so that each page is rewritten once per Add; duplicates and limits are then
// decided in seen-key order, and a host's new URLs still queue in the order given.
// Memory stays bounded however many entries there are: an Add of more than
// 4,194,304 entries is taken in windows of that many, in the order given, each
// sorted and committed in turn (each page is then rewritten once per window), and
// Add holds 28 bytes per entry of a window and the prepared entries of one commit,
// besides the caller's slice. If ctx ends or the process dies part way, the windows
// before are queued and a part of the current one, in seen-key order: Add returns
// how many of them were added, with the error.
//
// Add returns ctx.Err() only if ctx ends before the write (or a part of it) is handed
// to the committer.
func (f *Frontier) Add(ctx context.Context, entries ...Entry) (added int, err error) {
	if len(entries) == 0 {
		return 0, f.checkOpen()
	}
	if len(entries) > addChunk {
		for len(entries) > 0 {
			w := entries[:min(len(entries), addWindow)]
			n, err := f.addSorted(ctx, w)
			if added += n; err != nil {
				return added, err
			}
			entries = entries[len(w):]
		}
		return added, nil
	}
	ps := f.prepare(entries)
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

// sortKey is an entry of a large Add as it is sorted: its seen key, its index in the
// Add's window, why it is refused (0: it is not; else refusedURL or refusedDepth) and
// what precheck found. An entry is prepared from it only when its commit comes.
type sortKey struct {
	fp     seenKey
	i      int32
	reject uint8
	looked uint8 // precheck's mark: 0 (not looked up), lookedNew or lookedSeen
}

// sortKeySize is the size of a sortKey, in bytes.
const sortKeySize = 28

// Refusals known before the transaction, in a sortKey.
const (
	refusedURL = 1 + iota
	refusedDepth
)

// addSorted is Add of many entries, at most addWindow: sorted by seen key, then
// prepared and committed a chunk at a time, each commit taking at most addNodes
// nodes. The entries get consecutive sequence numbers in the order given, so that a
// host's URLs queue in that order.
func (f *Frontier) addSorted(ctx context.Context, entries []Entry) (int, error) {
	keys := f.sortKeys(entries)
	at := f.precheck(keys)
	var (
		seq0   uint64     // the sequence number before the first entry's, once the first commit has set it
		buf    []prepared // keys[lo:lo+len(buf)], prepared
		lo     int
		span   = int(min(addNodes*linksPerNode, int64(len(keys)))) // the most one commit takes
		added  int
		pos    int
		firstC = true
	)
	for pos < len(keys) {
		// buf holds what this commit may take: from pos, span keys.
		n := copy(buf, buf[pos-lo:])
		buf, lo = buf[:n], pos
		if end := min(pos+span, len(keys)); lo+len(buf) < end {
			buf = f.prepareKeys(buf, keys, lo+len(buf), end, entries, seq0, at)
		}
		var next, k int
		err := f.do(ctx, &op{apply: func(b *batch) error {
			if firstC {
				seq0 = b.seq
				b.seq += uint64(len(entries))
				for i := range buf {
					buf[i].seq += seq0
				}
				firstC = false
			}
			var err error
			next, k, err = b.addRun(len(keys), pos, addNodes, func(from, to int) ([]prepared, error) {
				return buf[from-lo : to-lo], nil
			})
			return err
		}})
		if err != nil {
			return added, err
		}
		pos, added = next, added+k
		if addCommitted != nil {
			addCommitted()
		}
	}
	return added, nil
}

// sortKeys returns the sort keys of entries (host, fingerprint and the refusals known
// before the transaction, split over GOMAXPROCS goroutines for many), sorted by seen
// key and then by index: refused entries, whose key is zero, come first.
func (f *Frontier) sortKeys(entries []Entry) []sortKey {
	keys := make([]sortKey, len(entries))
	fill := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			k := &keys[i]
			k.i = int32(i)
			e := &entries[i]
			if f.opts.MaxDepth > 0 && e.Depth > f.opts.MaxDepth {
				k.reject = refusedDepth
				continue
			}
			h, err := hostOf(e.URL)
			if err != nil || len(e.URL) > MaxURLSize {
				k.reject = refusedURL
				continue
			}
			k.fp = fingerprint(h, e.URL)
		}
	}
	parts := min(runtime.GOMAXPROCS(0), len(entries)/prepareSplit)
	if parts <= 1 {
		fill(0, len(entries))
	} else {
		var wg sync.WaitGroup
		for i := range parts {
			wg.Go(func() { fill(i*len(entries)/parts, (i+1)*len(entries)/parts) })
		}
		wg.Wait()
	}
	slices.SortFunc(keys, func(x, y sortKey) int {
		if c := cmpSeen(x.fp[:], y.fp[:]); c != 0 {
			return c
		}
		return cmp.Compare(x.i, y.i)
	})
	return keys
}

// prepareKeys appends to dst the entries of keys[from:to], prepared, in their order,
// with precheck's marks (at): entry i gets sequence number seq0+i+1. The fingerprint
// is the key's; the host, the value and, for the refused, the reason are made again
// (SHA-256 is not).
func (f *Frontier) prepareKeys(dst []prepared, keys []sortKey, from, to int, entries []Entry, seq0 uint64, at []lookedAt) []prepared {
	dst = slices.Grow(dst, to-from)
	all := dst[:len(dst)+to-from]
	ps := all[len(dst):]
	clear(ps)
	fill := func(lo, hi int) {
		size := 0
		for _, k := range keys[from+lo : from+hi] {
			size += entrySize(&entries[k.i])
		}
		buf := make([]byte, 0, size)
		for j := lo; j < hi; j++ {
			k, p := &keys[from+j], &ps[j]
			p.e, p.seq = entries[k.i], seq0+uint64(k.i)+1
			if k.looked != 0 {
				l := at[(from+j)/precheckChunk]
				p.dup, p.since, p.sinceOpen = k.looked == lookedSeen, l.since, l.sinceOpen
			}
			switch k.reject {
			case refusedURL:
				p.reject = RefusedURL
				continue
			case refusedDepth:
				p.reject = RefusedDepth
				continue
			}
			p.host, _ = hostOf(p.e.URL) // sortKeys found it
			p.fp = k.fp
			start := len(buf)
			buf = appendEntry(buf, &p.e, 0)
			p.val = buf[start:len(buf):len(buf)]
		}
	}
	parts := min(runtime.GOMAXPROCS(0), len(ps)/prepareSplit)
	if parts <= 1 {
		fill(0, len(ps))
		return all
	}
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() { fill(i*len(ps)/parts, (i+1)*len(ps)/parts) })
	}
	wg.Wait()
	return all
}

// precheckChunk is how many URLs precheck looks up per read transaction (0: none,
// for tests): a read transaction holds off the remap of a growing file until it ends.
var precheckChunk = 16384

// prechecked, if set, is called by precheck after each read transaction, and
// addCommitted by a large Add after each commit.
var prechecked, addCommitted func() // for tests

// precheck looks the URLs of keys, sorted by seen key, up in the seen set as
// committed, in read transactions of precheckChunk keys, and marks them (looked) for
// seenBefore: the lookups of a large Add, a probe of every run per URL, then run in
// the caller's goroutine rather than in the committer's, which all commits wait for.
// A URL seen then is a duplicate; one not seen is looked up again by its commit, but
// only in what changed since (level 0, new runs, the run that was open): what the
// seen set was for the keys of read transaction i is the answer's i-th. A failure
// leaves the lookups of the keys not looked up to the commits.
func (f *Frontier) precheck(keys []sortKey) []lookedAt {
	if precheckChunk <= 0 || f.checkOpen() != nil {
		return nil
	}
	var at []lookedAt
	for lo := 0; lo < len(keys); lo += precheckChunk {
		hi := min(lo+precheckChunk, len(keys))
		var l lookedAt
		err := f.view(func(tx *bolt.Tx) (err error) {
			l, err = lookupKeys(tx, keys[lo:hi])
			return err
		})
		if err != nil {
			for i := lo; i < hi; i++ {
				keys[i].looked = 0
			}
			return at
		}
		at = append(at, l)
		if prechecked != nil {
			prechecked()
		}
	}
	return at
}

// lookedAt is what the seen set was when precheck looked keys up: its next run id
// and its open run (0: none).
type lookedAt struct{ since, sinceOpen uint64 }

// The marks of precheck in a sortKey.
const (
	lookedNew  = 1 // not seen when looked up
	lookedSeen = 2 // a duplicate
)

// lookupKeys looks the URLs of keys, sorted by seen key, up in the seen set as tx
// has it, and marks them.
func lookupKeys(tx *bolt.Tx, keys []sortKey) (lookedAt, error) {
	st, err := decodeSeenState(tx.Bucket(bucketMeta).Get(keySeenSet))
	if err != nil {
		return lookedAt{}, err
	}
	s := newSeenTx(tx, st)
	for i := range keys {
		k := &keys[i]
		if k.reject != 0 {
			continue
		}
		seen, err := s.contains(&k.fp)
		if err != nil {
			return lookedAt{}, err
		}
		k.looked = lookedNew
		if seen {
			k.looked = lookedSeen
		}
	}
	return lookedAt{st.nextID, st.open.id}, nil
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

// clearLookups undoes lookupSeen's marks, after it failed part way.
func clearLookups(ps []prepared) {
	for i := range ps {
		ps[i].dup, ps[i].since, ps[i].sinceOpen = false, 0, 0
	}
}
