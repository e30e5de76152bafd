package frontier

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Staging (when Options.LinkBatch > 0). Done does not queue a page's links one by one:
// it writes them, in the same transaction, as one record of the staged bucket, whose
// keys only grow, so the write touches the end of one small tree. Once
// Options.LinkBatch links are staged, a fold merges them into the seen set and the
// queues: it reads the staged records (up to Options.FoldLinks links) into an index
// of where each link lies, sorts it by seen key (host hash, then fingerprint) and
// queues the links in that order over as many commits as it takes, each reading and
// decoding only its own links (foldindex.go) and rewriting at most foldNodes B+tree
// nodes. Sorted, the links of one host, and of
// hosts whose keys are neighbours, come together, so each host's queue tail is
// rewritten once per fold rather than once per link and the fold's new seen keys are
// appended as one sorted run (seenset.go; IRLbot's DRUM and Mercator's batched
// URL-seen test); and since the
// chunks follow key order, splitting a fold over commits to bound its memory loses
// none of that sharing. The meta key "fold" records the last record of the fold and
// how many of its sorted links are queued, so a fold cut by a crash goes on where it
// stopped.
//
// A fold's records leave the staged bucket after it, a few at a time: its last
// commit sets the meta key "folded" to its last record, and from then on each commit
// deletes the log's first keys up to that record until it has rewritten deleteNodes
// nodes (deleting the records of a fold of 1M links in one commit rewrote 55,310
// nodes, 30 MiB of heap). The records up to the mark are in the queues already: the
// next fold, which may start before they are gone, the replay at Open and Check pass
// over them, reading their keys only (the first may have lost its first parts).
//
// Each link gets its queue sequence number when it is staged, so a host's links keep
// the order in which they were found whatever the order of the fold. Within a fold,
// duplicates and the limits (MaxTotal, MaxQueuedPerHost) are decided in seen-key
// order, the first staged of two equal URLs winning.
//
// Staged links are durable but not yet queued: they are neither duplicates nor added,
// limits apply to them when they are folded, and Stats counts them apart (Staged). Next
// folds them early rather than wait or end the crawl, and Flush folds them on demand.

// cStaged counts the links staged and not yet folded.
const cStaged = "staged"

var (
	bucketStaged = []byte("staged")
	keyFold      = []byte("fold")
	keyFolded    = []byte("folded") // the last log record folded in, while records up to it are left
)

// stagedVersion is the first byte of a staged record that carries sequence numbers.
// Records written before had none and start with a host's length, never 0.
const stagedVersion = 0

// foldState is a fold in progress: the links of the staged records up to last,
// sorted by seen key (where they lie in recs: foldindex.go), of which the first pos
// are queued; then the queue changes those records logged, by key, of which the
// first opPos are applied; then the dirty host records, by name, of which the first
// hostPos are written.
type foldState struct {
	last    []byte
	lastKey uint64
	recs    []foldRec
	idx     *foldIndex
	pos     int
	ops     []foldOp
	opPos   int
	opKey   []byte // the last queue change applied, when the file records it
	hosts   []*host
	hostPos int
	phase   int
	reader  *foldReader // reads the links ahead, from the commit after the first (foldread.go)
}

// The phases of a fold.
const (
	phaseLinks = iota
	phaseOps
	phaseHosts
)

// stage keeps p's link for the batch's staged record.
func (b *batch) stage(p *prepared) {
	b.seq++
	p.seq = b.seq
	b.stagedLinks = append(b.stagedLinks, *p)
	b.count(cStaged, 1)
}

// appendStaged encodes p as a part of a staged record.
func appendStaged(dst []byte, p *prepared) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(p.host)))
	dst = append(dst, p.host...)
	dst = append(dst, p.fp[:]...)
	dst = binary.AppendVarint(dst, int64(clamp32(p.e.Priority)))
	dst = binary.AppendVarint(dst, int64(clamp32(p.e.Depth)))
	dst = binary.AppendUvarint(dst, p.seq)
	dst = binary.AppendUvarint(dst, uint64(len(p.val)))
	return append(dst, p.val...)
}

// decodeStaged appends the links of a staged record to dst. It returns errCorrupt for
// anything flushStaged cannot have produced, now or before sequence numbers.
func decodeStaged(dst []prepared, rec []byte) ([]prepared, error) {
	withSeq := len(rec) > 0 && rec[0] == stagedVersion
	if withSeq {
		rec = rec[1:]
		if len(rec) == 0 {
			return dst, errCorrupt
		}
	}
	return decodeStagedLinks(dst, rec, withSeq)
}

