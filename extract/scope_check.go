package extract

import "strings"

// Check reports whether canonicalURL, found depth link hops from a seed, is in
// scope: ReasonNone when it is, otherwise the first reason it is not, checked in
// the order of the Reason constants (cheap tests first, regular expressions last).
// canonicalURL should be in the canonical form the crawl uses (lower-case scheme
// and host, no default port); Check tolerates other forms at some cost. It does not
// allocate for canonical URLs and is safe for simultaneous use.
func (s *Scope) Check(canonicalURL string, depth int) Reason {
	u := canonicalURL
	p, ok := scopeSplitURL(u)
	if !ok {
		if p.scheme != "" && !scopeHTTP(p.scheme) {
			return ReasonScheme
		}
		return ReasonMalformed
	}
	if !scopeHTTP(p.scheme) {
		return ReasonScheme
	}
	if s.maxLen > 0 && len(u) > s.maxLen {
		return ReasonURLTooLong
	}
	if r := s.checkMode(&p); r != ReasonNone {
		return r
	}
	if s.maxDepth > 0 && depth > s.maxDepth || s.maxDepth < 0 && depth > 0 {
		return ReasonDepth
	}
	if s.maxSegs > 0 && scopeSegments(p.path) > s.maxSegs {
		return ReasonTooManySegments
	}
	if s.maxRepeat > 0 && scopeRepeated(p.path, s.maxRepeat) {
		return ReasonRepeatedSegments
	}
	if s.maxQs > 0 && scopeParams(p.query) > s.maxQs {
		return ReasonTooManyParams
	}
	if s.calendar {
		if year, ok := scopeCalendarYear(p.path, p.query); ok {
			now := s.now().Year()
			if year > now+scopeCalendarAhead || year < now-scopeCalendarBehind {
				return ReasonCalendar
			}
		}
	}
	if s.exclude != nil && s.exclude.MatchString(u) {
		return ReasonExcluded
	}
	if s.include != nil && !s.include.MatchString(u) {
		return ReasonNotIncluded
	}
	return ReasonNone
}

// checkMode applies the scope mode to a split URL.
func (s *Scope) checkMode(p *scopeURL) Reason {
	if s.mode == ModeAny {
		return ReasonNone
	}
	// Keys are put together in buf, on the stack: a map lookup of string(bytes)
	// does not allocate.
	var buf [256]byte
	switch s.mode {
	case ModeHost:
		if !s.hasKey(append(append(buf[:0], seedKeyHost...), p.hostport...)) {
			return ReasonOffHost
		}
	case ModeDomain:
		h := strings.TrimSuffix(p.host, ".")
		if s.hasKey(append(append(buf[:0], seedKeyExact...), h...)) ||
			s.hasKey(append(append(buf[:0], seedKeyDomain...), h...)) {
			return ReasonNone
		}
		for i := 0; i < len(h); i++ {
			if h[i] == '.' && s.hasKey(append(append(buf[:0], seedKeyDomain...), h[i+1:]...)) {
				return ReasonNone
			}
		}
		return ReasonOffDomain
	case ModePrefix:
		s.mu.RLock()
		for _, pre := range s.prefixes[p.origin] {
			if strings.HasPrefix(p.rest, pre) {
				s.mu.RUnlock()
				return ReasonNone
			}
		}
		s.mu.RUnlock()
		if s.seedPrefixes {
			// A seed's directory ends in '/': it is a prefix of rest when it is rest
			// up to one of its slashes.
			key := append(append(buf[:0], seedKeyDirectory...), p.origin...)
			for i := 0; i < len(p.rest); i++ {
				if p.rest[i] == '/' && s.hasKey(append(key, p.rest[:i+1]...)) {
					return ReasonNone
				}
			}
		}
		return ReasonOffPrefix
	}
	return ReasonNone
}

// hasKey reports whether the scope holds a seed key, in memory or in its SeedIndex.
func (s *Scope) hasKey(key []byte) bool {
	s.mu.RLock()
	_, ok := s.keys[string(key)]
	index := s.index
	s.mu.RUnlock()
	if !ok && index != nil {
		ok = index.Has(string(key))
	}
	return ok
}

// scopeURL is an absolute URL split into the parts Check uses. Strings are
// substrings of the URL except where it was not canonical (upper case, a default
// port, user information), which costs an allocation.
type scopeURL struct {
	scheme   string // as written
	origin   string // scheme://host[:port], lower-case, no default port, no user info
	hostport string // host[:port] as in origin; IPv6 in brackets
	host     string // without port or brackets
	rest     string // everything after the authority, fragment excluded
	path     string // rest up to '?'
	query    string // after '?'
}

// scopeSplitURL splits u. ok is false when u is not scheme://authority... with a
// non-empty host; scheme is still set when u has one.
func scopeSplitURL(u string) (p scopeURL, ok bool) {
	i := strings.Index(u, "://")
	if i <= 0 {
		if j := strings.IndexByte(u, ':'); j > 0 && scopeSchemeChars(u[:j]) {
			p.scheme = u[:j]
		}
		return p, false
	}
	p.scheme = u[:i]
	if !scopeSchemeChars(p.scheme) {
		p.scheme = ""
		return p, false
	}
	rest := u[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority := rest[:end]
	p.origin = u[:i+3+end]
	p.rest = rest[end:]
	if h := strings.IndexByte(p.rest, '#'); h >= 0 {
		p.rest = p.rest[:h]
	}
	p.path, p.query = p.rest, ""
	if q := strings.IndexByte(p.rest, '?'); q >= 0 {
		p.path, p.query = p.rest[:q], p.rest[q+1:]
	}

	changed := false
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		authority = authority[at+1:]
		changed = true
	}
	p.hostport = authority
	var port string
	if strings.HasPrefix(authority, "[") {
		j := strings.IndexByte(authority, ']')
		if j < 0 {
			return p, false
		}
		p.host = authority[1:j]
		if after := authority[j+1:]; after != "" {
			if after[0] != ':' {
				return p, false
			}
			port = after[1:]
		}
	} else {
		p.host = authority
		if k := strings.LastIndexByte(authority, ':'); k >= 0 {
			p.host, port = authority[:k], authority[k+1:]
		}
	}
	if p.host == "" {
		return p, false
	}
	if port != "" && (port == "80" && p.scheme == "http" || port == "443" && p.scheme == "https") {
		p.hostport = p.hostport[:len(p.hostport)-len(port)-1]
		changed = true
	} else if port == "" && strings.HasSuffix(p.hostport, ":") {
		p.hostport = p.hostport[:len(p.hostport)-1] // "host:" has the default port
		changed = true
	}
	if scopeHasUpper(p.scheme) || scopeHasUpper(p.hostport) {
		p.scheme = strings.ToLower(p.scheme)
		p.hostport = strings.ToLower(p.hostport)
		p.host = strings.ToLower(p.host)
		changed = true
	}
	if changed {
		p.origin = p.scheme + "://" + p.hostport
	}
	return p, true
}

// scopeHTTP reports whether a lower-case scheme is http or https.
func scopeHTTP(scheme string) bool {
	return scheme == "http" || scheme == "https" ||
		strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")
}

// scopeSchemeChars reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '-' or '.'.
func scopeSchemeChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// scopeHasUpper reports whether s has an ASCII upper-case letter.
func scopeHasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}
