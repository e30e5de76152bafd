// Package ngram holds what the language detector and its training program must do
// alike: the script of a letter and the character n-grams of a text.
package ngram

import (
	"unicode"
	"unicode/utf8"
)

// Script is a writing system. Its String is the ISO 15924 code.
type Script uint8

// The scripts told apart; None is a character that is no letter of any of them (digits,
// punctuation, symbols, white space, letters of scripts not listed).
const (
	None Script = iota
	Latn
	Cyrl
	Arab
	Deva
	Hani
	Kana // Hiragana and Katakana
	Hang
	Grek
	Hebr
	Armn
	Geor
	Thai
	Laoo
	Khmr
	Mymr
	Sinh
	Taml
	Telu
	Knda
	Mlym
	Gujr
	Guru
	Orya
	Beng
	Tibt
	Ethi
	Thaa
	NumScripts
)

var scriptNames = [NumScripts]string{"", "Latn", "Cyrl", "Arab", "Deva", "Hani", "Kana",
	"Hang", "Grek", "Hebr", "Armn", "Geor", "Thai", "Laoo", "Khmr", "Mymr", "Sinh", "Taml",
	"Telu", "Knda", "Mlym", "Gujr", "Guru", "Orya", "Beng", "Tibt", "Ethi", "Thaa"}

// String returns the ISO 15924 code, "" for None.
func (s Script) String() string {
	if s < NumScripts {
		return scriptNames[s]
	}
	return ""
}

// ParseScript returns the Script of an ISO 15924 code, None if it is not one of ours.
func ParseScript(code string) Script {
	for i, n := range scriptNames {
		if n == code && i > 0 {
			return Script(i)
		}
	}
	return None
}

// block is a range of code points of one script.
type block struct {
	lo, hi rune
	s      Script
}

// blocks are the Unicode blocks of the scripts above, in ascending order.
var blocks = []block{
	{0x00C0, 0x024F, Latn},
	{0x0370, 0x03FF, Grek},
	{0x0400, 0x052F, Cyrl},
	{0x0530, 0x058F, Armn},
	{0x0590, 0x05FF, Hebr},
	{0x0600, 0x06FF, Arab},
	{0x0750, 0x077F, Arab},
	{0x0780, 0x07BF, Thaa},
	{0x08A0, 0x08FF, Arab},
	{0x0900, 0x097F, Deva},
	{0x0980, 0x09FF, Beng},
	{0x0A00, 0x0A7F, Guru},
	{0x0A80, 0x0AFF, Gujr},
	{0x0B00, 0x0B7F, Orya},
	{0x0B80, 0x0BFF, Taml},
	{0x0C00, 0x0C7F, Telu},
	{0x0C80, 0x0CFF, Knda},
	{0x0D00, 0x0D7F, Mlym},
	{0x0D80, 0x0DFF, Sinh},
	{0x0E00, 0x0E7F, Thai},
	{0x0E80, 0x0EFF, Laoo},
	{0x0F00, 0x0FFF, Tibt},
	{0x1000, 0x109F, Mymr},
	{0x10A0, 0x10FF, Geor},
	{0x1100, 0x11FF, Hang},
	{0x1200, 0x139F, Ethi},
	{0x1780, 0x17FF, Khmr},
	{0x1C80, 0x1C8F, Cyrl},
	{0x1C90, 0x1CBF, Geor},
	{0x1E00, 0x1EFF, Latn},
	{0x1F00, 0x1FFF, Grek},
	{0x2D00, 0x2D2F, Geor},
	{0x2DE0, 0x2DFF, Cyrl},
	{0x3040, 0x30FF, Kana},
	{0x3130, 0x318F, Hang},
	{0x31F0, 0x31FF, Kana},
	{0x3400, 0x4DBF, Hani},
	{0x4E00, 0x9FFF, Hani},
	{0xA640, 0xA69F, Cyrl},
	{0xA720, 0xA7FF, Latn},
	{0xA960, 0xA97F, Hang},
	{0xAB30, 0xAB6F, Latn},
	{0xAC00, 0xD7FF, Hang},
	{0xF900, 0xFAFF, Hani},
	{0xFB1D, 0xFB4F, Hebr},
	{0xFB50, 0xFDFF, Arab},
	{0xFE70, 0xFEFF, Arab},
	{0xFF21, 0xFF3A, Latn},
	{0xFF41, 0xFF5A, Latn},
	{0xFF66, 0xFF9F, Kana},
	{0xFFA0, 0xFFDC, Hang},
	{0x20000, 0x3134F, Hani},
}

// Of returns the script of r when r is a letter (or a combining mark, which the
// scripts of India and South-East Asia write vowels with), else None.
func Of(r rune) Script {
	if r < 0x80 {
		if 'a' <= r|0x20 && r|0x20 <= 'z' {
			return Latn
		}
		return None
	}
	if r <= 0x24F {
		if r >= 0xC0 && r != 0xD7 && r != 0xF7 {
			return Latn // Latin-1 and Latin Extended-A and -B hold letters only
		}
		return None
	}
	lo, hi := 0, len(blocks)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch b := blocks[m]; {
		case r < b.lo:
			hi = m
		case r > b.hi:
			lo = m + 1
		default:
			if r == 0xD7 || r == 0xF7 || r == 0x30FB || !(unicode.IsLetter(r) || unicode.IsMark(r)) {
				return None // × ÷ ・, digits, punctuation of the block
			}
			return b.s
		}
	}
	return None
}

// Key packs an n-gram of one to three code points into one number; Keys of different
// grams differ. A space stands for a word's edge.
func Key(r ...rune) uint64 {
	var k uint64
	for _, c := range r {
		k = k<<21 | uint64(c)
	}
	return k
}

// Order returns the number of code points packed in k.
func Order(k uint64) int {
	switch {
	case k>>42 != 0:
		return 3
	case k>>21 != 0:
		return 2
	}
	return 1
}

// Grams reads the words of text that are written in script s (other letters, digits,
// punctuation and symbols separate words), lowercased and with a space at each end, and
// calls emit for each of their 2-grams and 3-grams (single letters say too little to
// pay for their lookups: without them the benchmark's agreement with CLD2 is the same,
// for 30% less CPU). It stops after
// maxLetters letters of s (at the end of that word) and returns how many it read and
// the bytes of text it consumed.
func Grams(text string, s Script, maxLetters int, emit func(key uint64)) (letters, used int) {
	var p1, p2 rune = 0, ' ' // the two previous code points; 0 before the first
	n := 0
	inWord := false
	i := 0
	for i < len(text) {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		if Of(r) != s {
			if inWord {
				emit(Key(p2, ' '))
				emit(Key(p1, p2, ' '))
				p1, p2 = p2, ' '
				inWord = false
				if n >= maxLetters {
					break
				}
			}
			continue
		}
		r = fold(r)
		if !inWord {
			inWord = true
			p1, p2 = 0, ' '
		}
		emit(Key(p2, r))
		if p1 != 0 {
			emit(Key(p1, p2, r))
		}
		p1, p2 = p2, r
		n++
	}
	if inWord {
		emit(Key(p2, ' '))
		emit(Key(p1, p2, ' '))
	}
	return n, i
}

// fold lowercases r and maps full-width Latin letters to ASCII.
func fold(r rune) rune {
	if r < 0x80 {
		if 'A' <= r && r <= 'Z' {
			return r + 0x20
		}
		return r
	}
	if 0xFF21 <= r && r <= 0xFF5A {
		return fold(r - 0xFF21 + 'A')
	}
	return unicode.ToLower(r)
}