// decodeStagedLinks appends the links encoded in b by appendStaged to dst. Their
// values alias b.
func decodeStagedLinks(dst []prepared, b []byte, withSeq bool) ([]prepared, error) {
	r := reader{b: b}
	for len(r.b) > 0 && !r.err {
		var p prepared
		p.host = r.bytes()
		if len(r.b) < len(p.fp) {
			return dst, errCorrupt
		}
		r.b = r.b[copy(p.fp[:], r.b):]
		p.e.Priority = r.int()
		p.e.Depth = r.int()
		if withSeq {
			if p.seq = r.uvarint(); p.seq == 0 {
				r.err = true
			}
		}
		p.val = r.raw()
		if r.err || p.host == "" {
			return dst, errCorrupt
		}
		dst = append(dst, p)
	}
	if r.err {
		return dst, errCorrupt
	}
	return dst, nil
}

// shouldFold reports whether this batch folds the log in.
func (b *batch) shouldFold() bool {
	f := b.f
	if f.fold != nil || f.foldPending {
		return true
	}
	staged := b.counter(cStaged)
	if b.folding {
		return staged > 0 || f.logLen > 0 || len(b.logOps) > 0
	}
	return staged > 0 && staged >= f.foldAt() || f.pendN+b.newPend >= f.logBatch || f.hot
}

// foldAt is how many staged links start a fold: LinkBatch, or, when Done stages
// none and only Stage does, a fold's span.
func (f *Frontier) foldAt() int64 {
	if f.linkBatch > 0 {
		return int64(f.linkBatch)
	}
	return int64(f.foldSpan())
}

// foldNodes bounds the B+tree nodes one commit of a fold may rewrite, and addNodes
// those of one commit of a large Add, so that memory stays bounded however scattered
// the URLs: bbolt holds each rewritten node in memory until the commit, and writes
// it to a new buffer then. A fold runs beside the crawl and takes the smaller budget:
// at 10M URLs, 512 nodes hold the largest RssAnon at 106-122 MiB, and what a larger
// budget would cost in memory pays for a larger ResidentMap instead (BENCHMARKS.md,
// "Figures moved out of the code's comments"). An Add returns only once its last
// commit is done. foldCheck is how many links a fold
// queues between two looks at that count.
// deleteNodes bounds those the deletion of folded records rewrites in one commit,
// beside the fold's own: a log record's leaf holds four keys and is rewritten for
// nothing but the deletion, so it costs less than a fold's node.
var (
	foldNodes   int64 = 512 // variables for tests
	addNodes    int64 = 8192
	deleteNodes int64 = 1024
	foldCheck         = 512
)

// foldLinks is the most links a fold sorts in memory at once: it bounds the memory a
// fold holds between commits, foldLinkSize bytes per link.
func (f *Frontier) foldLinks() int { return cmp.Or(max(f.opts.FoldLinks, 0), defaultFoldLinks) }

// foldSpan is the most links one fold takes in, in whole records: LinkBatch, or
// Options.FoldLinks (defaultFoldSpan when it is 0) if that is more. Beyond
// foldLinks, the fold's index is sorted in chunks written to temporary files (see
// foldIndex).
func (f *Frontier) foldSpan() int {
	if f.opts.FoldLinks > 0 {
		return max(f.linkBatch, f.opts.FoldLinks)
	}
	return max(f.linkBatch, defaultFoldSpan)
}

func nodeCount(tx *bolt.Tx) int64 {
	s := tx.Stats()
	return s.GetNodeCount()
}

