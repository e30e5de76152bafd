package frontier

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// defaultFoldLinks is the most links a fold sorts in memory at once when
// Options.FoldLinks is 0: an index of 8 MiB. The fold takes in up to
// defaultFoldSpan links all the same (or LinkBatch, if more), for the bytes written
// per link of a fold of a million: the large folds of a seeds file, staged faster
// than folded, or of a large LinkBatch sort in chunks of this size on disk. Sorted
// whole, a fold of a million held 32 MiB, which the collector's headroom doubled:
// at 10 million seeds over 100,000 hosts, the largest part of the peak
// (BENCHMARKS.md, "where a seeds file's peak comes from").
// defaultFoldSpan is the most links a fold takes in when Options.FoldLinks is 0
// and LinkBatch is less.
var (
	defaultFoldLinks = 1 << 18 // variables for tests
	defaultFoldSpan  = 1 << 20
)

// foldLinkSize is the memory a fold holds per link, in bytes.
const foldLinkSize = 32

// indexLog indexes the records of the log in staged from the first after the key
// after (those up to it are folded in), as long as more,
// given a record's key and the links indexed before it, says so, and returns them
// and their links in the order of a fold (sortFold). It sorts at most sortAt links in
// memory at once (all of them if sortAt is 0 or less): beyond that, each sorted chunk
// goes to a temporary file in dir, and the index merges them as the fold reads it.
// expect is how many links the index is likely to sort in memory at once: the
// memory for them is taken at once, where growing it by appends copied it again
// and again, each time into a new slice up to 1.25 times the size of the old.
func indexLog(staged *bolt.Bucket, after uint64, more func(key []byte, links int) bool, sortAt, expect int, dir string) (recs []foldRec, idx *foldIndex, err error) {
	idx = &foldIndex{}
	defer func() {
		if err != nil {
			idx.close()
		}
	}()
	links := make([]foldLink, 0, max(expect, 0))
	err = eachRecordAfter(staged, after, func(key uint64, rec []byte) error {
		if !more(binary.BigEndian.AppendUint64(nil, key), idx.n+len(links)) {
			return errEnough
		}
		if uint64(len(recs)) >= math.MaxUint32 {
			return fmt.Errorf("%w: too many staged records", ErrCorrupt)
		}
		// The links indexed go to a file only once more follow: a fold that ends
		// at sortAt links, as one of LinkBatch links does where LinkBatch is
		// FoldLinks, keeps them in memory.
		if sortAt > 0 && len(links) >= sortAt {
			sortFold(links)
			if err := idx.spill(links, dir); err != nil {
				return err
			}
			links = links[:0]
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
	if len(links) > 0 || len(idx.srcs) == 0 {
		idx.add(&foldSource{mem: slices.Clip(links)}, len(links))
	}
	return recs, idx, nil
}

// foldIndex is a fold's index, read in the fold's order with take: sorted chunks, one
// in memory and the others in temporary files of foldLinkSize bytes per link, merged.
// A crash loses nothing of it: the files are unlinked as soon as they are made (where
// the system allows; elsewhere when the index is closed, or by the next Open after a
// crash: removeFoldFiles), and a fold cut by a crash indexes its records again.
type foldIndex struct {
	n     int // links in all
	taken int // links read by take
	srcs  []*foldSource
	out   []foldLink // what take returns when it merges
}

// foldSource is a sorted chunk of a fold's index: in memory (mem, from pos) or in a
// file (left links still to read after head).
type foldSource struct {
	mem  []foldLink
	pos  int
	file *os.File
	name string // the file's name, if it could not be unlinked at once
	r    *bufio.Reader
	left int
	head foldLink
	has  bool // head holds the chunk's next link
}

func (x *foldIndex) len() int { return x.n }

func (x *foldIndex) add(s *foldSource, n int) {
	x.srcs = append(x.srcs, s)
	x.n += n
}

// spill writes sorted links to a new temporary file in dir and adds it to x.
func (x *foldIndex) spill(links []foldLink, dir string) error {
	file, err := os.CreateTemp(dir, foldFilePrefix+"*")
	if err != nil {
		return fmt.Errorf("frontier: fold index: %w", err)
	}
	s := &foldSource{file: file, left: len(links)}
	if os.Remove(file.Name()) != nil {
		s.name = file.Name()
	}
	x.add(s, 0) // closed with x if what follows fails
	w := bufio.NewWriterSize(file, 1<<16)
	var rec [foldLinkSize]byte
	for i := range links {
		links[i].put(rec[:])
		if _, err := w.Write(rec[:]); err != nil {
			return fmt.Errorf("frontier: fold index: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("frontier: fold index: %w", err)
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("frontier: fold index: %w", err)
	}
	s.r = bufio.NewReaderSize(file, 1<<16)
	x.n += len(links)
	return nil
}

// foldFilePrefix starts the names of the temporary files of a fold's index.
const foldFilePrefix = ".frontier-fold-"

// removeFoldFiles removes from dir the files of fold indexes that a process ended
// without closing, where the system did not let them be unlinked at once (Windows):
// nothing else would. One still open in another process is not removed there, and
// elsewhere it was unlinked already.
func removeFoldFiles(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), foldFilePrefix) && e.Type().IsRegular() {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// take returns the next n links of the index in the fold's order, fewer at its end.
// The slice is valid until the next call.
func (x *foldIndex) take(n int) ([]foldLink, error) {
	n = min(n, x.n-x.taken)
	if len(x.srcs) == 1 && x.srcs[0].file == nil {
		s := x.srcs[0]
		out := s.mem[s.pos : s.pos+n]
		s.pos += n
		x.taken += n
		return out, nil
	}
	x.out = x.out[:0]
	for range n {
		var next *foldSource
		for _, s := range x.srcs {
			if ok, err := s.peek(); err != nil {
				return nil, err
			} else if ok && (next == nil || cmpFold(s.head, next.head) < 0) {
				next = s
			}
		}
		if next == nil {
			return nil, fmt.Errorf("%w: fold index: %d links short", ErrCorrupt, x.n-x.taken)
		}
		x.out = append(x.out, next.head)
		next.has = false
		x.taken++
	}
	return x.out, nil
}

// skip passes over the next n links.
func (x *foldIndex) skip(n int) error {
	for n > 0 {
		ls, err := x.take(min(n, 1<<16))
		if err != nil {
			return err
		}
		n -= len(ls)
		if len(ls) == 0 {
			return nil
		}
	}
	return nil
}

// peek makes s.head the chunk's next link, and reports whether there is one.
func (s *foldSource) peek() (bool, error) {
	if s.has {
		return true, nil
	}
	if s.file == nil {
		if s.pos == len(s.mem) {
			return false, nil
		}
		s.head, s.has = s.mem[s.pos], true
		s.pos++
		return true, nil
	}
	if s.left == 0 {
		return false, nil
	}
	var rec [foldLinkSize]byte
	if _, err := io.ReadFull(s.r, rec[:]); err != nil {
		return false, fmt.Errorf("frontier: fold index: %w", err)
	}
	s.head.get(rec[:])
	s.has, s.left = true, s.left-1
	return true, nil
}

// close closes and removes the index's files.
func (x *foldIndex) close() {
	if x == nil {
		return
	}
	for _, s := range x.srcs {
		if s.file != nil {
			s.file.Close()
			if s.name != "" {
				os.Remove(s.name)
			}
		}
	}
	x.srcs = nil
}

// put and get encode a link of the index in foldLinkSize bytes.
func (l *foldLink) put(b []byte) {
	copy(b, l.fp[:])
	binary.BigEndian.PutUint32(b[20:], l.rec)
	binary.BigEndian.PutUint32(b[24:], l.off)
	binary.BigEndian.PutUint32(b[28:], l.n)
}

func (l *foldLink) get(b []byte) {
	copy(l.fp[:], b)
	l.rec = binary.BigEndian.Uint32(b[20:])
	l.off = binary.BigEndian.Uint32(b[24:])
	l.n = binary.BigEndian.Uint32(b[28:])
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
	// The host's length may be written in more bytes than it needs: an empty host
	// is not always one zero byte, so its length is read, not guessed from that.
	if host := r.raw(); r.err || len(host) == 0 || len(r.b) < len(fp) {
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
func sortFold(idx []foldLink) { slices.SortFunc(idx, cmpFold) }

// cmpFold orders the links of a fold: by seen key, then in the order they were
// staged (record, then offset).
func cmpFold(x, y foldLink) int {
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
		return cmp.Compare(x.rec, y.rec)
	}
	return cmp.Compare(x.off, y.off)
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
