package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// textOut accumulates text in lines, up to max bytes. Outside code blocks white space
// collapses to one space; brk ends a line, and in Markdown a paragraph with a blank
// line. The bytes kept never end inside a character.
type textOut struct {
	b      []byte
	max    int
	md     bool
	prefix string // starts every Markdown line
	brks   int    // 0, or the break to write before the next character: 1 a line, 2 a paragraph
	space  bool   // white space seen since the last character written
	full   bool   // max reached: further writes are dropped
	hold   bool   // a marker was written: no break before the next text
	// sep is a boundary between words that the source has no white space for: a space
	// goes there when a letter comes on both sides of it (textJoins).
	sep bool
}

// brk asks for a line break (1) or a paragraph break (2) before what comes next,
// unless a marker waits for its text (hold).
func (o *textOut) brk(kind int) {
	if !o.hold {
		o.brks = max(o.brks, kind)
	}
}

// marker writes a Markdown marker ("- ", "## ") that the next text follows on the
// same line, whatever blocks open before it.
func (o *textOut) marker(s string) {
	o.raw(s)
	o.space = false
	o.hold = true
}

// text writes s with its white space collapsed.
func (o *textOut) text(s string) {
	for i := 0; i < len(s) && !o.full; {
		j := i
		for j < len(s) {
			// Only a byte of a multi-byte character may start a wide space.
			if c := s[j]; c < utf8.RuneSelf && textSpaceByte(c) || c >= utf8.RuneSelf && textWideSpace(s[j:]) {
				break
			}
			j++
		}
		if j > i {
			o.word(s[i:j])
		}
		for j < len(s) {
			if textSpaceByte(s[j]) {
				j++
			} else if n := textWideSpaceLen(s[j:]); n > 0 {
				j += n
			} else {
				break
			}
			o.space = true
		}
		i = j
	}
}

// word writes s, which holds no white space, after a space when white space came
// before it on the line.
func (o *textOut) word(s string) {
	if o.brks == 0 && len(o.b) > 0 {
		if last := o.b[len(o.b)-1]; o.space && last != ' ' && last != '\n' && last != '\t' {
			o.put(" ")
		} else if o.sep && !o.space {
			r, _ := utf8.DecodeLastRune(o.b)
			if next, _ := utf8.DecodeRuneInString(s); textJoins(r) && textJoins(next) {
				o.put(" ")
			}
		}
	}
	o.space = false
	o.put(s)
}

// textJoins reports whether a space may separate r from a neighbour: a letter of a
// script written with spaces between words. A digit may not: a number and its unit in
// two spans ("291</span><span>kcal") read as one.
func textJoins(r rune) bool {
	if !unicode.IsLetter(r) {
		return false
	}
	return !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// raw writes s as it is, but for the line breaks it holds, after which the Markdown
// prefix is repeated.
func (o *textOut) raw(s string) {
	for len(s) > 0 && !o.full {
		line, rest, nl := strings.Cut(s, "\n")
		if line != "" {
			o.put(line)
		}
		if nl {
			if len(o.b) == 0 {
				o.brks = 0
			} else {
				if len(o.b)+1+len(o.prefix) > o.max {
					o.full = true
					return
				}
				o.b = append(o.b, '\n')
				o.b = append(o.b, o.prefix...)
			}
		}
		s = rest
	}
}

// put writes s after any break asked for, cutting at max.
func (o *textOut) put(s string) {
	if o.brks > 0 && len(o.b) > 0 {
		sep := "\n"
		if o.brks == 2 && o.md {
			sep = "\n\n"
		}
		if len(o.b)+len(sep)+len(o.prefix) > o.max {
			o.full = true
			return
		}
		o.b = append(o.b, sep...)
		o.b = append(o.b, o.prefix...)
	}
	o.brks, o.hold, o.sep = 0, false, false
	if len(o.b)+len(s) > o.max {
		s = htmlCut(s, o.max-len(o.b))
		o.full = true
	}
	o.b = append(o.b, s...)
}

// truncate takes back what was written after the first n bytes.
func (o *textOut) truncate(n int) {
	if n < len(o.b) {
		o.b = o.b[:n]
		o.full = false
	}
}

// trimRight drops the white space written since start at the end of the text.
func (o *textOut) trimRight(start int) {
	k := len(o.b)
	for k > start && textSpaceByte(o.b[k-1]) {
		k--
	}
	o.b = o.b[:k]
}

func textSpaceByte(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'
}

// textWideSpace reports whether s starts with a non-ASCII space character.
func textWideSpace(s string) bool { return textWideSpaceLen(s) > 0 }

// textWideSpaceLen returns the length of the non-ASCII space character s starts with,
// 0 when it starts with none: no-break space, the spaces of U+2000-U+200A, U+202F,
// U+205F, U+3000.
func textWideSpaceLen(s string) int {
	switch {
	case strings.HasPrefix(s, "\u00a0"):
		return 2
	case len(s) >= 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] >= 0x80 && s[2] <= 0x8a || s[2] == 0xaf),
		strings.HasPrefix(s, "\u205f"), strings.HasPrefix(s, "\u3000"):
		return 3
	}
	return 0
}