// foldStep goes on with the fold in progress, starting one if there is none, until
// this transaction has rewritten foldNodes nodes or the fold is over.
func (b *batch) foldStep() error {
	f := b.f
	if f.fold == nil {
		if err := b.startFold(); err != nil || f.fold == nil {
			return err
		}
	}
	fs := f.fold
	// Each step takes at least one group of changes, so that a fold cut after every
	// commit still ends.
	start := nodeCount(b.tx)
	full := func() bool { return nodeCount(b.tx)-start >= foldNodes }
	if fs.phase == phaseLinks {
		var err error
		var ps []prepared
		b.logHosts = true
		fs.pos, _, err = b.addRun(fs.idx.len(), fs.pos, foldNodes, func(from, to int) ([]prepared, error) {
			b.count(cStaged, -int64(to-from))
			if b.counter(cStaged) < 0 {
				return nil, fmt.Errorf("%w: more links staged than counted", ErrCorrupt)
			}
			var err error
			if ps, err = b.takeLinks(fs, ps[:0], to-from); err != nil {
				return nil, err
			}
			return ps, b.applyHostOps(ps, fs.lastKey)
		})
		b.logHosts = false
		if err != nil {
			return err
		}
		v := binary.AppendUvarint(bytes.Clone(fs.last), uint64(fs.pos))
		if err := b.meta.Put(keyFold, v); err != nil {
			return err
		}
		if fs.pos < fs.idx.len() {
			return nil
		}
		// The rest of the fold is redone whole after a crash: applying a change
		// again changes nothing.
		fs.close()
		fs.idx, fs.recs, fs.phase = nil, nil, phaseOps
		fs.ops = b.foldOps(fs.lastKey)
		if fs.opKey != nil {
			// Those up to opKey were applied before a crash.
			i, found := slices.BinarySearchFunc(fs.ops, fs.opKey, func(op foldOp, k []byte) int { return bytes.Compare(op.key, k) })
			if found {
				i++
			}
			fs.opPos = i
			b.unpend = append(b.unpend, fs.ops[:i]...)
			b.unpendLast = fs.lastKey
		}
	}
	if fs.phase == phaseOps {
		for i := 0; fs.opPos < len(fs.ops) && (i == 0 || !full()); i++ {
			end := min(fs.opPos+foldCheck, len(fs.ops))
			for _, op := range fs.ops[fs.opPos:end] {
				if err := b.applyOp(op.key, op.val); err != nil {
					return err
				}
			}
			b.unpend = append(b.unpend, fs.ops[fs.opPos:end]...)
			b.unpendLast = fs.lastKey
			fs.opPos = end
			f.checkMapped() // the changes read queue pages all over the file
		}
		// Recorded so that the next Open goes on from here. (The host records
		// need no mark: those written are no longer older than the log.)
		if fs.opPos > 0 {
			v := binary.AppendUvarint(bytes.Clone(fs.last), uint64(fs.pos))
			if err := b.meta.Put(keyFold, append(v, fs.ops[fs.opPos-1].key...)); err != nil {
				return err
			}
		}
		if fs.opPos < len(fs.ops) {
			return nil
		}
		fs.ops, fs.phase = nil, phaseHosts
		// The dirty hosts, and those this batch logged: its record is one of the fold's.
		dirty := maps.Clone(f.dirty)
		for _, ht := range b.hosts {
			if ht.logged && ht.h != nil {
				dirty[ht.h] = struct{}{}
			}
		}
		fs.hosts = slices.SortedFunc(maps.Keys(dirty), func(x, y *host) int { return strings.Compare(x.name, y.name) })
	}
	for i := 0; fs.hostPos < len(fs.hosts) && (i == 0 || !full()); i++ {
		end := min(fs.hostPos+foldCheck, len(fs.hosts))
		for _, h := range fs.hosts[fs.hostPos:end] {
			ht := b.host(h.name, false)
			if err := b.hostsB.Put([]byte(h.name), ht.rec.encode()); err != nil {
				return err
			}
		}
		fs.hostPos = end
		f.checkMapped()
	}
	if fs.hostPos < len(fs.hosts) {
		return nil
	}
	// The fold is in. Its records go over the next commits (deleteFolded): the mark
	// keeps them from being folded again meanwhile.
	f.fold, f.folded = nil, fs.lastKey
	if err := b.meta.Put(keyFolded, fs.last); err != nil {
		return err
	}
	return b.meta.Delete(keyFold)
}

// deleteFolded deletes log records folded in (up to f.folded), until this
// transaction has rewritten deleteNodes nodes more or none is left.
func (b *batch) deleteFolded() error {
	f := b.f
	if f.folded == 0 {
		return nil
	}
	start := nodeCount(b.tx)
	n, done, err := deleteRecords(b.staged, f.folded, func() bool { return nodeCount(b.tx)-start >= deleteNodes })
	b.logDeleted += n
	f.checkMapped()
	if err != nil || !done {
		return err
	}
	f.folded = 0
	return b.meta.Delete(keyFolded)
}

