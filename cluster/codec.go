package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

// Link is one URL handed to the process that owns its shard. It carries what the
// owner's frontier needs to queue the URL as the finder would have.
type Link struct {
	URL     string // absolute, canonical URL
	FoundOn string // URL of the page that linked here; empty for seeds
	Depth   int    // links followed from a seed; seeds have 0
	// Priority orders a host's queue before depth; 0 is normal, higher first.
	Priority int
	Hops     int   // redirects followed so far to reach URL
	Kind     uint8 // defined by the engine (page, sitemap, ...); carried as is
}

// errBadMessage is wrapped by the error decodeBatch returns for a message that is not a
// well-formed batch of this version: damaged in transit or storage, truncated, or written
// by something else.
var errBadMessage = errors.New("cluster: bad message")

// Batch encoding, version 1. All integers are varints (encoding/binary):
//
//	magic   "pcl"
//	version byte 1
//	count   uvarint: number of links
//	count × link:
//	  url      uvarint length, bytes
//	  foundOn  uvarint k: 0 = a new string follows (uvarint length, bytes) and joins
//	           the batch's table of found-on URLs; k > 0 = table entry k-1
//	  depth, priority, hops  signed varints, each within int32
//	  kind     one byte
//	crc     CRC-32C (Castagnoli) of everything before, 4 bytes big-endian
//
// A page's links share their found-on URL, so the table stores it once per batch.
const (
	batchMagic   = "pcl"
	batchVersion = 1
	// minLinkSize is the fewest bytes one encoded link takes: url length (and at least
	// one byte of URL), foundOn ref, depth, priority, hops, kind.
	minLinkSize = 7
	headerSize  = len(batchMagic) + 1
	trailerSize = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encoder appends links to a batch under construction.
type encoder struct {
	buf     []byte
	n       int
	foundOn map[string]int // found-on URL → table index + 1
}

func newEncoder() *encoder {
	e := &encoder{foundOn: make(map[string]int)}
	e.reset()
	return e
}

func (e *encoder) reset() {
	e.buf = append(e.buf[:0], batchMagic...)
	e.buf = append(e.buf, batchVersion)
	e.n = 0
	clear(e.foundOn)
}

// add appends l to the batch.
func (e *encoder) add(l *Link) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(l.URL)))
	e.buf = append(e.buf, l.URL...)
	if k, ok := e.foundOn[l.FoundOn]; ok {
		e.buf = binary.AppendUvarint(e.buf, uint64(k))
	} else {
		e.foundOn[l.FoundOn] = len(e.foundOn) + 1
		e.buf = append(e.buf, 0)
		e.buf = binary.AppendUvarint(e.buf, uint64(len(l.FoundOn)))
		e.buf = append(e.buf, l.FoundOn...)
	}
	e.buf = binary.AppendVarint(e.buf, int64(clamp32(l.Depth)))
	e.buf = binary.AppendVarint(e.buf, int64(clamp32(l.Priority)))
	e.buf = binary.AppendVarint(e.buf, int64(clamp32(l.Hops)))
	e.buf = append(e.buf, l.Kind)
	e.n++
}

// size returns the encoded size of the batch so far, trailer included (the count's
// varint is not yet in buf and takes at most 3 bytes for the counts used here).
func (e *encoder) size() int { return len(e.buf) + 3 + trailerSize }

// finish returns the encoded batch. The result is a new slice.
func (e *encoder) finish() []byte {
	out := make([]byte, 0, len(e.buf)+binary.MaxVarintLen64+trailerSize)
	out = append(out, e.buf[:headerSize]...)
	out = binary.AppendUvarint(out, uint64(e.n))
	out = append(out, e.buf[headerSize:]...)
	return binary.BigEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

func clamp32(v int) int32 {
	return int32(max(min(v, math.MaxInt32), math.MinInt32))
}

// encodeBatch returns links encoded as one batch message (format version 1). Depth,
// Priority and Hops are clamped to int32.
func encodeBatch(links []Link) []byte {
	e := newEncoder()
	for i := range links {
		e.add(&links[i])
	}
	return e.finish()
}

// decodeBatch decodes a batch written by encodeBatch. A message that is damaged,
// truncated, of an unknown version or carries trailing bytes is refused with an error
// wrapping errBadMessage that says what is wrong and where; nothing is returned from it.
// Memory use is bounded by a small multiple of len(data).
func decodeBatch(data []byte) ([]Link, error) {
	if len(data) < headerSize+1+trailerSize {
		return nil, badMessage(0, "%d bytes is too short", len(data))
	}
	if string(data[:len(batchMagic)]) != batchMagic {
		return nil, badMessage(0, "not a link batch (magic %q)", data[:len(batchMagic)])
	}
	if v := data[len(batchMagic)]; v != batchVersion {
		return nil, badMessage(len(batchMagic), "version %d not supported (want %d)", v, batchVersion)
	}
	body := data[:len(data)-trailerSize]
	want := binary.BigEndian.Uint32(data[len(body):])
	if got := crc32.Checksum(body, castagnoli); got != want {
		return nil, badMessage(len(body), "checksum %08x, want %08x", got, want)
	}
	d := decoder{data: body, off: headerSize}
	n := d.uvarint("count")
	if d.err == nil && n > uint64((len(body)-d.off)/minLinkSize) {
		d.fail("count %d too large for %d bytes", n, len(body))
	}
	if d.err != nil {
		return nil, d.err
	}
	links := make([]Link, 0, n)
	var table []string
	for range n {
		var l Link
		l.URL = d.str("url")
		if d.err == nil && l.URL == "" {
			d.fail("empty url")
		}
		switch k := d.uvarint("found-on reference"); {
		case d.err != nil:
		case k == 0:
			l.FoundOn = d.str("found-on url")
			table = append(table, l.FoundOn)
		case k <= uint64(len(table)):
			l.FoundOn = table[k-1]
		default:
			d.fail("found-on reference %d beyond table of %d", k, len(table))
		}
		l.Depth = d.int32("depth")
		l.Priority = d.int32("priority")
		l.Hops = d.int32("hops")
		l.Kind = d.byte("kind")
		if d.err != nil {
			return nil, d.err
		}
		links = append(links, l)
	}
	if d.off != len(body) {
		return nil, badMessage(d.off, "%d trailing bytes", len(body)-d.off)
	}
	return links, nil
}

func badMessage(off int, format string, args ...any) error {
	return fmt.Errorf("%w: byte %d: %s", errBadMessage, off, fmt.Sprintf(format, args...))
}

// decoder reads varints and strings from data, keeping the first error.
type decoder struct {
	data []byte
	off  int
	err  error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = badMessage(d.off, format, args...)
	}
}

func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.data[d.off:])
	if n <= 0 {
		d.fail("bad %s varint", what)
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) int32(what string) int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.data[d.off:])
	if n <= 0 {
		d.fail("bad %s varint", what)
		return 0
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("%s %d out of range", what, v)
		return 0
	}
	d.off += n
	return int(v)
}

func (d *decoder) str(what string) string {
	n := d.uvarint(what + " length")
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.data)-d.off) {
		d.fail("%s length %d beyond the message", what, n)
		return ""
	}
	s := string(d.data[d.off : d.off+int(n)])
	d.off += int(n)
	return s
}

func (d *decoder) byte(what string) uint8 {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.data) {
		d.fail("missing %s", what)
		return 0
	}
	b := d.data[d.off]
	d.off++
	return b
}
