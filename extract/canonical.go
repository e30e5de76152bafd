package extract

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Errors wrapped in a *URLError by Canonical, Resolve and HTML's link resolution. Callers
// branch on them with errors.Is, for example to count refusals by reason.
var (
	// ErrRelative means the URL has no scheme, so it cannot be canonical on its own.
	ErrRelative = errors.New("extract: url has no scheme")
	// ErrScheme means the scheme is not http or https, the only ones the crawler fetches.
	ErrScheme = errors.New("extract: scheme is not http or https")
	// ErrHost means the host is empty, has bytes no host may have, fails IDNA, or looks
	// like an IPv4 address that is out of range.
	ErrHost = errors.New("extract: invalid host")
	// ErrPort means the port is not a decimal number in 0..65535.
	ErrPort = errors.New("extract: invalid port")
)

// canonMaxErrURL bounds how much of a hostile URL a URLError keeps.
const canonMaxErrURL = 512

// URLError records a URL that could not be canonicalised or resolved and why.
type URLError struct {
	Op  string // "canonical" or "resolve"
	URL string // the input, cut to its first 512 bytes
	Err error  // one of ErrRelative, ErrScheme, ErrHost, ErrPort
}

func (e *URLError) Error() string {
	// Err is one of the package's sentinels, which names the package.
	return e.Op + " " + strconv.Quote(e.URL) + ": " + e.Err.Error()
}

// Unwrap returns the sentinel that says why.
func (e *URLError) Unwrap() error { return e.Err }

func canonErr(op, raw string, err error) error {
	if len(raw) > canonMaxErrURL {
		raw = raw[:canonMaxErrURL]
	}
	return &URLError{Op: op, URL: raw, Err: err}
}

// URLRules says which parts of a URL the crawl considers noise. The zero value strips no
// parameter and keeps the query order: it still applies every normalisation that does
// not depend on configuration. A nil *URLRules behaves as the zero value.
//
// A URLRules is safe for simultaneous use by multiple goroutines as long as nobody
// modifies its fields.
type URLRules struct {
	// StripParams lists query parameter names to remove. Matching is ASCII
	// case-insensitive on the parameter name (the part before "="), and "*" matches any
	// run of characters, so "utm_*" removes utm_source and utm_medium. The same patterns
	// remove path parameters such as ";jsessionid=..." from path segments.
	StripParams []string
	// SortQuery sorts the remaining query parameters by name (a stable sort: values of
	// a repeated name keep their order). When false, the order of the page is kept.
	SortQuery bool
}

// DefaultURLRules returns the rules used by Canonical: tracking parameters (utm_*,
// fbclid, gclid, dclid, gbraid, wbraid, msclkid, yclid, mc_cid, mc_eid, _hsenc, _hsmi)
// and session identifiers (jsessionid, phpsessid, aspsessionid*, sid, sessionid, cfid,
// cftoken) are stripped; query order is kept.
func DefaultURLRules() URLRules {
	return URLRules{StripParams: []string{
		"utm_*", "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid",
		"mc_cid", "mc_eid", "_hsenc", "_hsmi",
		"jsessionid", "phpsessid", "aspsessionid*", "sid", "sessionid", "cfid", "cftoken",
	}}
}

var canonDefaultRules = DefaultURLRules()

// Canonical returns the canonical form of rawURL under DefaultURLRules. See
// (*URLRules).Canonical.
func Canonical(rawURL string) (string, error) {
	return canonDefaultRules.Canonical(rawURL)
}

// Canonical returns the one form of rawURL under which the crawler stores, deduplicates
// and fetches it. rawURL must be absolute with scheme http or https; other schemes fail
// with ErrScheme and relative references with ErrRelative, wrapped in a *URLError.
//
// The canonical form, following RFC 3986 §6 and the WHATWG URL standard where browsers
// depart from the RFC:
//   - leading and trailing spaces and control characters are trimmed, and tabs and
//     newlines anywhere are removed, as browsers do with href values;
//   - scheme and host are lower case; any number of slashes or backslashes may follow
//     "http:"; user information ("user:pass@") is dropped so credentials found in links
//     are never sent;
//   - the host is percent-decoded and converted to ASCII with IDNA (UTS #46 non-
//     transitional lookup, with hyphen and STD3 checks off, as browsers do, so "_" is
//     accepted); one trailing dot is removed; IPv4 addresses in any form browsers accept
//     ("0x7f.1", "2130706433") become dotted decimal; IPv6 literals take their RFC 5952
//     form;
//   - the port is dropped when it is the scheme's default (80 or 443) or empty;
//   - in path and query, percent-encoding is normalised: hex digits upper case,
//     unreserved characters (A-Z a-z 0-9 - . _ ~) decoded, reserved ones kept as they
//     are, and every other byte (space, non-ASCII UTF-8, "%" not followed by two hex
//     digits) encoded;
//   - backslashes in the path become slashes; dot segments are removed after decoding,
//     so "%2e%2e" counts as ".."; an empty path becomes "/";
//   - path parameters and query parameters matching StripParams are removed, and so are
//     empty query parameters ("a=1&&b=2"); an empty query is dropped with its "?";
//   - the fragment is dropped.
//
// Canonical is idempotent: Canonical(Canonical(u)) == Canonical(u). It runs in time
// linear in len(rawURL) and never fetches or resolves names.
func (r *URLRules) Canonical(rawURL string) (string, error) {
	p, err := r.canonParse(rawURL)
	if err != nil {
		return "", canonErr("canonical", rawURL, err)
	}
	return p.String(), nil
}

