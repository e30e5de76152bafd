package frontier

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// The seen set in sorted runs (format 5; see The seen set in doc.go).
//
//   - seen0, level 0: a small B+tree of seen keys, the URLs added one by one (Add of a
//     few entries, Done's links when not staged). Once it holds seenL0Max keys it is
//     written out, in key order, as a run, and emptied.
//   - seenruns: the runs, immutable sorted sets of seen keys. A run is a sequence of
//     blocks, each a key of the run id (8 bytes, big-endian) and the block's first
//     seen key, and a value of up to blockKeys seen keys, sorted, 20 bytes each. A
//     sorted stream of new URLs (a fold, a large Add) writes its keys as a run of its
//     own, block after block, rather than into level 0.
//   - seen, the format-4 seen set: read, never written again.
//
// The meta key "seenset" holds the directory (seenState): the complete runs, the run
// a sorted stream is appending to (open), a merge in progress and the runs merged
// away whose blocks are still to delete. It changes in the same transaction as the
// blocks, so the directory and the blocks always agree; a run is in the directory's
// list of runs only once it is complete.

var (
	bucketSeen0    = []byte("seen0")
	bucketSeenRuns = []byte("seenruns")
	keySeenSet     = []byte("seenset")
)

const (
	seenKeyLen  = len(seenKey{})
	blockKeyLen = 8 + seenKeyLen
)

// Tuning of the seen set; variables for tests.
var (
	// blockKeys is the most seen keys a block holds: 4,000 bytes, so that two blocks
	// and their keys fill two 4 KiB pages. A file written with another value is
	// read as damaged.
	blockKeys = 200
	// seenL0Max is how many keys level 0 holds before it is written out as a run.
	seenL0Max int64 = 16_384
	// seenMinRun is the shortest sorted stream written as a run of its own; shorter
	// ones go to level 0.
	seenMinRun = 1024
	// seenFanIn is how many runs of one tier a merge takes.
	seenFanIn = 4
	// seenMergeBlocks bounds the blocks one commit of a merge writes, and
	// seenDeadBlocks those it deletes of the runs merged away.
	seenMergeBlocks = 256
	seenDeadBlocks  = 512
)

// seenRun is a run in the directory: its id, keys and blocks.
type seenRun struct {
	id        uint64
	n, blocks int64
}

// seenMerge is a merge in progress: the runs it reads (still in the directory's
// runs, and probed, until it ends), the run it writes and the last key written.
type seenMerge struct {
	in   []uint64
	out  seenRun
	last seenKey
}

// seenState is the directory of the seen set, kept in the meta key "seenset".
type seenState struct {
	nextID   uint64    // the next run id; ids start at 1
	l0       int64     // keys in level 0
	runs     []seenRun // complete runs, oldest first
	open     seenRun   // the run a sorted stream appends to; id 0 if none
	openLast seenKey   // the open run's last key
	merge    *seenMerge
	dead     []uint64 // runs merged away, whose blocks are still to delete
}

const seenStateVersion = 1

func (s *seenState) clone() seenState {
	c := *s
	c.runs = slices.Clone(s.runs)
	c.dead = slices.Clone(s.dead)
	if s.merge != nil {
		m := *s.merge
		m.in = slices.Clone(m.in)
		c.merge = &m
	}
	return c
}

func appendRun(dst []byte, r seenRun) []byte {
	dst = binary.AppendUvarint(dst, r.id)
	dst = binary.AppendUvarint(dst, uint64(r.n))
	return binary.AppendUvarint(dst, uint64(r.blocks))
}

func (s *seenState) encode() []byte {
	v := []byte{seenStateVersion}
	v = binary.AppendUvarint(v, s.nextID)
	v = binary.AppendUvarint(v, uint64(s.l0))
	v = binary.AppendUvarint(v, uint64(len(s.runs)))
	for _, r := range s.runs {
		v = appendRun(v, r)
	}
	v = appendRun(v, s.open)
	if s.open.id != 0 {
		v = append(v, s.openLast[:]...)
	}
	if s.merge == nil {
		v = append(v, 0)
	} else {
		v = append(v, 1)
		v = appendRun(v, s.merge.out)
		v = append(v, s.merge.last[:]...)
		v = binary.AppendUvarint(v, uint64(len(s.merge.in)))
		for _, id := range s.merge.in {
			v = binary.AppendUvarint(v, id)
		}
	}
	v = binary.AppendUvarint(v, uint64(len(s.dead)))
	for _, id := range s.dead {
		v = binary.AppendUvarint(v, id)
	}
	return v
}