// applyHostOps applies, for each host of ps not seen yet by this batch, the queue
// changes it has pending from records up to last: the links queued next rewrite
// the host's queue pages anyway, and the fold's pass over the queue changes, in key
// order, would rewrite them a second time. Applying a change again changes nothing,
// so the pass that follows (or a fold redone after a crash) may meet them again.
func (b *batch) applyHostOps(ps []prepared, last uint64) error {
	for i := range ps {
		h := b.f.hosts[ps[i].host]
		if h == nil || h.pend == nil {
			continue
		}
		if b.opsApplied == nil {
			b.opsApplied = make(map[*host]struct{})
		}
		if _, ok := b.opsApplied[h]; ok {
			continue
		}
		b.opsApplied[h] = struct{}{}
		if ht := b.hosts[h.name]; ht != nil && len(ht.ops) > 0 {
			// This batch changed the host's queue too: the pass in key order
			// takes both, the batch's change last.
			continue
		}
		for _, p := range h.pending() {
			if p.rec > last || p.rec == 0 {
				continue
			}
			k := bytes.Clone(p.key[:]) // bbolt keeps it until the commit
			if err := b.applyOp(k, p.val); err != nil {
				return err
			}
			b.unpend = append(b.unpend, foldOp{h: h, key: k, val: p.val})
			b.unpendLast = last
		}
	}
	return nil
}

// applyOp writes a logged queue change to the queue bucket: val under key, or, for a
// nil val, key deleted.
func (b *batch) applyOp(key, val []byte) error {
	if val == nil {
		return b.queue.Delete(key)
	}
	return b.queue.Put(key, val)
}

// foldOp is a queue change a fold applies.
type foldOp struct {
	h        *host
	key, val []byte // val nil: delete
}

// foldOps returns the queue changes logged by the records up to last, sorted by key:
// those committed and those of this batch, whose record is one of them. A key
// changed again by a later record is left for the fold of that one.
func (b *batch) foldOps(last uint64) []foldOp {
	ops := make(map[string]foldOp)
	for _, h := range b.f.hosts {
		for _, p := range h.pending() {
			if p.rec <= last {
				k := bytes.Clone(p.key[:])
				ops[string(k)] = foldOp{h: h, key: k, val: p.val}
			}
		}
	}
	for _, op := range b.logged {
		if op.rec <= last {
			ops[string(op.key)] = foldOp{h: op.ht.h, key: op.key, val: op.val}
		}
	}
	return slices.SortedFunc(maps.Values(ops), func(x, y foldOp) int { return bytes.Compare(x.key, y.key) })
}

// addHost returns the batch's copy of the record of the host a link is added to,
// creating the host if it is new. While a fold queues its links (logHosts), the
// record of a known host goes to the batch's log record rather than to the hosts
// bucket, as a Done's does, and the fold's last steps write it: the links of one
// commit of a fold touch hosts all over the hosts tree, which each commit rewrote
// whole. A new host is written at once: the log holds only known hosts.
func (b *batch) addHost(name string) *hostTx {
	if b.logHosts {
		if ht := b.hostTx(name, false); ht != nil && ht.h != nil {
			// In the batch's log record again if a Done's part of it holds the host.
			ht.logged, ht.flushed = true, false
			return ht
		}
	}
	return b.host(name, true)
}

// addSlice is addRun of the links of ps.
func (b *batch) addSlice(ps []prepared, pos int, budget int64) (next, added int, err error) {
	return b.addRun(len(ps), pos, budget, func(from, to int) ([]prepared, error) { return ps[from:to], nil })
}

// linksPerNode bounds the links one commit of addRun takes in, per node of its
// budget. The node count sees a commit's writes only where they land in nodes
// already there: links appended at the right end of the queue tree (those of hosts
// the same fold created, whose ids follow its order) all go into its last leaf,
// which bbolt splits only at the commit, so without this bound one commit took a
// whole fold (2 GiB of memory for 4M links). Eight links of about 250 bytes per
// 4 KiB node keep such a commit within its budget's pages.
const linksPerNode = 8

// addRun adds links pos to n of a sequence sorted by seen key, until this
// transaction has rewritten budget nodes or taken in budget·linksPerNode links, or
// the n are done, and returns where it stopped and how many it added. group returns
// the links [from, to), foldCheck at most; they are the batch's until its commit.
func (b *batch) addRun(n, pos int, budget int64, group func(from, to int) ([]prepared, error)) (next, added int, err error) {
	// The seen keys of a long sorted stream go to a run of their own (seenset.go).
	b.seen.stream = n >= seenMinRun
	defer func() {
		if err == nil && next == n {
			err = b.seen.closeRun()
		}
		b.seen.stream = false
	}()
	nodes, limit := nodeCount(b.tx), pos+int(min(budget*linksPerNode, int64(n)))
	for pos < n && nodeCount(b.tx)-nodes < budget && pos < limit {
		end := min(pos+foldCheck, n, limit)
		ps, err := group(pos, end)
		if err != nil {
			return pos, added, err
		}
		for i := range ps {
			ok, err := b.add(&ps[i])
			if err != nil {
				return pos, added, err
			}
			if ok {
				added++
			}
		}
		pos = end
		// Written now, so that the node count includes them.
		if err := b.putNew(); err != nil {
			return pos, added, err
		}
		// A group reads pages all over the seen set and the queue, faster than the
		// watcher's ticks come on a loaded machine: check between groups too.
		b.f.checkMapped()
	}
	return pos, added, nil
}

