package robots

// This file normalises percent-encoding as RFC 9309 §2.2.2 asks, the same way on both
// sides of a comparison: octets outside printable ASCII (and the few printable ones that
// may not appear in a URL, such as space and '"') become upper-case %XX; a %XX that
// encodes an unreserved character, "*" or "$" is decoded; any other %XX is kept with
// upper-case hex; a "%" not followed by two hex digits becomes %25. The result is
// idempotent: normalising it again changes nothing.

const upperHex = "0123456789ABCDEF"

// encodeTable[c] is set for the octets that are percent-encoded.
var encodeTable = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c <= 0x20 || c >= 0x7F
	}
	for _, c := range []byte("\"<>\\^`{|}") {
		t[c] = true
	}
	return t
}()

// needsNormalize reports whether appendNormalized would change s. A %XX already in
// normal form (upper-case hex, not an unreserved character, "*" or "$"), such as the
// %20 of a query, does not count, so that URLs as net/url writes them are matched
// without a copy.
func needsNormalize(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			if i+2 >= len(s) || !isUpperHex(s[i+1]) || !isUpperHex(s[i+2]) {
				return true
			}
			if v := unhex(s[i+1])<<4 | unhex(s[i+2]); isUnreserved(v) || v == '*' || v == '$' {
				return true
			}
			i += 2
		case encodeTable[c]:
			return true
		}
	}
	return false
}

// appendNormalized appends the normal form of s to dst.
func appendNormalized(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				v := unhex(s[i+1])<<4 | unhex(s[i+2])
				if isUnreserved(v) || v == '*' || v == '$' {
					dst = append(dst, v)
				} else {
					dst = append(dst, '%', upperHex[v>>4], upperHex[v&15])
				}
				i += 2
			} else {
				dst = append(dst, "%25"...)
			}
		case encodeTable[c]:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// isUnreserved reports whether c is an unreserved character of RFC 3986 §2.3.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isUpperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