// maxSeenRuns bounds the lists of a decoded directory, so that a damaged one cannot
// make decodeSeenState allocate much.
const maxSeenRuns = 1 << 16

// decodeSeenState decodes the directory; nil (a file written before runs) is an
// empty one. It returns errCorrupt for anything encode cannot have produced, or a
// directory that names a run twice or an id not below nextID.
func decodeSeenState(v []byte) (seenState, error) {
	s := seenState{nextID: 1}
	if v == nil {
		return s, nil
	}
	r := reader{b: v}
	if r.byte() != seenStateVersion {
		return s, errCorrupt
	}
	run := func() seenRun {
		x := seenRun{id: r.uvarint(), n: int64(r.uvarint()), blocks: int64(r.uvarint())}
		if x.n < 0 || x.blocks < 0 || x.blocks > x.n || x.blocks > math.MaxInt64/int64(blockKeys) || x.n > x.blocks*int64(blockKeys) {
			r.err = true
		}
		return x
	}
	key := func(k *seenKey) {
		if len(r.b) < seenKeyLen {
			r.err = true
			return
		}
		r.b = r.b[copy(k[:], r.b):]
	}
	ids := func() []uint64 {
		n := r.uvarint()
		if n > maxSeenRuns || n > uint64(len(r.b)) {
			r.err = true
			return nil
		}
		var l []uint64
		for range n {
			l = append(l, r.uvarint())
		}
		return l
	}
	s.nextID = r.uvarint()
	s.l0 = int64(r.uvarint())
	n := r.uvarint()
	if n > maxSeenRuns || n > uint64(len(r.b)) {
		return s, errCorrupt
	}
	for range n {
		s.runs = append(s.runs, run())
	}
	s.open = run()
	if s.open.id != 0 {
		key(&s.openLast)
	}
	switch r.byte() {
	case 0:
	case 1:
		m := &seenMerge{}
		m.out = run()
		key(&m.last)
		m.in = ids()
		s.merge = m
	default:
		r.err = true
	}
	s.dead = ids()
	if r.err || len(r.b) != 0 || s.l0 < 0 || s.nextID == 0 {
		return seenState{nextID: 1}, errCorrupt
	}
	// Every id once, below nextID; a merge reads runs of the directory.
	seen := make(map[uint64]bool)
	ok := true
	use := func(id uint64) {
		if id == 0 || id >= s.nextID || seen[id] {
			ok = false
		}
		seen[id] = true
	}
	for _, x := range s.runs {
		use(x.id)
		if x.n == 0 {
			ok = false
		}
	}
	if s.open.id != 0 {
		use(s.open.id)
	} else if s.open.n != 0 || s.open.blocks != 0 {
		ok = false
	}
	for _, id := range s.dead {
		use(id)
	}
	if m := s.merge; m != nil {
		use(m.out.id)
		if len(m.in) < 2 {
			ok = false
		}
		for i, id := range m.in {
			if !slices.ContainsFunc(s.runs, func(x seenRun) bool { return x.id == id }) || slices.Contains(m.in[i+1:], id) {
				ok = false
			}
		}
	}
	if !ok {
		return seenState{nextID: 1}, errCorrupt
	}
	return s, nil
}

// blockKey returns the key of a block of run id whose first seen key is first.
func blockKey(id uint64, first []byte) []byte {
	k := make([]byte, 0, blockKeyLen)
	k = binary.BigEndian.AppendUint64(k, id)
	return append(k, first...)
}

