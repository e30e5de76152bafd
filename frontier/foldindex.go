package frontier

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// The fold's index. A fold does not hold the links it merges: it holds, per link, its
// seen key and where the link lies in the log (foldLink, 32 bytes), sorted by seen
// key and then by the order the links were staged in (record, then offset: the order
// of their sequence numbers). Each commit of the fold reads from the log, in its own
// transaction, the links of its next group and decodes only those. A fold of a
// million links holds 32 MiB, where decoded links aliasing copies of their records
// held about 1.5 KiB each.

// foldLink is a link of a fold: its seen key, the record it lies in (an index into
// foldState.recs), and its offset and length in that record put back together.
type foldLink struct {
	fp     seenKey
	rec    uint32
	off, n uint32
}

// foldRec is a record of a fold: its key, the length of its parts (all but the last
// have that length; 0 for a record stored whole, before parts) and whether its links
// carry sequence numbers.
type foldRec struct {
	key     uint64
	partLen uint32
	withSeq bool
}

// defaultFoldLinks is the most links a fold takes in when Options.FoldLinks is 0:
// an index of 32 MiB.
const defaultFoldLinks = 1 << 20

// foldLinkSize is the memory a fold holds per link, in bytes.
const foldLinkSize = 32

// indexLog indexes the records of the log in staged from the first, as long as more,
// given a record's key and the links indexed before it, says so, and returns them
// and their links sorted for a fold (sortFold).
func indexLog(staged *bolt.Bucket, more func(key []byte, links int) bool) ([]foldRec, []foldLink, error) {
	var recs []foldRec
	var links []foldLink
	err := eachRecord(staged, func(key uint64, rec []byte) error {
		if !more(binary.BigEndian.AppendUint64(nil, key), len(links)) {
			return errEnough
		}
		if len(recs) == math.MaxUint32 {
			return fmt.Errorf("%w: too many staged records", ErrCorrupt)
		}
		var err error
		var withSeq bool
		if links, withSeq, err = indexRecord(links, uint32(len(recs)), rec); err != nil {
			return fmt.Errorf("%w: staged record %d", ErrCorrupt, key)
		}
		recs = append(recs, foldRec{key: key, partLen: partLen(staged, key), withSeq: withSeq})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sortFold(links)
	return recs, slices.Clip(links), nil
}

// indexRecord appends to idx the links of rec, the record numbered r of the fold,
// and returns it and how the record's links are encoded.
func indexRecord(idx []foldLink, r uint32, rec []byte) ([]foldLink, bool, error) {
	links, withSeq := rec, true
	switch {
	case len(rec) > 0 && rec[0] == logVersion:
		_, _, rest, err := decodeLog(rec)
		if err != nil {
			return idx, false, err
		}
		links = rest
	case len(rec) > 0 && rec[0] == stagedVersion:
		if links = rec[1:]; len(links) == 0 {
			return idx, false, errCorrupt
		}
	default:
		withSeq = false // staged before sequence numbers
	}
	off := len(rec) - len(links)
	for len(links) > 0 {
		fp, n, err := stagedExtent(links, withSeq)
		if err != nil {
			return idx, false, err
		}
		if uint64(off)+uint64(n) > 1<<32-1 {
			return idx, false, errCorrupt
		}
		idx = append(idx, foldLink{fp: fp, rec: r, off: uint32(off), n: uint32(n)})
		links, off = links[n:], off+n
	}
	return idx, withSeq, nil
}

// stagedExtent returns the seen key of the link appendStaged encoded at the start of
// b, and its length, checking what decodeStagedLinks checks.
func stagedExtent(b []byte, withSeq bool) (seenKey, int, error) {
	var fp seenKey
	r := reader{b: b}
	if r.skip(); r.err || len(r.b) < len(fp) || len(b)-len(r.b) == 1 {
		return fp, 0, errCorrupt // no host, or none at all
	}
	r.b = r.b[copy(fp[:], r.b):]
	r.int()
	r.int()
	if withSeq && r.uvarint() == 0 {
		r.err = true
	}
	r.skip()
	if r.err {
		return fp, 0, errCorrupt
	}
	return fp, len(b) - len(r.b), nil
}

// skip skips a length-prefixed field.
func (r *reader) skip() {
	n := r.uvarint()
	if r.err || n > uint64(len(r.b)) {
		r.err = true
		return
	}
	r.b = r.b[n:]
}

// sortFold sorts a fold's links by seen key, then in the order they were staged.
func sortFold(idx []foldLink) {
	slices.SortFunc(idx, func(x, y foldLink) int {
		a, b := binary.BigEndian.Uint64(x.fp[:8]), binary.BigEndian.Uint64(y.fp[:8])
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		if c := bytes.Compare(x.fp[8:], y.fp[8:]); c != 0 {
			return c
		}
		if x.rec != y.rec {
			return int(x.rec) - int(y.rec)
		}
		return int(x.off) - int(y.off)
	})
}

// partLen returns the length of the parts of record key, 0 if it is stored whole.
func partLen(staged *bolt.Bucket, key uint64) uint32 {
	k, v := staged.Cursor().Seek(partKey(key, 0))
	if len(k) != partKeySize || binary.BigEndian.Uint64(k) != key {
		return 0
	}
	return uint32(len(v))
}

// readLinks decodes the links of idx, which lie in the records recs of the log in
// staged, and appends them to dst. Their bytes are copied: the links outlive the
// pages they were read from.
func readLinks(dst []prepared, staged *bolt.Bucket, recs []foldRec, idx []foldLink) ([]prepared, error) {
	n := 0
	for _, l := range idx {
		n += int(l.n)
	}
	buf := make([]byte, 0, n)
	c := staged.Cursor()
	for _, l := range idx {
		if int(l.rec) >= len(recs) {
			return dst, errCorrupt
		}
		r := recs[l.rec]
		start := len(buf)
		var err error
		if buf, err = linkBytes(buf, c, r, l); err != nil {
			return dst, fmt.Errorf("%w: staged record %d: %v", ErrCorrupt, r.key, err)
		}
		b := buf[start:len(buf):len(buf)]
		ps, err := decodeStagedLinks(dst, b, r.withSeq)
		if err != nil || len(ps) != len(dst)+1 || ps[len(dst)].fp != l.fp {
			return dst, fmt.Errorf("%w: staged record %d: link at %d", ErrCorrupt, r.key, l.off)
		}
		dst = ps
	}
	return dst, nil
}

// linkBytes appends to dst the bytes of link l of record r, read with c.
func linkBytes(dst []byte, c *bolt.Cursor, r foldRec, l foldLink) ([]byte, error) {
	if r.partLen == 0 {
		key := binary.BigEndian.AppendUint64(nil, r.key)
		k, v := c.Seek(key)
		if !bytes.Equal(k, key) || uint64(l.off)+uint64(l.n) > uint64(len(v)) {
			return dst, errCorrupt
		}
		return append(dst, v[l.off:l.off+l.n]...), nil
	}
	i, o, need := l.off/r.partLen, int(l.off%r.partLen), int(l.n)
	k, v := c.Seek(partKey(r.key, i))
	for {
		if len(k) != partKeySize || binary.BigEndian.Uint64(k) != r.key || binary.BigEndian.Uint32(k[8:])&^partLast != i || o > len(v) {
			return dst, errCorrupt
		}
		take := min(need, len(v)-o)
		dst = append(dst, v[o:o+take]...)
		if need -= take; need == 0 {
			return dst, nil
		}
		if binary.BigEndian.Uint32(k[8:])&partLast != 0 {
			return dst, errCorrupt
		}
		k, v = c.Next()
		i, o = i+1, 0
	}
}
