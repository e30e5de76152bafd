package extract

import (
	"bytes"
	"unicode/utf8"
)

// cssScan calls emit for each reference a stylesheet (or a style attribute's
// declarations) makes to another resource, in order: url() and src() values, the
// strings of image-set() and of @import, each with its kind (KindStylesheet for
// @import, KindFont inside @font-face, KindImage otherwise). The url of @namespace
// names a namespace and is not emitted. s is decoded text. It follows the
// tokenizer of CSS Syntax Level 3 (comments, strings and their escapes, url
// tokens, identifiers, functions, hashes and numbers) far enough to tell where
// these values are, and keeps no more state than the nesting of blocks and
// parentheses: its time is linear in len(s) and it never fails.
func cssScan(s []byte, emit func(ref string, kind Kind)) {
	var (
		blocks []bool     // open {} blocks: whether each is (in) an @font-face rule
		parens []cssParen // open parentheses and functions, innermost last
		at     cssAtRule  // the at-rule whose prelude is being read
		urlOK  = true     // the at-rule's prelude has not had its URL yet
		buf    []byte     // the value of the name, string or url being read, when escapes make it differ from the text
	)
	kind := func() (Kind, bool) {
		switch at {
		case cssAtImport:
			return KindStylesheet, urlOK
		case cssAtNamespace:
			return 0, false
		}
		if len(blocks) > 0 && blocks[len(blocks)-1] {
			return KindFont, true
		}
		return KindImage, true
	}
	found := func(ref []byte) {
		if k, ok := kind(); ok {
			emit(string(ref), k)
		}
		if at != cssAtNone {
			urlOK = false
		}
	}
	endPrelude := func() { at, urlOK, parens = cssAtNone, true, parens[:0] }
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := bytes.Index(s[i+2:], cssCommentEnd)
			if end < 0 {
				return
			}
			i += 2 + end + 2
		case c == '"' || c == '\'':
			var str []byte
			var n int
			var ok bool
			str, buf, n, ok = cssString(s[i:], buf)
			i += n
			if !ok {
				continue // a bad string: a newline ended it
			}
			switch {
			case at == cssAtImport && len(parens) == 0:
				found(str)
			case len(parens) > 0 && parens[len(parens)-1] != cssParenOther:
				found(str) // url("…"), src("…"), image-set("…" 1x)
			}
		case c == '#':
			i++
			var n int
			_, buf, n = cssName(s[i:], buf) // a hash token: "#url(" is no function
			i += n
		case '0' <= c && c <= '9' || (c == '.' || c == '+' || c == '-') && cssNumberStart(s[i:]):
			i += cssNumber(s[i:])
			var n int
			_, buf, n = cssName(s[i:], buf) // a dimension's unit
			i += n
		case c == '@' && cssNameStart(s[i+1:]):
			var name []byte
			var n int
			name, buf, n = cssName(s[i+1:], buf)
			i += 1 + n
			at, urlOK = cssAt(name), true
		case cssNameStart(s[i:]):
			var name []byte
			var n int
			name, buf, n = cssName(s[i:], buf)
			i += n
			if i >= len(s) || s[i] != '(' {
				continue
			}
			i++
			switch {
			case bytes.EqualFold(name, cssURLName):
				j := i
				for j < len(s) && cssSpace(s[j]) {
					j++
				}
				if j < len(s) && (s[j] == '"' || s[j] == '\'') {
					parens = append(parens, cssParenURL) // url("…"): a function
					continue
				}
				var ref []byte
				var ok bool
				ref, buf, n, ok = cssURL(s[i:], buf)
				i += n
				if ok {
					found(ref)
				}
			case bytes.EqualFold(name, cssSrcName):
				parens = append(parens, cssParenURL)
			case bytes.EqualFold(name, cssImageSetName) || bytes.EqualFold(name, cssWebkitImageSetName):
				parens = append(parens, cssParenImageSet)
			default:
				parens = append(parens, cssParenOther)
			}
		case c == '(' || c == '[':
			parens = append(parens, cssParenOther)
			i++
		case c == ')' || c == ']':
			if len(parens) > 0 {
				parens = parens[:len(parens)-1]
			}
			i++
		case c == '{':
			blocks = append(blocks, at == cssAtFontFace || len(blocks) > 0 && blocks[len(blocks)-1])
			endPrelude()
			i++
		case c == '}':
			if len(blocks) > 0 {
				blocks = blocks[:len(blocks)-1]
			}
			endPrelude()
			i++
		case c == ';':
			endPrelude()
			i++
		case c == '\\':
			i += 2 // an escape that starts no name: a backslash and a newline
		default:
			i++
		}
	}
}

