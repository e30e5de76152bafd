package frontier

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// The Done log. Done does not rewrite its host's record and its queue's head page: it
// logs what changed, in the transaction that finishes the lease, as part of the one
// record its commit appends to the staged bucket (whose keys only grow, so the write
// touches the rightmost leaf and its branch). A log record holds:
//
//   - the records of the hosts whose outcomes it logs, as they are after the commit,
//     each stamped with the record's key;
//   - the queue changes: a finished, failed or skipped URL's key to delete, a retried
//     URL's key to put again with its new attempt count, a refetched URL's new key;
//   - the links staged by the commit (see stage.go), if any.
//
// Every change is absolute (a value to put, a key to delete, a whole host record), so
// applying a record again changes nothing: a fold cut by a crash is redone from its
// records, which leave the log only once the fold is in, marked folded meanwhile
// (stage.go). A host record written to the hosts bucket carries the key of the last
// log record that held the host; at Open a logged record replaces it only if its key
// is greater.
//
// Until a fold writes them, the changes live in memory too: the host records in
// host.rec (marked dirty), the queue changes in host.pend, which Next reads over the
// queue bucket so that a URL finished in the log is never handed out again and a
// retried one comes back with its new attempt count. A fold applies the queue changes
// of its records sorted by key and writes the dirty host records sorted by name, over
// as many commits as keep each to foldNodes rewritten nodes, after its staged links.

// logVersion is the first byte of a log record; staged records (links only) start
// with stagedVersion or, before that, a host's length.
const logVersion = 1

// pendOp is a logged queue change not yet folded in: the value to put, or nil to
// delete, and the key of the log record that made it (0 inside the batch making it).
type pendOp struct {
	val []byte
	rec uint64
}

// pendEntry is a queue change logged and not yet folded in, under its queue key.
type pendEntry struct {
	key [keySize]byte
	pendOp
}

// pendList is a host's queue changes logged and not yet folded in, sorted by key,
// one per key: 64 bytes each (and the put value), where a map of a few keys took
// about 450 bytes, and most hosts have one or two (LogBatch changes over all the
// hosts). A host has at most about hostPendMax of them, so that an insertion's
// copy stays small. Queue keys are keySize bytes long.
type pendList []pendEntry

// search returns where k is, or would be inserted, and whether it is there.
func (p pendList) search(k []byte) (int, bool) {
	return slices.BinarySearchFunc(p, k, func(e pendEntry, k []byte) int { return bytes.Compare(e.key[:], k) })
}

// get returns the change of key k.
func (p pendList) get(k []byte) (pendOp, bool) {
	if i, ok := p.search(k); ok {
		return p[i].pendOp, true
	}
	return pendOp{}, false
}

// set makes op the change of key k, and reports whether k had none.
func (p *pendList) set(k []byte, op pendOp) bool {
	i, ok := p.search(k)
	if ok {
		(*p)[i].pendOp = op
		return false
	}
	e := pendEntry{pendOp: op}
	copy(e.key[:], k)
	*p = slices.Insert(*p, i, e)
	return true
}

// remove drops the change of key k, if it has one.
func (p *pendList) remove(k []byte) {
	if i, ok := p.search(k); ok {
		*p = slices.Delete(*p, i, i+1)
	}
}

// logOp is a queue change of a batch, for its log record.
type logOp struct {
	ht       *hostTx
	key, val []byte // val nil: delete
}

// Folding triggers. A fold starts once logBatch queue changes are pending (or
// LinkBatch links are staged), or once one host has hostPendMax of them, since Next
// reads over a host's pending changes to find its head.
const (
	defaultLogBatch = 50_000
	hostPendMax     = 512
)

// logPut and logDelete record a queue change of a Done in the batch.
func (b *batch) logPut(ht *hostTx, key, val []byte) { b.logChange(ht, key, val) }

func (b *batch) logDelete(ht *hostTx, key []byte) { b.logChange(ht, key, nil) }

func (b *batch) logChange(ht *hostTx, key, val []byte) {
	if ht.ops == nil {
		ht.ops = make(map[string]pendOp)
	}
	if _, ok := ht.overlay().get(key); !ok {
		b.newPend++
	}
	ht.ops[string(key)] = pendOp{val: val}
	ht.logged = true
	b.logOps = append(b.logOps, logOp{ht: ht, key: key, val: val})
}