// runPrefix is the first 8 bytes of the keys of run id's blocks.
func runPrefix(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// decodeBlock checks a block of the runs bucket and returns its run id. It returns
// errCorrupt for anything a run writer cannot have produced: a key that is not a
// run id and a seen key, a value that is not 1 to blockKeys seen keys in strictly
// increasing order starting with the key's.
func decodeBlock(k, v []byte) (id uint64, err error) {
	if len(k) != blockKeyLen || len(v) == 0 || len(v) > blockKeys*seenKeyLen || len(v)%seenKeyLen != 0 {
		return 0, errCorrupt
	}
	if !bytes.Equal(k[8:], v[:seenKeyLen]) {
		return 0, errCorrupt
	}
	for i := seenKeyLen; i < len(v); i += seenKeyLen {
		if bytes.Compare(v[i-seenKeyLen:i], v[i:i+seenKeyLen]) >= 0 {
			return 0, errCorrupt
		}
	}
	return binary.BigEndian.Uint64(k), nil
}

// blockHas reports whether the keys of a checked block include k.
func blockHas(v []byte, k []byte) bool {
	lo, hi := 0, len(v)/seenKeyLen
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := cmpSeen(v[m*seenKeyLen:(m+1)*seenKeyLen], k); {
		case c == 0:
			return true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return false
}

// blockView is the block of a run that a lookup read last: its keys and the range of
// seen keys it answers for, [first, next), next nil for the last block. The fold
// looks keys up in ascending order, so the next ones often fall in the same block.
type blockView struct {
	id    uint64 // the run's
	first seenKey
	next  *seenKey
	keys  []byte
}

func (bv *blockView) covers(k []byte) bool {
	return cmpSeen(k, bv.first[:]) >= 0 && (bv.next == nil || cmpSeen(k, bv.next[:]) < 0)
}

// cmpSeen is bytes.Compare of two seen keys: most differ in their first 8 bytes,
// compared as one number.
func cmpSeen(a, b []byte) int {
	x, y := binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8])
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return bytes.Compare(a[8:seenKeyLen], b[8:seenKeyLen])
}

// seenTx is the seen set inside a transaction: the directory as this transaction
// leaves it, the buckets, the open run's writer and the blocks looked at.
type seenTx struct {
	st     seenState
	l0     *bolt.Bucket
	runs   *bolt.Bucket // nil in a format-4 file opened read-only
	legacy *bolt.Bucket
	views  []*blockView // by index in st.runs, checked against the run's id
	w      *runWriter   // the open run's, once written to in this transaction
	stream bool         // a sorted stream is adding URLs (addRun)
	// The keys the sorted stream added and put has not written yet: those go to
	// the open run, the others (added by the batch's other operations, in no
	// order) to level 0.
	fromStream map[seenKey]struct{}
	dirty      bool // st changed
}

// added notes that the batch added k, new to the seen set.
func (s *seenTx) added(k *seenKey) {
	if s.stream {
		if s.fromStream == nil {
			s.fromStream = make(map[seenKey]struct{})
		}
		s.fromStream[*k] = struct{}{}
	}
}

func newSeenTx(tx *bolt.Tx, st seenState) *seenTx {
	s := &seenTx{st: st, l0: tx.Bucket(bucketSeen0), runs: tx.Bucket(bucketSeenRuns),
		legacy: tx.Bucket(bucketSeen)}
	if s.runs != nil {
		s.runs.FillPercent = 1 // keys arrive in order: fill each page
	}
	return s
}

// contains reports whether k is in the seen set: level 0, a run, the open run or
// the format-4 seen bucket.
func (s *seenTx) contains(k *seenKey) (bool, error) {
	if s.l0 != nil && s.l0.Get(k[:]) != nil {
		return true, nil
	}
	if len(s.views) < len(s.st.runs) {
		s.views = append(s.views, make([]*blockView, len(s.st.runs)-len(s.views))...)
	}
	for i, r := range s.st.runs {
		if ok, err := s.inRun(r.id, k, &s.views[i]); ok || err != nil {
			return ok, err
		}
	}
	if s.st.open.id != 0 && cmpSeen(k[:], s.st.openLast[:]) <= 0 {
		if ok, err := s.inRun(s.st.open.id, k, nil); ok || err != nil {
			return ok, err
		}
	}
	return s.legacy != nil && s.legacy.Get(k[:]) != nil, nil
}

// containsSince is contains for a key that a lookup found in none of the levels of
// the seen set whose directory had since as its next run id and open as its open
// run: keys are only ever added, to level 0, to the open run, or to a run made since
// (a merge's output included), so those are all it probes.
func (s *seenTx) containsSince(k *seenKey, since, open uint64) (bool, error) {
	if s.l0 != nil && s.l0.Get(k[:]) != nil {
		return true, nil
	}
	if len(s.views) < len(s.st.runs) {
		s.views = append(s.views, make([]*blockView, len(s.st.runs)-len(s.views))...)
	}
	for i, r := range s.st.runs {
		if r.id < since && r.id != open {
			continue
		}
		if ok, err := s.inRun(r.id, k, &s.views[i]); ok || err != nil {
			return ok, err
		}
	}
	if s.st.open.id != 0 && cmpSeen(k[:], s.st.openLast[:]) <= 0 {
		return s.inRun(s.st.open.id, k, nil)
	}
	return false, nil
}

