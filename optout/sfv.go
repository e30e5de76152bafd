package optout

import (
	"errors"
	"strings"
)

// errSyntax is a Structured Field that does not parse.
var errSyntax = errors.New("not a structured field dictionary")

// maxSFLength bounds the field value parseDictionary reads, in bytes.
const maxSFLength = 8 << 10

// sfItem is what this package keeps of a Structured Field member's value: its type
// and, for a Token, its text.
type sfItem struct {
	kind  byte // 't' token, 'b' boolean, 'i' integer or decimal, 's' string, 'y' byte sequence, 'd' date, '%' display string, 'l' inner list
	token string
}

// sfMember is one key of a dictionary with its value.
type sfMember struct {
	key  string
	item sfItem
}

// parseDictionary parses a Structured Field Dictionary (RFC 9651 §4.2.2), keeping each
// key's last value, keys in the order they first appear; parameters are parsed and
// dropped.
func parseDictionary(s string) ([]sfMember, error) {
	if len(s) > maxSFLength {
		return nil, errSyntax
	}
	p := &sfParser{s: strings.Trim(s, " ")}
	var out []sfMember
	index := map[string]int{}
	for p.more() {
		key, ok := p.key()
		if !ok {
			return nil, errSyntax
		}
		it := sfItem{kind: 'b'} // a bare key is Boolean true
		if p.peek() == '=' {
			p.i++
			if it, ok = p.member(); !ok {
				return nil, errSyntax
			}
		} else if !p.params() {
			return nil, errSyntax
		}
		if i, dup := index[key]; dup {
			out[i].item = it
		} else {
			index[key] = len(out)
			out = append(out, sfMember{key, it})
		}
		p.ows()
		if !p.more() {
			return out, nil
		}
		if p.peek() != ',' {
			return nil, errSyntax
		}
		p.i++
		p.ows()
		if !p.more() {
			return nil, errSyntax // a trailing comma
		}
	}
	return out, nil
}

type sfParser struct {
	s string
	i int
}

func (p *sfParser) more() bool { return p.i < len(p.s) }

func (p *sfParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *sfParser) ows() {
	for p.more() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// key parses a key: lcalpha or "*", then lcalpha, DIGIT, "_", "-", ".", "*".
func (p *sfParser) key() (string, bool) {
	start := p.i
	c := p.peek()
	if !(c >= 'a' && c <= 'z' || c == '*') {
		return "", false
	}
	for p.more() {
		c := p.s[p.i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '*') {
			break
		}
		p.i++
	}
	return p.s[start:p.i], true
}

// member parses an Item or an Inner List, with its parameters.
func (p *sfParser) member() (sfItem, bool) {
	if p.peek() == '(' {
		p.i++
		for {
			for p.peek() == ' ' {
				p.i++
			}
			if p.peek() == ')' {
				p.i++
				return sfItem{kind: 'l'}, p.params()
			}
			if _, ok := p.bare(); !ok || !p.params() {
				return sfItem{}, false
			}
			if c := p.peek(); c != ' ' && c != ')' {
				return sfItem{}, false
			}
		}
	}
	it, ok := p.bare()
	return it, ok && p.params()
}

// params parses parameters: ";" key ["=" bare item], repeated.
func (p *sfParser) params() bool {
	for p.peek() == ';' {
		p.i++
		for p.peek() == ' ' {
			p.i++
		}
		if _, ok := p.key(); !ok {
			return false
		}
		if p.peek() == '=' {
			p.i++
			if _, ok := p.bare(); !ok {
				return false
			}
		}
	}
	return true
}

// bare parses a Bare Item.
func (p *sfParser) bare() (sfItem, bool) {
	c := p.peek()
	switch {
	case c == '-' || c >= '0' && c <= '9':
		return sfItem{kind: 'i'}, p.number()
	case c == '"':
		return sfItem{kind: 's'}, p.str()
	case c == '*' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		start := p.i
		p.i++
		for p.more() && isTokenChar(p.s[p.i]) {
			p.i++
		}
		return sfItem{kind: 't', token: p.s[start:p.i]}, true
	case c == ':':
		p.i++
		for p.more() && p.s[p.i] != ':' {
			if !isBase64(p.s[p.i]) {
				return sfItem{}, false
			}
			p.i++
		}
		if !p.more() {
			return sfItem{}, false
		}
		p.i++
		return sfItem{kind: 'y'}, true
	case c == '?':
		p.i++
		if c := p.peek(); c != '0' && c != '1' {
			return sfItem{}, false
		}
		p.i++
		return sfItem{kind: 'b'}, true
	case c == '@':
		p.i++
		return sfItem{kind: 'd'}, p.number()
	case c == '%':
		p.i++
		return sfItem{kind: '%'}, p.str()
	}
	return sfItem{}, false
}

// number parses an Integer (at most 15 digits) or a Decimal (12 digits, a dot, 1 to 3).
func (p *sfParser) number() bool {
	if p.peek() == '-' {
		p.i++
	}
	digits, frac, dot := 0, 0, false
	for p.more() {
		c := p.s[p.i]
		switch {
		case c >= '0' && c <= '9':
			if dot {
				frac++
			} else {
				digits++
			}
		case c == '.' && !dot && digits > 0:
			dot = true
		default:
			goto end
		}
		p.i++
	}
end:
	if dot {
		return digits > 0 && digits <= 12 && frac >= 1 && frac <= 3
	}
	return digits > 0 && digits <= 15
}

// str parses a String: printable ASCII between quotes, "\" escaping only '"' and '\'.
func (p *sfParser) str() bool {
	if p.peek() != '"' {
		return false
	}
	p.i++
	for p.more() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if n := p.peek(); n != '"' && n != '\\' {
				return false
			}
			p.i++
		case c == '"':
			return true
		case c < 0x20 || c >= 0x7f:
			return false
		}
	}
	return false
}

func isTokenChar(c byte) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~:/", c) >= 0
}

func isBase64(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}
