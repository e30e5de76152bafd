package storage

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// SURT returns the Sort-friendly URI Reordering Transform of rawURL as pywb
// computes CDXJ keys (the Internet Archive's surt package with its default
// canonicalizer): the host lower-cased, without a leading "www", "www2." and
// so on, its labels reversed and joined by commas, then the port if it is not
// the scheme's default, ")" and the path and query, lower-cased, with
// percent-encoding reduced to the minimum, dot segments resolved, a trailing
// slash removed (but for "/"), session identifiers removed, the query's
// arguments sorted and the fragment dropped. The scheme and user information
// are not part of the key. For example
//
//	http://www.Example.com:80/A/b/?b=2&a=1#top  →  com,example)/a/b?a=1&b=2
//
// A URL without an authority ("dns:example.com", "urn:x") is returned as it is;
// an empty one as "-". SURT never fails: what it cannot parse it keeps.
func SURT(rawURL string) string {
	if rawURL == "" {
		return "-"
	}
	if strings.HasPrefix(rawURL, "filedesc") {
		return rawURL
	}
	s := strings.TrimSpace(rawURL)
	if strings.ContainsAny(s, "\t\r\n") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	scheme, rest, ok := cutScheme(s)
	if !ok {
		scheme, rest = "http", s // "example.com/a" is read as http://example.com/a
	}
	scheme = strings.ToLower(scheme)
	// "http://https://host/" is read as "https://host/".
	for scheme == "http" || scheme == "https" {
		sch, r, ok := cutScheme(strings.TrimPrefix(rest, "//"))
		sch = strings.ToLower(sch)
		if !ok || !strings.HasPrefix(rest, "//") || sch != "http" && sch != "https" || !strings.HasPrefix(r, "//") {
			break
		}
		scheme, rest = sch, r
	}
	web := scheme == "http" || scheme == "https"
	if !strings.HasPrefix(rest, "//") && !web {
		return s // no authority: dns:, mailto:, urn:, warcinfo: ...
	}

	var authority, path, query string
	hasQuery := false
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, query, hasQuery = rest[:i], rest[i+1:], true
	}
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		authority, path = after, ""
		if i := strings.IndexByte(after, '/'); i >= 0 {
			authority, path = after[:i], after[i:]
		}
	} else {
		path = rest
	}
	if authority == "" && web {
		// "http:////host/a" and "http:host/a": the host is the first segment.
		p := strings.TrimLeft(path, "/")
		authority, path = p, "/"
		if i := strings.IndexByte(p, '/'); i >= 0 {
			authority, path = p[:i], p[i:]
		}
	}

	host, port := splitAuthority(authority)
	host = surtHost(host)
	if n, err := strconv.Atoi(port); err == nil && n >= 0 {
		port = strconv.Itoa(n)
		if scheme == "http" && n == 80 || scheme == "https" && n == 443 {
			port = ""
		}
	} else {
		port = escapeOnce(strings.ToLower(port))
	}

	path = surtPath(path)
	if hasQuery {
		query = surtQuery(query)
	}

	var b strings.Builder
	b.Grow(len(host) + len(path) + len(query) + 8)
	labels := strings.Split(host, ".")
	slices.Reverse(labels)
	b.WriteString(strings.Join(labels, ","))
	if port != "" {
		b.WriteByte(':')
		b.WriteString(port)
	}
	b.WriteByte(')')
	b.WriteString(path)
	if query != "" {
		b.WriteByte('?')
		b.WriteString(query)
	}
	return b.String()
}

// cutScheme splits "scheme:rest" when s starts with a scheme (a letter, then
// letters, digits, '+', '-' or '.').
func cutScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i], s[i+1:], true
		default:
			return "", s, false
		}
	}
	return "", s, false
}

// splitAuthority drops the user information of an authority and splits its
// host from its port. The host is lower-cased; IPv6 brackets are removed.
func splitAuthority(a string) (host, port string) {
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		a = a[i+1:]
	}
	if strings.HasPrefix(a, "[") {
		if i := strings.IndexByte(a, ']'); i >= 0 {
			host, port = a[1:i], strings.TrimPrefix(a[i+1:], ":")
			return strings.ToLower(host), port
		}
	}
	host = a
	if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i+1:]
	}
	return strings.ToLower(host), port
}

// surtHost canonicalizes a host: percent-decoded, IDNA-encoded, stray dots
// removed, numeric forms of IPv4 addresses written dotted, lower-cased and
// minimally escaped, without a leading "www." or "wwwN.".
func surtHost(h string) string {
	h = unescapeRepeatedly(h)
	if h != "" && !strings.ContainsFunc(h, func(r rune) bool { return r <= ' ' || r >= 0x7f && r < 0xa0 || r == 0xfffd }) {
		if a, err := idnaProfile.ToASCII(h); err == nil {
			h = a
		}
	}
	h = strings.Trim(strings.ReplaceAll(h, "..", "."), ".")
	if ip, ok := parseIPv4(h); ok {
		h = ip
	} else {
		h = escapeOnce(strings.ToLower(h))
	}
	if m := wwwPrefix.FindString(h); m != "" {
		h = h[len(m):]
	}
	return h
}