// flushLog appends the batch's log record, if it has anything to log: the logged
// hosts not written to the hosts bucket by this batch, the queue changes and the
// staged links.
func (b *batch) flushLog() error {
	var hosts []*hostTx
	for _, ht := range b.hosts {
		if ht.logged && !ht.direct && !ht.flushed {
			hosts = append(hosts, ht)
		}
	}
	if len(hosts) == 0 && len(b.logOps) == 0 && len(b.stagedLinks) == 0 {
		return nil
	}
	b.seq++
	key := b.seq
	if len(hosts) == 0 && len(b.logOps) == 0 {
		rec := encodeStagedRecord(b.stagedLinks)
		b.stagedLinks = b.stagedLinks[:0]
		b.logWritten++
		return b.putRecord(key, rec)
	}
	lhs := make([]logHost, len(hosts))
	for i, ht := range hosts {
		ht.rec.stamp = key
		ht.flushed = true
		lhs[i] = logHost{name: ht.name, rec: ht.rec}
	}
	rec := encodeLog(lhs, b.logOps, b.stagedLinks)
	b.stagedLinks = b.stagedLinks[:0]
	for _, op := range b.logOps {
		b.logged = append(b.logged, loggedOp{logOp: op, rec: key})
	}
	b.logOps = b.logOps[:0]
	b.logWritten++
	return b.putRecord(key, rec)
}

// encodeLog encodes a log record: host records, queue changes and staged links.
func encodeLog(hosts []logHost, ops []logOp, links []prepared) []byte {
	size := 1 + 2*binary.MaxVarintLen64 + stagedCap(links)
	for _, lh := range hosts {
		size += len(lh.name) + logHostSize
	}
	for _, op := range ops {
		size += len(op.key) + binary.MaxVarintLen64 + len(op.val)
	}
	rec := append(make([]byte, 0, size), logVersion)
	rec = binary.AppendUvarint(rec, uint64(len(hosts)))
	for _, lh := range hosts {
		rec = binary.AppendUvarint(rec, uint64(len(lh.name)))
		rec = append(rec, lh.name...)
		var buf [hostRecordMax]byte
		enc := lh.rec.appendTo(buf[:0])
		rec = binary.AppendUvarint(rec, uint64(len(enc)))
		rec = append(rec, enc...)
	}
	rec = binary.AppendUvarint(rec, uint64(len(ops)))
	for _, op := range ops {
		rec = append(rec, op.key...)
		if op.val == nil {
			rec = append(rec, 0)
			continue
		}
		rec = binary.AppendUvarint(rec, uint64(len(op.val))+1)
		rec = append(rec, op.val...)
	}
	for i := range links {
		rec = appendStaged(rec, &links[i])
	}
	return rec
}

// hostRecordMax is the most bytes an encoded host record takes, and logHostSize the
// most a host takes in a log record, its name aside.
const (
	hostRecordMax = 1 + 10*binary.MaxVarintLen64
	logHostSize   = 2*binary.MaxVarintLen64 + hostRecordMax
)

// stagedCap is at least the bytes appendStaged writes for links: a commit's record
// is encoded into one allocation, where growing it by appends copied it again and
// again on the committer (a record holds the links of every Done of the commit).
func stagedCap(links []prepared) int {
	n := 0
	for i := range links {
		p := &links[i]
		n += len(p.host) + len(p.fp) + len(p.val) + 5*binary.MaxVarintLen64
	}
	return n
}

// encodeStagedRecord encodes a record of staged links only.
func encodeStagedRecord(links []prepared) []byte {
	rec := append(make([]byte, 0, 1+stagedCap(links)), stagedVersion)
	for i := range links {
		rec = appendStaged(rec, &links[i])
	}
	return rec
}

// loggedOp is a queue change written to a log record with key rec.
type loggedOp struct {
	logOp
	rec uint64
}

// logHost is a host record in a log record.
type logHost struct {
	name string
	rec  hostRecord
}

