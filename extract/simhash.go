package extract

import (
	"fmt"
	"math/bits"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// SimHash is a 64-bit SimHash (Charikar, 2002) of a text: texts that share most of
// their word shingles have signatures that differ in few bits; see [SimHash.Near]. It
// is written as 16 hexadecimal digits, in JSON too (a JSON number would lose bits in
// readers that hold numbers as doubles).
type SimHash uint64

// SimHashNear is the largest number of differing bits at which two signatures are
// near-duplicates. Manku, Jain and Das Sarma (WWW 2007) chose 3 to compare 8 billion
// pages with one another; a crawl compares a page with those of its own host, where 6
// finds 84% of the pairs of near-duplicates of TestSimHashPlanted (a date changed, 1%
// of the words edited, 5% added) against 45% at 3, while two different texts of 150
// words or more stay 20 bits apart or more.
const SimHashNear = 6

// TextSimHash returns the SimHash of a text: its words, lower-cased, in shingles of
// three; a word is a run of letters, digits and marks, and each character of a script
// written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar) is a word
// of its own. A text of fewer than three words is hashed whole; a text without words
// has the SimHash 0. Markup is not read: pass the main text, in which the page's
// boilerplate does not weigh.
func TextSimHash(text string) SimHash {
	var v simhashVotes
	var window [3]uint64 // hashes of the last three words
	n := 0
	for i := 0; i < len(text); {
		w, next := simhashWord(text, i)
		i = next
		if w == 0 {
			continue
		}
		window[0], window[1], window[2] = window[1], window[2], w
		if n++; n >= 3 {
			v.add(simhashMix(window[0]*31*31 + window[1]*31 + window[2]))
		}
	}
	switch n {
	case 0:
		return 0
	case 1, 2:
		v.add(simhashMix(window[0]*31*31 + window[1]*31 + window[2]))
	}
	return v.sum()
}

// simhashVotes counts, for each of the 64 bits, the shingle hashes that have it set.
// A hash adds to eight counters at once: byte k of acc[j] counts bit 8j+k, through
// simhashSpread, and the bytes are emptied into ones before they can overflow.
type simhashVotes struct {
	acc    [8]uint64
	ones   [64]int32
	inAcc  int // hashes in acc
	hashes int32
}

// simhashSpread[b] has byte k set to bit k of b.
var simhashSpread = func() (t [256]uint64) {
	for b := range t {
		for k := range 8 {
			t[b] |= uint64(b>>k&1) << (8 * k)
		}
	}
	return t
}()

func (v *simhashVotes) add(h uint64) {
	for j := range 8 {
		v.acc[j] += simhashSpread[byte(h>>(8*j))]
	}
	v.hashes++
	if v.inAcc++; v.inAcc == 255 {
		v.flush()
	}
}

func (v *simhashVotes) flush() {
	for j, a := range v.acc {
		for k := range 8 {
			v.ones[8*j+k] += int32(byte(a >> (8 * k)))
		}
	}
	v.acc, v.inAcc = [8]uint64{}, 0
}

// sum sets the bits that more than half of the hashes have.
func (v *simhashVotes) sum() SimHash {
	v.flush()
	var h SimHash
	for b, c := range v.ones {
		if 2*c > v.hashes {
			h |= 1 << b
		}
	}
	return h
}

// simhashWord hashes the word that starts at or after byte i of text (FNV-1a over its
// lower-cased runes) and returns the hash, 0 when there is no word left, and the byte
// after the word.
func simhashWord(text string, i int) (uint64, int) {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	in := false
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			// ASCII, most of most texts: a letter or a digit, never a mark or a
			// character alone, is all the unicode tests below say of it.
			lower := c | 0x20
			if 'a' <= lower && lower <= 'z' || '0' <= c && c <= '9' {
				if 'A' <= c && c <= 'Z' {
					c = lower
				}
				in = true
				h = (h ^ uint64(c)) * prime
			} else if in {
				return h, i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) && in
		if !word {
			if in {
				return h, i
			}
			i += size
			continue
		}
		if simhashAlone(r) {
			if in {
				return h, i // the character starts the next word
			}
			h = (h ^ uint64(r)) * prime
			return h, i + size
		}
		in = true
		h = (h ^ uint64(unicode.ToLower(r))) * prime
		i += size
	}
	if !in {
		return 0, i
	}
	return h, i
}

// simhashAlone reports whether r belongs to a script written without spaces between
// words, whose characters are each a word for TextSimHash.
func simhashAlone(r rune) bool {
	return r >= 0x2E80 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar))
}

// simhashMix is the finaliser of SplitMix64: it spreads the bits of a shingle's hash
// so that every bit of the signature is a fair vote.
func simhashMix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Distance returns the number of bits in which h and o differ, 0 to 64.
func (h SimHash) Distance(o SimHash) int { return bits.OnesCount64(uint64(h ^ o)) }

// Near reports whether h and o differ in at most SimHashNear bits.
func (h SimHash) Near(o SimHash) bool { return h.Distance(o) <= SimHashNear }

// String returns h as 16 hexadecimal digits.
func (h SimHash) String() string {
	s := strconv.FormatUint(uint64(h), 16)
	return "0000000000000000"[len(s):] + s
}

// MarshalText returns h as 16 hexadecimal digits.
func (h SimHash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads 1 to 16 hexadecimal digits.
func (h *SimHash) UnmarshalText(b []byte) error {
	v, err := strconv.ParseUint(string(b), 16, 64)
	if err != nil || len(b) > 16 || b[0] == '+' || b[0] == '-' {
		return fmt.Errorf("extract: simhash %q: not 1 to 16 hexadecimal digits", b)
	}
	*h = SimHash(v)
	return nil
}
