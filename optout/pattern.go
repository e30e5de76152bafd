package optout

import "strings"

// pattern is a path pattern as robots.txt writes one, which TDMRep's location re-uses:
// a prefix of the path, "*" any run of characters, a final "$" the end of the path.
// Both sides are compared after normalising percent-encoding (unreserved characters
// decoded, hex upper-case), so that /caf%c3%a9 and /caf%C3%A9 match.
type pattern struct {
	segs     []string // the literal parts between the stars
	anchored bool
}

func newPattern(p string) pattern {
	var pt pattern
	if strings.HasSuffix(p, "$") {
		pt.anchored = true
		p = p[:len(p)-1]
	}
	for _, s := range strings.Split(p, "*") {
		pt.segs = append(pt.segs, normalize(s, false))
	}
	return pt
}

// match reports whether the pattern matches path (path and query).
func (pt pattern) match(path string) bool {
	path = normalize(path, true)
	first := pt.segs[0]
	if !strings.HasPrefix(path, first) {
		return false
	}
	rest := path[len(first):]
	if len(pt.segs) == 1 {
		return !pt.anchored || rest == ""
	}
	for i, seg := range pt.segs[1:] {
		last := i == len(pt.segs)-2
		if last && pt.anchored {
			return strings.HasSuffix(rest, seg)
		}
		j := strings.Index(rest, seg)
		if j < 0 {
			return false
		}
		rest = rest[j+len(seg):]
	}
	return true
}

// normalize decodes percent-encoded unreserved characters, upper-cases the hex of the
// others, and percent-encodes bytes outside printable ASCII. In a URL's path (special
// set), "$" and "*" are percent-encoded too: a pattern matches them only written
// %24 and %2A, its own "$" and "*" being special (TDMRep §3.1).
func normalize(s string, special bool) string {
	if !strings.ContainsAny(s, "%") && !needsEscape(s) && !(special && strings.ContainsAny(s, "$*")) {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b = append(b, v)
			} else {
				b = append(b, '%', hex[v>>4], hex[v&15])
			}
			i += 2
		case c <= ' ' || c >= 0x7f || special && (c == '$' || c == '*'):
			b = append(b, '%', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return true
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