// decodeLog splits a log record into its host records and queue changes, and
// returns the rest: the staged links, as decodeStaged reads them after a
// stagedVersion byte. It returns errCorrupt for anything flushLog cannot have
// produced. The returned slices alias rec.
func decodeLog(rec []byte) (hosts []logHost, ops []logOp, links []byte, err error) {
	r := reader{b: rec}
	if r.byte() != logVersion {
		return nil, nil, nil, errCorrupt
	}
	n := r.uvarint()
	for i := uint64(0); i < n && !r.err; i++ {
		name := r.bytes()
		hr, err := decodeHost([]byte(r.bytes()))
		if err != nil || name == "" {
			return nil, nil, nil, errCorrupt
		}
		hosts = append(hosts, logHost{name: name, rec: hr})
	}
	n = r.uvarint()
	for i := uint64(0); i < n && !r.err; i++ {
		if len(r.b) < keySize {
			return nil, nil, nil, errCorrupt
		}
		op := logOp{key: r.b[:keySize:keySize]}
		r.b = r.b[keySize:]
		switch l := r.uvarint(); {
		case r.err:
		case l == 0:
		case l-1 > uint64(len(r.b)):
			r.err = true
		default:
			op.val = r.b[: l-1 : l-1]
			r.b = r.b[l-1:]
			if _, _, err := decodeEntry(op.val); err != nil {
				return nil, nil, nil, errCorrupt
			}
		}
		ops = append(ops, op)
	}
	if r.err {
		return nil, nil, nil, errCorrupt
	}
	return hosts, ops, r.b, nil
}

// decodeRecord appends the staged links of a record of the staged bucket, log
// record or not, to dst.
func decodeRecord(dst []prepared, rec []byte) ([]prepared, error) {
	if len(rec) == 0 || rec[0] != logVersion {
		return decodeStaged(dst, rec)
	}
	_, _, links, err := decodeLog(rec)
	if err != nil || len(links) == 0 {
		return dst, err
	}
	return decodeStagedLinks(dst, links, true)
}

// The log's storage. A record is stored as parts of at most partSize bytes, each under
// its own key: the record's sequence number (8 bytes, big-endian) and the part's index
// (4 bytes, big-endian), with partLast set on the record's last part, so that a
// record's parts are neighbours in order and its last one sorts after the others.
// The staged bucket's keys only grow and it is filled to the brim (FillPercent 1):
// a commit writes its record into new leaves and rewrites only the rightmost leaf
// it found, and that leaf's branch. Stored whole, a record of 100 KB was rewritten
// with each of the next three commits, since bbolt never splits a leaf of four keys
// or fewer, and a leaf holding such values is rewritten whole.
//
// Files written before parts hold each record whole under its 8-byte sequence
// number; eachRecord reads both.
const (
	partKeySize        = 12
	partLast    uint32 = 1 << 31
)

// partSize returns how many bytes of a record one part holds on pages of pageSize
// bytes: four parts with their keys fill a leaf page (16 bytes of page header, 16 of
// element header per key).
func partSize(pageSize int) int { return max((pageSize-16)/4-16-partKeySize, 64) }

// partKey is the key of part i of record seq.
func partKey(seq uint64, i uint32) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(make([]byte, 0, partKeySize), seq), i)
}

// putRecord writes rec as the log record seq, in parts. rec must not change until
// the transaction ends.
func (b *batch) putRecord(seq uint64, rec []byte) error {
	b.staged.FillPercent = 1 // keys only grow: fill each page
	size := partSize(b.tx.DB().Info().PageSize)
	for i := uint32(0); ; i++ {
		n := min(size, len(rec))
		if n == len(rec) {
			return b.staged.Put(partKey(seq, i|partLast), rec)
		}
		if err := b.staged.Put(partKey(seq, i), rec[:n]); err != nil {
			return err
		}
		rec = rec[n:]
	}
}

// errEnough, returned by eachRecord's fn, stops it without error.
var errEnough = errors.New("enough")

// eachRecord calls fn with each record of the log in b, in order, whole: its parts
// put back together, or as it is for a record written before parts. rec is valid
// only during the call. A key that is neither, or a record missing a part, is an
// error wrapping ErrCorrupt; an error from fn is returned as it is, but errEnough,
// which ends the walk and makes eachRecord return nil.
func eachRecord(b *bolt.Bucket, fn func(key uint64, rec []byte) error) error {
	return eachRecordAfter(b, 0, fn)
}