// inRun reports whether run id holds k. view, unless nil (the open run, whose last
// block grows), is where the block read last is kept for the next lookups.
func (s *seenTx) inRun(id uint64, k *seenKey, view **blockView) (bool, error) {
	if view != nil {
		if bv := *view; bv != nil && bv.id == id && bv.covers(k[:]) {
			return blockHas(bv.keys, k[:]), nil
		}
	}
	if s.runs == nil {
		return false, nil
	}
	bk := blockKey(id, k[:])
	c := s.runs.Cursor()
	key, _ := c.Seek(bk)
	if bytes.Equal(key, bk) {
		return true, nil // k is the block's first key
	}
	var v []byte
	var next *seenKey
	if key != nil && bytes.HasPrefix(key, bk[:8]) && len(key) == blockKeyLen {
		next = new(seenKey)
		copy(next[:], key[8:])
	}
	if key == nil {
		key, v = c.Last()
	} else {
		key, v = c.Prev()
	}
	if key == nil || !bytes.HasPrefix(key, bk[:8]) {
		return false, nil // before the run's first key
	}
	if _, err := decodeBlock(key, v); err != nil {
		return false, fmt.Errorf("%w: seen block %x", ErrCorrupt, key)
	}
	if view != nil {
		bv := &blockView{id: id, next: next, keys: v}
		copy(bv.first[:], key[8:])
		*view = bv
	}
	return blockHas(v, k[:]), nil
}

// put adds keys, sorted, never seen before, to the seen set: those of a sorted
// stream to the open run, the others to level 0.
func (s *seenTx) put(keys []seenKey) error {
	for i := range keys {
		k := &keys[i]
		if _, ok := s.fromStream[*k]; ok {
			if s.st.open.id != 0 && bytes.Compare(k[:], s.st.openLast[:]) <= 0 {
				// Another stream (a large Add and a fold in one commit, say): the
				// open run ends and a new one starts.
				if err := s.endOpen(); err != nil {
					return err
				}
			}
			if err := s.appendOpen(k); err != nil {
				return err
			}
			continue
		}
		// keys is the caller's, never changed after: bbolt may keep k until the commit.
		if err := s.l0.Put(k[:], []byte{}); err != nil {
			return err
		}
		s.st.l0++
		s.dirty = true
	}
	clear(s.fromStream)
	if s.w != nil {
		return s.w.flush()
	}
	return nil
}

// appendOpen appends k to the open run, starting one if there is none.
func (s *seenTx) appendOpen(k *seenKey) error {
	if s.w == nil {
		if s.st.open.id == 0 {
			s.st.open = seenRun{id: s.st.nextID}
			s.st.nextID++
		}
		w, err := s.writer(&s.st.open)
		if err != nil {
			return err
		}
		s.w = w
	}
	s.dirty = true
	s.w.add(k)
	s.st.openLast = *k
	return s.w.err
}

// closeRun ends the sorted stream: its run joins the directory's runs.
func (s *seenTx) closeRun() error {
	s.stream = false
	return s.endOpen()
}

// endOpen makes the open run, if any, a complete run of the directory.
func (s *seenTx) endOpen() error {
	if s.w != nil {
		if err := s.w.flush(); err != nil {
			return err
		}
		s.w = nil
	}
	if s.st.open.id == 0 {
		return nil
	}
	if s.st.open.n > 0 {
		s.st.runs = append(s.st.runs, s.st.open)
	}
	s.st.open, s.st.openLast = seenRun{}, seenKey{}
	s.dirty = true
	return nil
}

// runWriter appends keys, in increasing order, to a run: full blocks are put as they
// fill, the last one, partial, by flush (and again, longer, by a later flush).
type runWriter struct {
	b     *bolt.Bucket
	run   *seenRun
	cur   []byte // the keys of the last block, nil once it is full and put
	full  int    // blocks filled by this writer
	err   error
	dirty bool // cur not put since it changed
}