// Resolve resolves href against base as a browser resolves an href attribute, then
// returns the result's canonical form (see Canonical). Before resolving, leading and
// trailing spaces and control characters are trimmed and tabs and newlines are removed;
// backslashes count as slashes; "http:foo" with an http base is relative, as in
// browsers. An empty href or one that is only a fragment resolves to base itself.
//
// base must be absolute with scheme http or https. Errors are *URLError values wrapping
// ErrRelative, ErrScheme (for example "mailto:" hrefs), ErrHost or ErrPort.
func (r *URLRules) Resolve(base *url.URL, href string) (string, error) {
	if base == nil {
		return "", canonErr("resolve", href, ErrRelative)
	}
	b, err := (*URLRules)(nil).canonParse(base.String())
	if err != nil {
		return "", canonErr("resolve", base.String(), err)
	}
	s, err := r.canonResolve(&b, href)
	if err != nil {
		return "", canonErr("resolve", href, err)
	}
	return s, nil
}

// Authority returns "scheme://host[:port]" of a canonical URL: the key under which the
// frontier, the robots cache and politeness know a host. For a URL that is not in
// canonical form it returns the authority of its canonical form, and "" when it has none
// (not http or https, or an invalid host or port).
func Authority(canonicalURL string) string {
	u := canonClean(canonicalURL)
	scheme, rest, ok := canonSplitScheme(u)
	if !ok {
		return ""
	}
	lower := strings.ToLower(scheme)
	if lower != "http" && lower != "https" {
		return ""
	}
	i := strings.IndexAny(rest, "/\\?#")
	j := 0
	for j < len(rest) && (rest[j] == '/' || rest[j] == '\\') {
		j++
	}
	if j > 0 {
		if k := strings.IndexAny(rest[j:], "/\\?#"); k >= 0 {
			i = j + k
		} else {
			i = len(rest)
		}
	} else if i < 0 {
		i = len(rest)
	}
	host, err := canonHostPort(lower, rest[j:i])
	if err != nil {
		return ""
	}
	if scheme == lower && j == 2 && rest[:2] == "//" && rest[2:i] == host {
		return u[:len(scheme)+1+i]
	}
	return lower + "://" + host
}

// canonParts is a URL split into its canonical components.
type canonParts struct {
	scheme string // "http" or "https"
	host   string // ASCII host, with ":port" unless it is the default
	path   string // starts with "/"
	query  string // without "?"; "" means none
}

