package extract

import (
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// canonIDNA converts hosts to ASCII the way browsers do (UTS #46 as in the WHATWG URL
// standard): non-transitional mapping, Bidi and joiner rules checked, hyphen positions
// and STD3 ASCII rules not checked, so "r3---sn-x" and "my_host" pass. Bytes that no
// host may carry are refused afterwards by canonHost.
var canonIDNA = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
)

// canonHostByte holds the bytes a canonical host name may carry.
var canonHostByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t['-'], t['_'], t['.'] = true, true, true
	return t
}()

// canonHost returns the canonical form of a host that is not an IPv6 literal.
func canonHost(h string) (string, error) {
	if strings.IndexByte(h, '%') >= 0 {
		d, ok := canonPercentDecode(h)
		if !ok {
			return "", ErrHost
		}
		h = d
	}
	if h == "" {
		return "", ErrHost
	}
	needIDNA, lower := false, true
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= utf8.RuneSelf:
			needIDNA = true
		case 'A' <= c && c <= 'Z':
			lower = false
		case !canonHostByte[c]:
			return "", ErrHost
		}
	}
	if !needIDNA && canonHasPunycodeLabel(h) {
		needIDNA = true
	}
	if needIDNA {
		if !utf8.ValidString(h) {
			return "", ErrHost
		}
		a, err := canonIDNA.ToASCII(h)
		if err != nil || !canonDNSLength(a) {
			return "", ErrHost
		}
		h = a
	} else if !lower {
		h = strings.ToLower(h)
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" || h[0] == '.' || h[len(h)-1] == '.' || strings.Contains(h, "..") {
		return "", ErrHost
	}
	for i := 0; i < len(h); i++ {
		if !canonHostByte[h[i]] {
			return "", ErrHost
		}
	}
	if canonEndsInNumber(h) {
		return canonIPv4(h)
	}
	return h, nil
}

// canonDNSLength reports whether an ASCII host converted from an internationalised
// one keeps to DNS's lengths (RFC 1035 §2.3.4): labels of at most 63 bytes, at most
// 253 in all, without the root's dot. A longer punycode label names no host, and
// ToASCII cannot read back the longest ones it writes, so a URL canonicalised once
// would be refused the next time.
func canonDNSLength(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if len(h) > 253 {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if len(label) > 63 {
			return false
		}
	}
	return true
}

func canonHasPunycodeLabel(h string) bool {
	for {
		if len(h) >= 4 && strings.EqualFold(h[:4], "xn--") {
			return true
		}
		i := strings.IndexByte(h, '.')
		if i < 0 {
			return false
		}
		h = h[i+1:]
	}
}

// canonPercentDecode decodes every %XX in s; ok is false if an escape is malformed.
func canonPercentDecode(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) || !canonIsHex(s[i+1]) || !canonIsHex(s[i+2]) {
			return "", false
		}
		b = append(b, canonUnhex(s[i+1])<<4|canonUnhex(s[i+2]))
		i += 2
	}
	return string(b), true
}

// canonEndsInNumber reports whether the last label of h is a number as the WHATWG URL
// standard reads it (decimal, or hex with "0x"), which makes h an IPv4 address.
func canonEndsInNumber(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	digits := true
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			digits = false
			break
		}
	}
	if digits {
		return true
	}
	if len(last) < 2 || last[0] != '0' || (last[1] != 'x' && last[1] != 'X') {
		return false
	}
	for i := 2; i < len(last); i++ {
		if !canonIsHex(last[i]) {
			return false
		}
	}
	return true
}

// canonIPv4 parses an IPv4 address in any form the WHATWG URL standard accepts (one to
// four parts, each decimal, octal with a leading 0, or hex with 0x) and returns it in
// dotted decimal.
func canonIPv4(h string) (string, error) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return "", ErrHost
	}
	var nums [4]uint64
	for i, p := range parts {
		n, ok := canonIPv4Number(p)
		if !ok {
			return "", ErrHost
		}
		nums[i] = n
	}
	last := len(parts) - 1
	for _, n := range nums[:last] {
		if n > 255 {
			return "", ErrHost
		}
	}
	if nums[last] >= 1<<(8*(5-len(parts))) {
		return "", ErrHost
	}
	v := nums[last]
	for i := range last {
		v += nums[i] << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}).String(), nil
}

// canonIPv4Number parses one part of an IPv4 address; values above 2^32 fail.
func canonIPv4Number(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		base, p = 16, p[2:]
	case len(p) >= 2 && p[0] == '0':
		base, p = 8, p[1:]
	}
	var n uint64
	for i := 0; i < len(p); i++ {
		c := p[i]
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case base == 16 && canonIsHex(c):
			d = uint64(canonUnhex(c))
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		n = n*base + d
		if n > 1<<32 {
			return 0, false
		}
	}
	return n, true
}

// canonIPv6 returns the RFC 5952 form of the inside of an IPv6 literal, in brackets.
func canonIPv6(s string) (string, error) {
	if strings.IndexByte(s, '%') >= 0 {
		return "", ErrHost // zones have no meaning in a URL fetched by a crawler
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() {
		return "", ErrHost
	}
	return "[" + a.String() + "]", nil
}