// writer returns a writer that appends to run, reading its last block if partial.
func (s *seenTx) writer(run *seenRun) (*runWriter, error) {
	w := &runWriter{b: s.runs, run: run}
	if run.blocks == 0 {
		return w, nil
	}
	c := s.runs.Cursor()
	var k, v []byte
	if k, _ = c.Seek(runPrefix(run.id + 1)); k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	if k == nil || !bytes.HasPrefix(k, runPrefix(run.id)) {
		return nil, fmt.Errorf("%w: run %d has no blocks, directory says %d", ErrCorrupt, run.id, run.blocks)
	}
	if _, err := decodeBlock(k, v); err != nil {
		return nil, fmt.Errorf("%w: seen block %x", ErrCorrupt, k)
	}
	if len(v) < blockKeys*seenKeyLen {
		w.cur = append(make([]byte, 0, blockKeys*seenKeyLen), v...)
	}
	return w, nil
}

func (w *runWriter) add(k *seenKey) {
	if w.cur == nil {
		w.cur = make([]byte, 0, blockKeys*seenKeyLen)
		w.run.blocks++
	}
	w.cur = append(w.cur, k[:]...)
	w.run.n++
	w.dirty = true
	if len(w.cur) == blockKeys*seenKeyLen {
		// bbolt keeps the slice until the commit: a new one for the next block.
		if err := w.b.Put(blockKey(w.run.id, w.cur[:seenKeyLen]), w.cur); err != nil && w.err == nil {
			w.err = err
		}
		w.cur, w.dirty = nil, false
		w.full++
	}
}

// flush puts the partial last block.
func (w *runWriter) flush() error {
	if w.err != nil || !w.dirty || len(w.cur) == 0 {
		return w.err
	}
	w.dirty = false
	return w.b.Put(blockKey(w.run.id, w.cur[:seenKeyLen]), bytes.Clone(w.cur))
}

// runIter reads the keys of a run in order.
type runIter struct {
	b    *bolt.Bucket
	id   uint64
	keys []byte // the rest of the current block
	key  []byte // the current block's key
	done bool
}

// iter returns an iterator over the keys of run id after after (nil: from the first).
func (s *seenTx) iter(id uint64, after []byte) (*runIter, error) {
	it := &runIter{b: s.runs, id: id}
	c := s.runs.Cursor()
	pfx := runPrefix(id)
	var k, v []byte
	if after == nil {
		k, v = c.Seek(pfx)
	} else {
		bk := blockKey(id, after)
		if k, v = c.Seek(bk); !bytes.Equal(k, bk) {
			if k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
			if !bytes.HasPrefix(k, pfx) {
				k, v = c.Seek(pfx)
			}
		}
	}
	if err := it.load(k, v); err != nil {
		return nil, err
	}
	if after != nil {
		for !it.done && bytes.Compare(it.keys[:seenKeyLen], after) <= 0 {
			if err := it.next(); err != nil {
				return nil, err
			}
		}
	}
	return it, nil
}

func (it *runIter) load(k, v []byte) error {
	if k == nil || !bytes.HasPrefix(k, runPrefix(it.id)) {
		it.done, it.keys = true, nil
		return nil
	}
	if _, err := decodeBlock(k, v); err != nil {
		return fmt.Errorf("%w: seen block %x", ErrCorrupt, k)
	}
	// Copies: the merge writes to the same bucket.
	it.key, it.keys = bytes.Clone(k), bytes.Clone(v)
	return nil
}

// next moves past the current key.
func (it *runIter) next() error {
	if it.keys = it.keys[seenKeyLen:]; len(it.keys) > 0 {
		return nil
	}
	c := it.b.Cursor()
	if k, _ := c.Seek(it.key); !bytes.Equal(k, it.key) {
		return fmt.Errorf("%w: seen block %x gone", ErrCorrupt, it.key)
	}
	return it.load(c.Next())
}

// tier is the merge tier of a run of n keys: 0 below seenMinRun·seenFanIn keys, then
// one more for each factor of seenFanIn, so that runs of like sizes merge and the
// merge of seenFanIn runs of a tier is of the next.
func tier(n int64) int {
	t, size := 0, int64(seenMinRun)*int64(seenFanIn)
	for n >= size && size <= math.MaxInt64/int64(seenFanIn) { // a damaged count: no overflow
		t++
		size *= int64(seenFanIn)
	}
	return t
}

// maintain does one bounded step of the seen set's upkeep, if any is due: write level
// 0 out as a run once full, else go on with (or start) a merge; and delete blocks of
// runs merged away. It writes the directory if it changed.
func (s *seenTx) maintain(meta *bolt.Bucket, tx *bolt.Tx) error {
	if s.runs != nil && s.l0 != nil {
		if s.st.l0 >= seenL0Max {
			if err := s.spill(tx); err != nil {
				return err
			}
		} else if err := s.mergeStep(); err != nil {
			return err
		}
		if err := s.sweep(); err != nil {
			return err
		}
	}
	if !s.dirty {
		return nil
	}
	s.dirty = false
	return meta.Put(keySeenSet, s.st.encode())
}