func (p *canonParts) String() string {
	n := len(p.scheme) + 3 + len(p.host) + len(p.path)
	if p.query != "" {
		n += 1 + len(p.query)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(p.scheme)
	b.WriteString("://")
	b.WriteString(p.host)
	b.WriteString(p.path)
	if p.query != "" {
		b.WriteByte('?')
		b.WriteString(p.query)
	}
	return b.String()
}

// canonParse splits and normalises an absolute http or https URL.
func (r *URLRules) canonParse(raw string) (canonParts, error) {
	s := canonClean(raw)
	scheme, rest, ok := canonSplitScheme(s)
	if !ok {
		return canonParts{}, ErrRelative
	}
	scheme = canonLowerScheme(scheme)
	if scheme != "http" && scheme != "https" {
		return canonParts{}, ErrScheme
	}
	return r.canonHierarchical(scheme, rest)
}

// canonHierarchical normalises what follows "http:" or "https:".
func (r *URLRules) canonHierarchical(scheme, rest string) (canonParts, error) {
	p := canonParts{scheme: scheme}
	for len(rest) > 0 && (rest[0] == '/' || rest[0] == '\\') {
		rest = rest[1:]
	}
	end := strings.IndexAny(rest, "/\\?#")
	if end < 0 {
		end = len(rest)
	}
	host, err := canonHostPort(scheme, rest[:end])
	if err != nil {
		return canonParts{}, err
	}
	p.host = host
	rest = rest[end:]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	path, query, hasQuery := strings.Cut(rest, "?")
	p.path = r.canonPath(path)
	if hasQuery {
		p.query = r.canonQuery(query)
	}
	return p, nil
}

// canonResolve resolves href against the canonical parts of a base URL.
func (r *URLRules) canonResolve(base *canonParts, href string) (string, error) {
	ref := canonClean(href)
	if scheme, rest, ok := canonSplitScheme(ref); ok {
		scheme = canonLowerScheme(scheme)
		if scheme != base.scheme || (rest != "" && (rest[0] == '/' || rest[0] == '\\')) {
			p, err := r.canonParse(ref)
			if err != nil {
				return "", err
			}
			return p.String(), nil
		}
		ref = rest // "http:foo" against an http base is a relative path
	}
	var target string
	switch {
	case len(ref) >= 2 && canonIsSlash(ref[0]) && canonIsSlash(ref[1]):
		target = base.scheme + ":" + ref
	case ref != "" && canonIsSlash(ref[0]):
		target = base.scheme + "://" + base.host + ref
	case ref == "" || ref[0] == '#':
		target = base.String()
	case ref[0] == '?':
		target = base.scheme + "://" + base.host + base.path + ref
	default:
		dir := base.path[:strings.LastIndexByte(base.path, '/')+1]
		target = base.scheme + "://" + base.host + dir + ref
	}
	p, err := r.canonParse(target)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

func canonIsSlash(c byte) bool { return c == '/' || c == '\\' }

// canonClean trims leading and trailing C0 controls and spaces and removes tabs and
// newlines, as the WHATWG URL parser does before parsing.
func canonClean(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	s = s[i:j]
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// canonSplitScheme splits "scheme:rest" when s starts with a syntactically valid scheme.
func canonSplitScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return "", s, false
			}
		case c == ':':
			if i == 0 {
				return "", s, false
			}
			return s[:i], s[i+1:], true
		default:
			return "", s, false
		}
	}
	return "", s, false
}

func canonLowerScheme(s string) string {
	switch s {
	case "http", "https":
		return s
	}
	return strings.ToLower(s)
}

// canonHostPort normalises an authority: user information dropped, host canonical,
// default or empty port dropped.
func canonHostPort(scheme, auth string) (string, error) {
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}
	var host, port string
	if strings.HasPrefix(auth, "[") {
		end := strings.IndexByte(auth, ']')
		if end < 0 {
			return "", ErrHost
		}
		h, err := canonIPv6(auth[1:end])
		if err != nil {
			return "", err
		}
		host = h
		rest := auth[end+1:]
		if rest != "" {
			if rest[0] != ':' {
				return "", ErrHost
			}
			port = rest[1:]
		}
	} else {
		h := auth
		if i := strings.LastIndexByte(auth, ':'); i >= 0 {
			h, port = auth[:i], auth[i+1:]
		}
		var err error
		if host, err = canonHost(h); err != nil {
			return "", err
		}
	}
	port, err := canonPort(scheme, port)
	if err != nil {
		return "", err
	}
	if port == "" {
		return host, nil
	}
	return host + ":" + port, nil
}

// canonPort returns the port without leading zeros, or "" when it is empty or the
// scheme's default.
func canonPort(scheme, port string) (string, error) {
	if port == "" {
		return "", nil
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return "", ErrPort
		}
	}
	trimmed := strings.TrimLeft(port, "0")
	if trimmed == "" {
		trimmed = "0"
	}
	if len(trimmed) > 5 {
		return "", ErrPort
	}
	n, _ := strconv.Atoi(trimmed)
	if n > 65535 {
		return "", ErrPort
	}
	if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
		return "", nil
	}
	return trimmed, nil
}

// canonPath normalises a path: backslashes to slashes, percent-encoding, path
// parameters, dot segments, and "/" for an empty path.
func (r *URLRules) canonPath(path string) string {
	if path == "" {
		return "/"
	}
	if canonNeedsEscape(path, &canonPathOK) {
		path = string(canonAppendEscaped(make([]byte, 0, len(path)+16), path, &canonPathOK, true))
	}
	if r != nil && len(r.StripParams) > 0 && strings.IndexByte(path, ';') >= 0 {
		path = r.canonStripPathParams(path)
	}
	return canonRemoveDots(path)
}

// canonStripPathParams removes ";name=value" parameters matching StripParams from every
// segment of path.
func (r *URLRules) canonStripPathParams(path string) string {
	segs := strings.Split(path, "/")
	changed := false
	for i, seg := range segs {
		if strings.IndexByte(seg, ';') < 0 {
			continue
		}
		params := strings.Split(seg, ";")
		kept := params[:1]
		for _, prm := range params[1:] {
			name, _, _ := strings.Cut(prm, "=")
			if r.canonStrip(name) {
				changed = true
				continue
			}
			kept = append(kept, prm)
		}
		segs[i] = strings.Join(kept, ";")
	}
	if !changed {
		return path
	}
	return strings.Join(segs, "/")
}