var (
	idnaProfile = idna.New(idna.Transitional(true))
	wwwPrefix   = regexp.MustCompile(`^www\d*\.`)
)

// parseIPv4 reads host as inet_aton does (one to four parts, each decimal,
// octal with a leading 0, the last filling the remaining bytes) when it looks
// like a number, and returns the dotted form.
func parseIPv4(host string) (string, bool) {
	if host == "" || strings.Trim(host, "0123456789.") != "" || host[0] == '.' {
		return "", false
	}
	if strings.Trim(host, "0123456789") == "" {
		n, err := strconv.ParseUint(host, 10, 64)
		if err != nil {
			// Longer than 64 bits: keep the low 32 bits, as surt does.
			n = 0
			for _, c := range host {
				n = n*10 + uint64(c-'0')
			}
		}
		return dotted(uint32(n)), true
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return "", false
	}
	var vals []uint64
	for _, p := range parts {
		if p == "" {
			return "", false
		}
		base := 10
		if len(p) > 1 && p[0] == '0' {
			base = 8
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return "", false
		}
		vals = append(vals, v)
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return "", false
		}
		n |= v << (8 * (3 - i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return "", false
	}
	return dotted(uint32(n | last)), true
}

func dotted(n uint32) string {
	return strconv.Itoa(int(n>>24)) + "." + strconv.Itoa(int(n>>16&0xff)) + "." +
		strconv.Itoa(int(n>>8&0xff)) + "." + strconv.Itoa(int(n&0xff))
}

// Session identifiers that surt removes from paths (ASP.NET) and queries.
var (
	pathSessionIDs = []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^\?]+\.aspx.*)$`),
		regexp.MustCompile(`(?i)^(.*/)(\([0-9a-z]{24}\)/)([^\?]+\.aspx.*)$`),
	}
	querySessionIDs = []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$`),
	}
)

// surtPath canonicalizes a path: minimal percent-encoding, dot segments and
// empty segments removed, lower-cased, ASP.NET session identifiers removed,
// no trailing slash unless the path is "/".
func surtPath(p string) string {
	p = escapeOnce(normalizePath(unescapeRepeatedly(p)))
	p = strings.ToLower(p)
	for _, re := range pathSessionIDs {
		if m := re.FindStringSubmatch(p); m != nil {
			p = m[1] + m[3]
		}
	}
	if len(p) > 1 && strings.HasSuffix(p, "/") {
		p = p[:len(p)-1]
	}
	return p
}

// normalizePath resolves "." and ".." segments and drops empty segments but
// the last (which keeps a trailing slash). A ".." above the root is kept.
func normalizePath(p string) string {
	if p == "" {
		return "/"
	}
	segs := strings.Split(p, "/")[1:]
	kept := make([]string, 0, len(segs))
	for _, s := range segs {
		switch {
		case s == ".":
		case s == ".." && len(kept) > 0:
			kept = kept[:len(kept)-1]
		default:
			kept = append(kept, s)
		}
	}
	var b strings.Builder
	b.WriteByte('/')
	for i, s := range kept {
		if i == len(kept)-1 {
			b.WriteString(s)
		} else if s != "" {
			b.WriteString(s)
			b.WriteByte('/')
		}
	}
	return b.String()
}

// surtQuery canonicalizes a query: minimal percent-encoding, session
// identifiers removed, lower-cased, arguments sorted. An empty query is "".
func surtQuery(q string) string {
	if q == "" {
		return ""
	}
	q = escapeOnce(unescapeRepeatedly(q))
	for _, re := range querySessionIDs {
		if m := re.FindStringSubmatch(q); m != nil {
			q = m[1] + m[2]
		}
	}
	q = strings.ToLower(q)
	if len(q) <= 1 {
		return q
	}
	type arg struct {
		name, value string
		hasValue    bool
	}
	parts := strings.Split(q, "&")
	args := make([]arg, len(parts))
	for i, p := range parts {
		n, v, ok := strings.Cut(p, "=")
		args[i] = arg{n, v, ok}
	}
	slices.SortStableFunc(args, func(a, b arg) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		switch {
		case a.hasValue != b.hasValue && !a.hasValue:
			return -1
		case a.hasValue != b.hasValue:
			return 1
		}
		return strings.Compare(a.value, b.value)
	})
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(a.name)
		if a.hasValue {
			b.WriteByte('=')
			b.WriteString(a.value)
		}
	}
	return b.String()
}

// unescapeRepeatedly percent-decodes s until nothing changes. A '%' not
// followed by two hexadecimal digits stays as it is.
func unescapeRepeatedly(s string) string {
	for strings.IndexByte(s, '%') >= 0 {
		u := unescapeOnce(s)
		if u == s {
			break
		}
		s = u
	}
	return s
}

func unescapeOnce(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// escapeOnce percent-encodes the bytes that a URL key may not hold as they
// are: controls, space, '#', '%' and every byte from 0x7f up.
func escapeOnce(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if mustEscape(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hexDigits = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if mustEscape(c) {
			b = append(b, '%', hexDigits[c>>4], hexDigits[c&0xf])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

func mustEscape(c byte) bool { return c <= ' ' || c == '#' || c == '%' || c >= 0x7f }