// eachRecordAfter is eachRecord of the records whose key is greater than after: those
// up to after are a fold's, folded in, and the first of them may have lost parts.
func eachRecordAfter(b *bolt.Bucket, after uint64, fn func(key uint64, rec []byte) error) error {
	var buf []byte
	c := b.Cursor()
	k, v := c.First()
	if after > 0 {
		// An 8-byte key sorts before the 12-byte keys of the same record.
		k, v = c.Seek(binary.BigEndian.AppendUint64(nil, after+1))
	}
	for k != nil {
		var seq uint64
		var rec []byte
		switch len(k) {
		case 8:
			seq, rec = binary.BigEndian.Uint64(k), v
			k, v = c.Next()
		case partKeySize:
			seq = binary.BigEndian.Uint64(k)
			buf = buf[:0]
			for i := uint32(0); ; i++ {
				if len(k) != partKeySize || binary.BigEndian.Uint64(k) != seq || binary.BigEndian.Uint32(k[8:])&^partLast != i {
					return fmt.Errorf("%w: log record %d: part %d missing", ErrCorrupt, seq, i)
				}
				last := binary.BigEndian.Uint32(k[8:])&partLast != 0
				if last && i == 0 {
					rec = v // one part: no copy
				} else {
					buf = append(buf, v...)
					rec = buf
				}
				if k, v = c.Next(); last {
					break
				}
			}
		default:
			return fmt.Errorf("%w: log key %x", ErrCorrupt, k)
		}
		if err := fn(seq, rec); err != nil {
			if err == errEnough {
				return nil
			}
			return err
		}
	}
	return nil
}

// deleteRecords deletes the log records of b up to through, in parts or whole, and
// returns how many it deleted whole and whether none is left. It stops early once
// enough (nil: never) says so after a key, and deletes one key at least: it may leave
// the first parts of a record deleted and its last ones in the log (a record of a
// large Stage spans hundreds of leaves), which only a fold's deletion of its records
// does, and which eachRecordAfter and countRecords pass over.
func deleteRecords(b *bolt.Bucket, through uint64, enough func() bool) (n int, done bool, err error) {
	c := b.Cursor()
	// Seek past each key deleted: Next after a Delete skips a key, and First walks
	// every leaf the deletes emptied, which made a large fold's end quadratic.
	for k, _ := c.First(); k != nil; {
		if len(k) != 8 && len(k) != partKeySize {
			return n, false, fmt.Errorf("%w: log key %x", ErrCorrupt, k)
		}
		if binary.BigEndian.Uint64(k) > through {
			break
		}
		if len(k) == 8 || binary.BigEndian.Uint32(k[8:])&partLast != 0 {
			n++
		}
		k = bytes.Clone(k)
		if err := c.Delete(); err != nil {
			return n, false, err
		}
		k, _ = c.Seek(k)
		if enough != nil && enough() {
			return n, k == nil || len(k) >= 8 && binary.BigEndian.Uint64(k) > through, nil
		}
	}
	return n, true, nil
}

// countRecords returns how many records of the log in b, whole or the last parts of
// one, have a key up to through, reading their keys.
func countRecords(b *bolt.Bucket, through uint64) (int, error) {
	n := 0
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) != 8 && len(k) != partKeySize {
			return n, fmt.Errorf("%w: log key %x", ErrCorrupt, k)
		}
		if binary.BigEndian.Uint64(k) > through {
			break
		}
		if len(k) == 8 || binary.BigEndian.Uint32(k[8:])&partLast != 0 {
			n++
		}
	}
	return n, nil
}

