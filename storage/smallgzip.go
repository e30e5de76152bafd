package storage

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/bits"
	"sync"
)

// smallMax is the largest record, in bytes, that appendMember compresses with
// appendSmallMember at gzip level 1: a WARC request record, a metadata record and
// the response of a small page or a redirect. A record this size costs the general
// encoder 12-20 µs, most of it building the Huffman tables of its one dynamic block;
// this one uses the fixed tables and costs a few µs, for members 10-40% larger.
const smallMax = 8 << 10

// The gzip member header of appendSmallMember (RFC 1952 §2.3): magic, deflate, no
// flags, no modification time, no extra flags, operating system unknown.
var smallHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// smallScratch holds idle buffers that gather a record's parts.
var smallScratch = sync.Pool{New: func() any { b := make([]byte, 0, smallMax); return &b }}

// appendSmallMember appends to buf one gzip member holding the concatenation of
// parts, whose total length must not pass smallMax: one deflate block with the fixed
// Huffman codes (RFC 1951 §3.2.6), its matches found greedily through a hash table of
// 4-byte sequences.
func appendSmallMember(buf *bytes.Buffer, parts ...[]byte) {
	sp := smallScratch.Get().(*[]byte)
	src := (*sp)[:0]
	for _, p := range parts {
		src = append(src, p...)
	}
	out := append(buf.AvailableBuffer(), smallHeader[:]...)
	w := bitWriter{out: out}
	w.write(3, 3) // BFINAL 1, BTYPE 01: fixed codes
	deflateFixed(&w, src)
	w.flush()
	out = binary.LittleEndian.AppendUint32(w.out, crc32.ChecksumIEEE(src))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(src)))
	buf.Write(out)
	*sp = src[:0]
	smallScratch.Put(sp)
}

// deflateFixed writes src as symbols of the fixed codes, end of block included.
// src must be shorter than the 32 KiB window, so that every earlier position can
// be referred to.
func deflateFixed(w *bitWriter, src []byte) {
	const (
		hashBits = 11
		minMatch = 4
		maxMatch = 258
	)
	var table [1 << hashBits]int32 // a position + 1 by hash of its 4 bytes; 0: none
	hash := func(v uint32) uint32 { return v * 2654435761 >> (32 - hashBits) }
	lit := 0 // the first byte not yet written
	for i := 0; i+minMatch <= len(src); {
		v := binary.LittleEndian.Uint32(src[i:])
		h := hash(v)
		cand := int(table[h]) - 1
		table[h] = int32(i + 1)
		if cand < 0 || binary.LittleEndian.Uint32(src[cand:]) != v {
			i++
			continue
		}
		n := minMatch
		for limit := min(len(src)-i, maxMatch); n < limit && src[cand+n] == src[i+n]; n++ {
		}
		for _, c := range src[lit:i] {
			w.write(uint64(fixedLit[c].code), uint(fixedLit[c].len))
		}
		w.writeMatch(n, i-cand)
		// Remember the position just before the match's end, where the next
		// repetition of what follows often starts.
		if end := i + n - 1; end+minMatch <= len(src) {
			table[hash(binary.LittleEndian.Uint32(src[end:]))] = int32(end + 1)
		}
		i += n
		lit = i
	}
	for _, c := range src[lit:] {
		w.write(uint64(fixedLit[c].code), uint(fixedLit[c].len))
	}
	w.write(uint64(fixedLit[256].code), uint(fixedLit[256].len))
}

// huffCode is a Huffman code with its bits reversed, as deflate's bit order writes
// it, and its length in bits.
type huffCode struct {
	code uint16
	len  uint8
}

// fixedLit holds the fixed codes of the literal/length alphabet (RFC 1951 §3.2.6).
var fixedLit = func() (t [288]huffCode) {
	for s := range t {
		var code, n int
		switch {
		case s < 144:
			code, n = 0x30+s, 8
		case s < 256:
			code, n = 0x190+s-144, 9
		case s < 280:
			code, n = s-256, 7
		default:
			code, n = 0xc0+s-280, 8
		}
		t[s] = huffCode{code: bits.Reverse16(uint16(code)) >> (16 - n), len: uint8(n)}
	}
	return t
}()

// The base lengths and distances of the length and distance codes and their extra
// bits (RFC 1951 §3.2.5).
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// lengthCode maps a match length (3 to 258) to the index of its length code.
var lengthCode = func() (t [259]uint8) {
	for c := range lengthBase {
		end := len(t)
		if c+1 < len(lengthBase) {
			end = int(lengthBase[c+1])
		}
		for l := int(lengthBase[c]); l < end; l++ {
			t[l] = uint8(c)
		}
	}
	return t
}()

// distCode returns the distance code of a distance from 1 to 32768.
func distCode(d int) int {
	x := d - 1
	if x < 4 {
		return x
	}
	n := bits.Len(uint(x)) - 1
	return 2*n + (x>>(n-1))&1
}

// bitWriter appends bits to out, least significant first, as deflate packs them.
type bitWriter struct {
	out  []byte
	bits uint64
	n    uint // bits held in bits, fewer than 32 between calls
}

// write appends the nb low bits of v; nb is at most 32. Bits go to out four bytes
// at a time.
func (w *bitWriter) write(v uint64, nb uint) {
	w.bits |= v << w.n
	w.n += nb
	if w.n >= 32 {
		w.out = binary.LittleEndian.AppendUint32(w.out, uint32(w.bits))
		w.bits >>= 32
		w.n -= 32
	}
}

// writeMatch writes a copy of n bytes (3 to 258) from d bytes back (1 to 32768).
func (w *bitWriter) writeMatch(n, d int) {
	lc := lengthCode[n]
	c := fixedLit[257+int(lc)]
	w.write(uint64(c.code), uint(c.len))
	if e := lengthExtra[lc]; e > 0 {
		w.write(uint64(n-int(lengthBase[lc])), uint(e))
	}
	dc := distCode(d)
	w.write(uint64(bits.Reverse8(uint8(dc))>>3), 5)
	if e := distExtra[dc]; e > 0 {
		w.write(uint64(d-int(distBase[dc])), uint(e))
	}
}

// flush writes the bits held, padded with zeros to a whole byte.
func (w *bitWriter) flush() {
	for w.n > 0 {
		w.out = append(w.out, byte(w.bits))
		w.bits >>= 8
		w.n -= min(w.n, 8)
	}
	w.bits = 0
}