var (
	cssCommentEnd         = []byte("*/")
	cssURLName            = []byte("url")
	cssSrcName            = []byte("src")
	cssImageSetName       = []byte("image-set")
	cssWebkitImageSetName = []byte("-webkit-image-set")
)

// cssAtRule is an at-rule whose prelude cssScan reads.
type cssAtRule uint8

const (
	cssAtNone      cssAtRule = iota // no at-rule, or one of no interest
	cssAtImport                     // @import: its URL is a stylesheet
	cssAtNamespace                  // @namespace: its URL names, fetches nothing
	cssAtFontFace                   // @font-face: its URLs are fonts
	cssAtOther                      // another at-rule
)

// cssAt returns the at-rule of a name (without "@").
func cssAt(name []byte) cssAtRule {
	switch {
	case bytes.EqualFold(name, []byte("import")):
		return cssAtImport
	case bytes.EqualFold(name, []byte("namespace")):
		return cssAtNamespace
	case bytes.EqualFold(name, []byte("font-face")):
		return cssAtFontFace
	}
	return cssAtOther
}

// cssParen is what an open parenthesis belongs to.
type cssParen uint8

const (
	cssParenOther    cssParen = iota // a function or a block that holds no URL
	cssParenURL                      // url("…") or src("…"): its string is a URL
	cssParenImageSet                 // image-set(): its strings are URLs of images
)

// cssSpace reports whether c is CSS white space (after preprocessing, which turns
// \r and \f into newlines).
func cssSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// cssNameChar reports whether c can be in a name: a letter, a digit, '-', '_' or a
// byte of a non-ASCII character.
func cssNameChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c >= 0x80
}

// cssValidEscape reports whether s starts with a backslash that escapes something:
// not a newline, not the end.
func cssValidEscape(s []byte) bool {
	return len(s) >= 2 && s[0] == '\\' && s[1] != '\n' && s[1] != '\r' && s[1] != '\f'
}

// cssNameStart reports whether s starts an identifier (CSS Syntax, "check if three
// code points would start an ident sequence").
func cssNameStart(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	c := s[0]
	switch {
	case c == '-':
		if len(s) < 2 {
			return false
		}
		return s[1] == '-' || cssNameChar(s[1]) && !('0' <= s[1] && s[1] <= '9') || cssValidEscape(s[1:])
	case c == '\\':
		return cssValidEscape(s)
	}
	return cssNameChar(c) && !('0' <= c && c <= '9')
}

// cssName reads a name (an ident sequence) at the start of s and returns it with
// escapes undone, buf (which holds it when escapes made it differ from the text,
// grown as needed), and the number of bytes read. The name is valid until buf is
// used again.
func cssName(s, buf []byte) (name, _ []byte, n int) {
	i := 0
	for i < len(s) && cssNameChar(s[i]) {
		i++
	}
	if !cssValidEscape(s[i:]) {
		return s[:i], buf, i // no escape: the text itself
	}
	buf = append(buf[:0], s[:i]...)
	for i < len(s) {
		switch {
		case cssNameChar(s[i]):
			j := i + 1
			for j < len(s) && cssNameChar(s[j]) {
				j++
			}
			buf = append(buf, s[i:j]...)
			i = j
		case cssValidEscape(s[i:]):
			r, n := cssEscape(s[i+1:])
			buf = utf8.AppendRune(buf, r)
			i += 1 + n
		default:
			return buf, buf, i
		}
	}
	return buf, buf, i
}

// cssEscape reads an escape after its backslash: up to six hex digits and one
// white space after them, or one character. It returns the character (U+FFFD for
// zero, a surrogate or a value past U+10FFFF) and the bytes read.
func cssEscape(s []byte) (rune, int) {
	if len(s) == 0 {
		return utf8.RuneError, 0
	}
	v, i := rune(0), 0
	for i < len(s) && i < 6 && cssHex(s[i]) {
		v = v*16 + rune(cssHexValue(s[i]))
		i++
	}
	if i == 0 {
		r, n := utf8.DecodeRune(s)
		return r, n
	}
	if i < len(s) && cssSpace(s[i]) {
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		i++
	}
	if v == 0 || 0xD800 <= v && v <= 0xDFFF || v > utf8.MaxRune {
		v = utf8.RuneError
	}
	return v, i
}

func cssHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func cssHexValue(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// cssString reads a quoted string at the start of s: its value with escapes undone
// (in buf, which it returns grown as needed), the bytes read, and false when it is a
// bad string (an unescaped newline ended it, which is left unread). A string the end
// of s cuts is good, as CSS reads it.
func cssString(s, buf []byte) (value, _ []byte, n int, ok bool) {
	quote := s[0]
	buf = buf[:0]
	i := 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == quote:
			return buf, buf, i + 1, true
		case c == '\n' || c == '\r' || c == '\f':
			return nil, buf, i, false
		case c == '\\':
			if i+1 >= len(s) {
				return buf, buf, i + 1, true
			}
			if n := s[i+1]; n == '\n' || n == '\f' {
				i += 2 // a line continued
				continue
			}
			if s[i+1] == '\r' {
				i += 2
				if i < len(s) && s[i] == '\n' {
					i++
				}
				continue
			}
			r, n := cssEscape(s[i+1:])
			buf = utf8.AppendRune(buf, r)
			i += 1 + n
		default:
			j := i + 1
			for j < len(s) && s[j] != quote && s[j] != '\\' && s[j] != '\n' && s[j] != '\r' && s[j] != '\f' {
				j++
			}
			buf = append(buf, s[i:j]...)
			i = j
		}
	}
	return buf, buf, i, true
}

// cssURL reads an unquoted url token after "url(": its value with escapes undone
// (in buf, which it returns grown as needed), the bytes read (up to and with the
// closing parenthesis), and false when it is a bad url (a quote, a parenthesis, white
// space inside, or a control character), whose remnants are read to its end.
func cssURL(s, buf []byte) (value, _ []byte, n int, ok bool) {
	buf = buf[:0]
	i := 0
	for i < len(s) && cssSpace(s[i]) {
		i++
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == ')':
			return buf, buf, i + 1, true
		case cssSpace(c):
			for i < len(s) && cssSpace(s[i]) {
				i++
			}
			if i >= len(s) {
				return buf, buf, i, true
			}
			if s[i] == ')' {
				return buf, buf, i + 1, true
			}
			return nil, buf, cssBadURL(s, i), false
		case c == '"' || c == '\'' || c == '(' || c < 0x20 && c != '\t' || c == 0x7F:
			return nil, buf, cssBadURL(s, i), false
		case c == '\\':
			if !cssValidEscape(s[i:]) {
				return nil, buf, cssBadURL(s, i), false
			}
			r, n := cssEscape(s[i+1:])
			buf = utf8.AppendRune(buf, r)
			i += 1 + n
		default:
			j := i + 1
			for j < len(s) && s[j] != ')' && s[j] != '\\' && s[j] != '"' && s[j] != '\'' && s[j] != '(' && s[j] > ' ' && s[j] != 0x7F {
				j++
			}
			buf = append(buf, s[i:j]...)
			i = j
		}
	}
	return buf, buf, i, true // cut by the end: good, as CSS reads it
}

// cssBadURL returns the offset after the remnants of a bad url that start at i:
// after the next ')' that no escape hides, or the end.
func cssBadURL(s []byte, i int) int {
	for i < len(s) {
		switch {
		case s[i] == ')':
			return i + 1
		case cssValidEscape(s[i:]):
			_, n := cssEscape(s[i+1:])
			i += 1 + n
		default:
			i++
		}
	}
	return i
}

// cssNumberStart reports whether s, starting with '+', '-' or '.', starts a
// number.
func cssNumberStart(s []byte) bool {
	if len(s) < 2 {
		return false
	}
	if s[0] == '.' {
		return '0' <= s[1] && s[1] <= '9'
	}
	if '0' <= s[1] && s[1] <= '9' {
		return true
	}
	return s[1] == '.' && len(s) > 2 && '0' <= s[2] && s[2] <= '9'
}

// cssNumber returns the length of the number at the start of s: sign, digits,
// fraction and exponent.
func cssNumber(s []byte) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() {
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	digits()
	if i+1 < len(s) && s[i] == '.' && '0' <= s[i+1] && s[i+1] <= '9' {
		i++
		digits()
	}
	if i+1 < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && '0' <= s[j] && s[j] <= '9' {
			i = j
			digits()
		}
	}
	return i
}