// startFold reads the staged records of the next fold, or of the fold the file
// records as in progress, and sorts their links.
func (b *batch) startFold() error {
	f := b.f
	var last, opKey []byte
	pos := uint64(0)
	resume := b.meta.Get(keyFold)
	if resume != nil {
		if len(resume) < 8 {
			return fmt.Errorf("%w: fold record %x", ErrCorrupt, resume)
		}
		var n int
		last = resume[:8]
		if pos, n = binary.Uvarint(resume[8:]); n <= 0 || 8+n != len(resume) && 8+n+keySize != len(resume) {
			return fmt.Errorf("%w: fold record %x", ErrCorrupt, resume)
		}
		opKey = bytes.Clone(resume[8+n:])
	}
	f.foldPending, f.hot = false, false
	read := 0
	recs, idx, err := indexLog(b.staged, f.folded, func(key []byte, links int) bool {
		if resume != nil {
			return bytes.Compare(key, last) <= 0
		}
		if read++; read%64 == 0 {
			f.checkMapped() // the log is read whole, a record at a time
		}
		return links < f.foldSpan()
	}, f.foldLinks(), int(min(b.counter(cStaged), int64(f.foldLinks()))), filepath.Dir(f.db.Path()))
	if err != nil {
		return err
	}
	keep := false
	defer func() {
		if !keep {
			idx.close()
		}
	}()
	var lastKey []byte
	if len(recs) > 0 {
		lastKey = binary.BigEndian.AppendUint64(nil, recs[len(recs)-1].key)
	}
	if resume != nil && (!bytes.Equal(lastKey, last) || pos > uint64(idx.len())) {
		return fmt.Errorf("%w: fold record %x does not match the staged records", ErrCorrupt, resume)
	}
	if lastKey == nil {
		// Nothing is staged; a counter that says otherwise would make Flush loop.
		if n := b.counter(cStaged); n != 0 {
			return fmt.Errorf("%w: no links staged, counter says %d", ErrCorrupt, n)
		}
		return nil
	}
	// The links queued before a crash come first in the same order: pass over them.
	if err := idx.skip(int(pos)); err != nil {
		return err
	}
	f.fold = &foldState{last: lastKey, lastKey: binary.BigEndian.Uint64(lastKey), recs: recs, idx: idx, pos: int(pos), opKey: opKey}
	keep = true
	return nil
}

// Flush folds the whole log into the queues and host records now, in as many
// commits as that takes, and returns once they are committed. Next folds by itself
// before it would wait or end the crawl; Flush is for callers that want Stats to
// count every link found so far as queued or as a duplicate.
func (f *Frontier) Flush(ctx context.Context) error {
	for {
		if err := f.foldOnce(ctx); err != nil {
			return err
		}
		f.mu.Lock()
		left := f.counters[cStaged] > 0 || f.logLen > 0
		f.mu.Unlock()
		if !left {
			return nil
		}
	}
}

// foldOnce commits one chunk of a fold, at most foldNodes nodes' worth.
func (f *Frontier) foldOnce(ctx context.Context) error {
	return f.do(ctx, &op{apply: func(b *batch) error {
		b.folding = true
		return nil
	}})
}

// sortBySeen sorts ps by seen key, keeping the order of equal keys. It sorts indexes
// and moves each element once: a prepared is large, and a sort that swaps them spent
// more time moving memory than comparing keys.
func sortBySeen(ps []prepared) {
	idx := make([]int32, len(ps))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(x, y int32) int {
		if c := cmpSeen(ps[x].fp[:], ps[y].fp[:]); c != 0 {
			return c
		}
		return int(x - y)
	})
	// Position i must receive ps[idx[i]]: follow each cycle of the permutation.
	for i := range idx {
		if idx[i] < 0 {
			continue
		}
		tmp := ps[i]
		j := i
		for {
			k := int(idx[j])
			idx[j] = -1
			if k == i {
				ps[j] = tmp
				break
			}
			ps[j] = ps[k]
			j = k
		}
	}
}