// canonRemoveDots removes "." and ".." segments (RFC 3986 §5.2.4) from a path that
// starts with "/".
func canonRemoveDots(path string) string {
	if !canonHasDotSegment(path) {
		return path
	}
	segs := strings.Split(path[1:], "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	return "/" + strings.Join(out, "/")
}

func canonHasDotSegment(path string) bool {
	for i := 0; i < len(path); i++ {
		if path[i] != '.' || (i > 0 && path[i-1] != '/') {
			continue
		}
		j := i + 1
		if j < len(path) && path[j] == '.' {
			j++
		}
		if j == len(path) || path[j] == '/' {
			return true
		}
	}
	return false
}

// canonQuery normalises a query: percent-encoding, stripped and empty parameters,
// optional sort.
func (r *URLRules) canonQuery(q string) string {
	if canonNeedsEscape(q, &canonQueryOK) {
		q = string(canonAppendEscaped(make([]byte, 0, len(q)+16), q, &canonQueryOK, false))
	}
	strip := r != nil && len(r.StripParams) > 0
	sortQ := r != nil && r.SortQuery
	if !strip && !sortQ && !strings.Contains(q, "&&") && !strings.HasPrefix(q, "&") &&
		!strings.HasSuffix(q, "&") {
		return q
	}
	params := strings.Split(q, "&")
	kept := params[:0]
	for _, prm := range params {
		if prm == "" {
			continue
		}
		if strip {
			name, _, _ := strings.Cut(prm, "=")
			if r.canonStrip(name) {
				continue
			}
		}
		kept = append(kept, prm)
	}
	if sortQ {
		slices.SortStableFunc(kept, func(a, b string) int {
			an, _, _ := strings.Cut(a, "=")
			bn, _, _ := strings.Cut(b, "=")
			return strings.Compare(an, bn)
		})
	}
	return strings.Join(kept, "&")
}

// canonStrip reports whether a parameter name matches one of the StripParams patterns.
func (r *URLRules) canonStrip(name string) bool {
	for _, pat := range r.StripParams {
		if canonGlob(pat, name) {
			return true
		}
	}
	return false
}

// canonGlob matches name against pattern, where "*" matches any run of bytes, ASCII
// case-insensitively. It runs in O(len(pattern)·len(name)) at worst.
func canonGlob(pattern, name string) bool {
	p, n := 0, 0
	starP, starN := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			starP, starN = p, n
			p++
		case p < len(pattern) && canonLowerByte(pattern[p]) == canonLowerByte(name[n]):
			p++
			n++
		case starP >= 0:
			starN++
			p, n = starP+1, starN
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

func canonLowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Byte classes of RFC 3986.
var (
	canonUnreserved [256]bool // ALPHA DIGIT - . _ ~
	canonPathOK     [256]bool // pchar and "/": unreserved, sub-delims, ":", "@", "/"
	canonQueryOK    [256]bool // pchar, "/" and "?"
)

func init() {
	for c := 'a'; c <= 'z'; c++ {
		canonUnreserved[c] = true
		canonUnreserved[c-'a'+'A'] = true
	}
	for c := '0'; c <= '9'; c++ {
		canonUnreserved[c] = true
	}
	for _, c := range "-._~" {
		canonUnreserved[c] = true
	}
	canonPathOK = canonUnreserved
	for _, c := range "!$&'()*+,;=:@/" {
		canonPathOK[c] = true
	}
	canonQueryOK = canonPathOK
	canonQueryOK['?'] = true
}

// canonNeedsEscape reports whether s has a byte that canonAppendEscaped would change.
func canonNeedsEscape(s string, ok *[256]bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || !ok[c] {
			return true
		}
	}
	return false
}

const canonUpperHex = "0123456789ABCDEF"

// canonAppendEscaped appends s to b with percent-encoding normalised: escapes of
// unreserved bytes decoded, other escapes upper-cased, a stray "%" encoded as "%25", and
// bytes outside ok encoded. With slashes set, a backslash becomes "/".
func canonAppendEscaped(b []byte, s string, ok *[256]bool, slashes bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 < len(s) && canonIsHex(s[i+1]) && canonIsHex(s[i+2]) {
				v := canonUnhex(s[i+1])<<4 | canonUnhex(s[i+2])
				if canonUnreserved[v] {
					b = append(b, v)
				} else {
					b = append(b, '%', canonUpperHex[v>>4], canonUpperHex[v&15])
				}
				i += 2
			} else {
				b = append(b, "%25"...)
			}
		case c == '\\' && slashes:
			b = append(b, '/')
		case ok[c]:
			b = append(b, c)
		default:
			b = append(b, '%', canonUpperHex[c>>4], canonUpperHex[c&15])
		}
	}
	return b
}

func canonIsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func canonUnhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