// spill writes level 0 out as a new run and empties it.
func (s *seenTx) spill(tx *bolt.Tx) error {
	run := seenRun{id: s.st.nextID}
	s.st.nextID++
	w := &runWriter{b: s.runs, run: &run}
	var k seenKey
	c := s.l0.Cursor()
	for key, _ := c.First(); key != nil; key, _ = c.Next() {
		if len(key) != seenKeyLen {
			return fmt.Errorf("%w: seen key %x", ErrCorrupt, key)
		}
		copy(k[:], key)
		w.add(&k)
	}
	if err := w.flush(); err != nil {
		return err
	}
	if run.n != s.st.l0 {
		return fmt.Errorf("%w: level 0 of the seen set has %d keys, directory says %d", ErrCorrupt, run.n, s.st.l0)
	}
	if err := tx.DeleteBucket(bucketSeen0); err != nil {
		return err
	}
	b, err := tx.CreateBucket(bucketSeen0)
	if err != nil {
		return err
	}
	s.l0 = b
	s.st.runs = append(s.st.runs, run)
	s.st.l0 = 0
	s.dirty = true
	return nil
}

// mergeStep goes on with the merge in progress, or starts one once seenFanIn runs are
// of one tier, writing at most seenMergeBlocks blocks.
func (s *seenTx) mergeStep() error {
	m := s.st.merge
	if m == nil {
		byTier := make(map[int][]uint64)
		best := -1
		for _, r := range s.st.runs {
			t := tier(r.n)
			byTier[t] = append(byTier[t], r.id)
			if len(byTier[t]) >= seenFanIn && (best < 0 || t < best) {
				best = t
			}
		}
		if best < 0 {
			return nil
		}
		in := byTier[best][:seenFanIn] // the oldest, as the directory lists them
		m = &seenMerge{in: slices.Clone(in), out: seenRun{id: s.st.nextID}}
		s.st.nextID++
		s.st.merge = m
		s.dirty = true
	}
	var after []byte
	if m.out.n > 0 {
		after = m.last[:]
	}
	its := make([]*runIter, 0, len(m.in))
	for _, id := range m.in {
		it, err := s.iter(id, after)
		if err != nil {
			return err
		}
		its = append(its, it)
	}
	w, err := s.writer(&m.out)
	if err != nil {
		return err
	}
	var k seenKey
	for w.full < seenMergeBlocks {
		var min *runIter
		for _, it := range its {
			if !it.done && (min == nil || bytes.Compare(it.keys[:seenKeyLen], min.keys[:seenKeyLen]) < 0) {
				min = it
			}
		}
		if min == nil {
			break
		}
		copy(k[:], min.keys)
		if m.out.n == 0 || k != m.last {
			w.add(&k)
			m.last = k
		}
		if err := min.next(); err != nil {
			return err
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	s.dirty = true
	if !slices.ContainsFunc(its, func(it *runIter) bool { return !it.done }) {
		// The merged run replaces its inputs, whose blocks sweep deletes.
		s.st.runs = slices.DeleteFunc(s.st.runs, func(r seenRun) bool { return slices.Contains(m.in, r.id) })
		s.st.runs = append(s.st.runs, m.out)
		s.st.dead = append(s.st.dead, m.in...)
		s.st.merge = nil
		s.views = nil // by index in st.runs, which changed
	}
	return nil
}

// sweep deletes up to seenDeadBlocks blocks of runs merged away.
func (s *seenTx) sweep() error {
	n := 0
	for len(s.st.dead) > 0 && n < seenDeadBlocks {
		pfx := runPrefix(s.st.dead[0])
		c := s.runs.Cursor()
		for k, _ := c.Seek(pfx); bytes.HasPrefix(k, pfx); k, _ = c.Seek(pfx) {
			if n == seenDeadBlocks {
				return nil
			}
			if err := c.Delete(); err != nil {
				return err
			}
			n++
		}
		s.st.dead = s.st.dead[1:]
		s.dirty = true
	}
	return nil
}

// checkSeen reads every seen key and block against the directory, as tx has it (the
// one in memory may be a commit ahead or behind): keys of the right size, blocks as
// decodeBlock wants them, the blocks of a run in increasing order without overlap,
// each run with the keys and blocks the directory counts, no block of a run the
// directory does not name.
func checkSeen(tx *bolt.Tx) error {
	st, err := decodeSeenState(tx.Bucket(bucketMeta).Get(keySeenSet))
	if err != nil {
		return fmt.Errorf("%w: seen set directory %x", ErrCorrupt, tx.Bucket(bucketMeta).Get(keySeenSet))
	}
	err = tx.Bucket(bucketSeen).ForEach(func(k, v []byte) error {
		if len(k) != seenKeyLen || len(v) != 0 {
			return fmt.Errorf("%w: seen key %x", ErrCorrupt, k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if b := tx.Bucket(bucketSeen0); b != nil {
		var n int64
		err := b.ForEach(func(k, v []byte) error {
			if len(k) != seenKeyLen || len(v) != 0 {
				return fmt.Errorf("%w: level-0 seen key %x", ErrCorrupt, k)
			}
			n++
			return nil
		})
		if err != nil {
			return err
		}
		if n != st.l0 {
			return fmt.Errorf("%w: level 0 of the seen set has %d keys, directory says %d", ErrCorrupt, n, st.l0)
		}
	}
	want := make(map[uint64]seenRun) // runs with a count to match
	for _, r := range st.runs {
		want[r.id] = r
	}
	lastOf := make(map[uint64]seenKey)
	if st.open.id != 0 {
		want[st.open.id] = st.open
		lastOf[st.open.id] = st.openLast
	}
	if st.merge != nil {
		want[st.merge.out.id] = st.merge.out
		if st.merge.out.n > 0 {
			lastOf[st.merge.out.id] = st.merge.last
		}
	}
	dead := make(map[uint64]bool)
	for _, id := range st.dead {
		dead[id] = true
	}
	got := make(map[uint64]seenRun)
	var prevKey, prevLast []byte
	b := tx.Bucket(bucketSeenRuns)
	if b == nil {
		if len(want) > 0 {
			return fmt.Errorf("%w: no bucket %q, directory lists %d runs", ErrCorrupt, bucketSeenRuns, len(want))
		}
		return nil
	}
	err = b.ForEach(func(k, v []byte) error {
		id, err := decodeBlock(k, v)
		if err != nil {
			return fmt.Errorf("%w: seen block %x", ErrCorrupt, k)
		}
		if dead[id] {
			return nil
		}
		if _, ok := want[id]; !ok {
			return fmt.Errorf("%w: seen block %x of no run in the directory", ErrCorrupt, k)
		}
		if prevKey != nil && bytes.Equal(prevKey[:8], k[:8]) && bytes.Compare(prevLast, v[:seenKeyLen]) >= 0 {
			return fmt.Errorf("%w: seen block %x overlaps the one before", ErrCorrupt, k)
		}
		// Only the last block of a run may be partial.
		if prevKey != nil && bytes.Equal(prevKey[:8], k[:8]) && got[id].n != got[id].blocks*int64(blockKeys) {
			return fmt.Errorf("%w: seen block %x follows a partial one", ErrCorrupt, k)
		}
		r := got[id]
		r.n += int64(len(v) / seenKeyLen)
		r.blocks++
		got[id] = r
		prevKey, prevLast = k, v[len(v)-seenKeyLen:]
		if last, ok := lastOf[id]; ok && bytes.Compare(prevLast, last[:]) > 0 {
			return fmt.Errorf("%w: seen block %x goes past its run's last key", ErrCorrupt, k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for id, w := range want {
		if g := got[id]; g.n != w.n || g.blocks != w.blocks {
			return fmt.Errorf("%w: seen run %d has %d keys in %d blocks, directory says %d in %d",
				ErrCorrupt, id, g.n, g.blocks, w.n, w.blocks)
		}
	}
	return nil
}

// seenFigures returns the runs of the seen set (the open run included) and the keys
// in level 0, for Stats.
func (s *seenState) figures() (runs int, l0 int64) {
	runs = len(s.runs)
	if s.open.id != 0 {
		runs++
	}
	return runs, s.l0
}

// sortKeys sorts seen keys in increasing order.
func sortKeys(ks []seenKey) {
	slices.SortFunc(ks, func(x, y seenKey) int { return cmpSeen(x[:], y[:]) })
}