// replay reads the log at Open: host records newer than the stored ones replace them
// (rec.stamp says which is newer), and the queue changes not folded in yet go to the
// hosts' pend. ids maps host ids to hosts.
func (f *Frontier) replay(tx *bolt.Tx, ids map[uint64]*host) error {
	b := tx.Bucket(bucketStaged)
	if b == nil {
		return nil
	}
	// The records of a fold that is in, left for it to delete: counted only.
	n, err := countRecords(b, f.folded)
	if err != nil {
		return err
	}
	f.logLen += n
	err = eachRecordAfter(b, f.folded, func(key uint64, v []byte) error {
		f.logLen++
		if len(v) == 0 || v[0] != logVersion {
			return nil
		}
		hosts, ops, _, err := decodeLog(v)
		if err != nil {
			return fmt.Errorf("log record %d", key)
		}
		for _, lh := range hosts {
			h := f.hosts[lh.name]
			if h == nil || h.rec.id != lh.rec.id {
				return fmt.Errorf("log record %d: host %s", key, lh.name)
			}
			if key > h.rec.stamp {
				h.rec = lh.rec
				h.rec.stamp = key
				h.dirty = true
			}
		}
		for _, op := range ops {
			h := ids[hostIDOf(op.key)]
			if h == nil {
				return fmt.Errorf("log record %d: queue key %x of no known host", key, op.key)
			}
			h.setPending(op.key, pendOp{val: bytes.Clone(op.val), rec: key})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, h := range f.hosts {
		if h.dirty {
			f.dirty[h] = struct{}{}
		}
		f.pendN += len(h.pending())
	}
	return nil
}

// overlay is a host's queue changes that the queue bucket does not have yet: those
// logged by earlier commits and not folded (pend) and, inside a batch, the batch's
// own (ops), which come after them.
type overlay struct {
	pend pendList
	ops  map[string]pendOp
}

func (o overlay) get(k []byte) (pendOp, bool) {
	if p, ok := o.ops[string(k)]; ok {
		return p, true
	}
	return o.pend.get(k)
}

// inBucket yields, in key order, every key in [from, to) of the bucket that the
// changes leave in the queue, and its value as the changes leave it.
func (o overlay) inBucket(q *bolt.Bucket, from, to []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func(k, v []byte) bool) {
		c := q.Cursor()
		for k, v := c.Seek(from); k != nil && bytes.Compare(k, to) < 0; k, v = c.Next() {
			if p, ok := o.get(k); ok {
				if p.val == nil {
					continue
				}
				v = p.val
			}
			if !yield(k, v) {
				return
			}
		}
	}
}

// first returns the first key in [from, to) of the queue as it is with the changes
// applied, and its value, skipping the keys skip reports (nil: none). The slices
// returned are the caller's.
func (o overlay) first(q *bolt.Bucket, from, to []byte, skip func([]byte) bool) (key, val []byte) {
	for k, v := range o.inBucket(q, from, to) {
		if skip == nil || !skip(k) {
			key, val = bytes.Clone(k), bytes.Clone(v)
			break
		}
	}
	i, _ := o.pend.search(from)
	for ; i < len(o.pend); i++ {
		k := o.pend[i].key[:]
		if bytes.Compare(k, to) >= 0 || key != nil && bytes.Compare(k, key) >= 0 {
			break
		}
		if p, _ := o.get(k); p.val != nil && (skip == nil || !skip(k)) {
			key, val = bytes.Clone(k), bytes.Clone(p.val)
			break
		}
	}
	for k := range o.ops {
		if k < string(from) || k >= string(to) || key != nil && k >= string(key) {
			continue
		}
		if p, _ := o.get([]byte(k)); p.val != nil && (skip == nil || !skip([]byte(k))) {
			key, val = []byte(k), bytes.Clone(p.val)
		}
	}
	return key, val
}

// each calls fn with every key in [from, to) of the queue as it is with the changes
// applied, and its value: first those of the bucket in key order, then those only in
// the changes.
func (o overlay) each(q *bolt.Bucket, from, to []byte, fn func(k, v []byte) error) error {
	for k, v := range o.inBucket(q, from, to) {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	visit := func(k string) error {
		p, _ := o.get([]byte(k))
		if p.val == nil || k < string(from) || k >= string(to) || q.Get([]byte(k)) != nil {
			return nil
		}
		return fn([]byte(k), p.val)
	}
	for i := range o.pend {
		if k := string(o.pend[i].key[:]); !inOps(o.ops, k) {
			if err := visit(k); err != nil {
				return err
			}
		}
	}
	for k := range o.ops {
		if err := visit(k); err != nil {
			return err
		}
	}
	return nil
}

func inOps(ops map[string]pendOp, k string) bool {
	_, ok := ops[k]
	return ok
}

// hostEnd is the first queue key after every key of the host.
func hostEnd(hostID uint64) []byte { return hostPrefix(hostID + 1) }
