package extract

import (
	"bytes"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlTagAttrs appends to attrs the attributes of a start tag that keep reports true
// for (all of them when keep is nil), read from raw, the tag as the tokenizer's Raw
// returns it, as its TagAttr gives them: the first attribute of each name, names in
// lower case. The tokenizer copies every name and value it returns, and TagAttr cannot
// skip one, so a tag of many attributes of which one is kept costs as many copies;
// here only what is kept is copied.
//
// ok is false, and attrs as it was, when a name or a value kept holds a byte that
// TagAttr changes (NUL, "\r", the "&" of a character reference, whose rules in a
// value differ from those of text): the caller then reads the tag through TagAttr.
func htmlTagAttrs(attrs []html.Attribute, raw []byte, keep func(key []byte) bool) (_ []html.Attribute, ok bool) {
	n, first := len(raw), len(attrs)
	// The tag's name, from its second byte (the tokenizer's readTagName).
	p := 2
	for p < n {
		c := raw[p]
		p++
		if htmlSpace(c) {
			break
		}
		if c == '/' || c == '>' {
			p--
			break
		}
	}
	var lower [32]byte // the name being read, in lower case
	for p = htmlSkipSpace(raw, p); p < n && raw[p] != '>'; p = htmlSkipSpace(raw, p) {
		// The name (readTagAttrKey): an "=" first is part of it.
		ks := p
		for p < n {
			c := raw[p]
			p++
			if c == '=' && p == ks+1 {
				continue
			}
			if c == '=' || c == '/' || c == '>' || htmlSpace(c) {
				p--
				break
			}
		}
		ke := p
		// The value (readTagAttrVal): after "=", quoted or up to white space or ">".
		vs, ve := p, p
		if p = htmlSkipSpace(raw, p); p < n {
			c := raw[p]
			p++
			switch {
			case c == '/':
			case c != '=':
				p--
			default:
				if p = htmlSkipSpace(raw, p); p < n {
					switch q := raw[p]; q {
					case '>':
					case '\'', '"':
						p++
						vs = p
						ve = n
						if i := bytes.IndexByte(raw[p:], q); i >= 0 {
							ve = p + i
						}
						p = min(ve+1, n)
					default:
						vs = p
						for p < n && !htmlSpace(raw[p]) && raw[p] != '>' {
							p++
						}
						ve = p
						p = min(p+1, n)
						if raw[p-1] == '>' {
							p--
						}
					}
				}
			}
		}
		key := raw[ks:ke]
		if len(key) == 0 {
			continue
		}
		k := lower[:0]
		if len(key) > len(lower) {
			k = make([]byte, 0, len(key))
		}
		for _, c := range key {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			k = append(k, c)
		}
		if keep != nil && !keep(k) || htmlHasAttr(attrs[first:], k) {
			continue
		}
		val := raw[vs:ve]
		if htmlChanged(k, false) || htmlChanged(val, true) {
			return attrs[:first], false
		}
		name := atom.Lookup(k).String() // no allocation for the names HTML knows
		if name == "" {
			name = string(k)
		}
		attrs = append(attrs, html.Attribute{Key: name, Val: string(val)})
	}
	return attrs, true
}

// htmlHasAttr reports whether attrs holds an attribute named key.
func htmlHasAttr(attrs []html.Attribute, key []byte) bool {
	for _, a := range attrs {
		if a.Key == string(key) {
			return true
		}
	}
	return false
}

// htmlChanged reports whether the tokenizer returns b changed: NUL, and in a value a
// carriage return or an ampersand.
func htmlChanged(b []byte, value bool) bool {
	for _, c := range b {
		if c == 0 || value && (c == '\r' || c == '&') {
			return true
		}
	}
	return false
}

// htmlSpace reports whether c is white space to the tokenizer.
func htmlSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

// htmlSkipSpace returns the offset of the first byte of raw from p that is not white
// space.
func htmlSkipSpace(raw []byte, p int) int {
	for p < len(raw) && htmlSpace(raw[p]) {
		p++
	}
	return p
}
