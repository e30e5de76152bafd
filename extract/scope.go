package extract

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// Reason names why Scope refused a URL; ReasonNone means in scope. Reasons are
// short, stable strings meant to be counted and logged.
type Reason string

// The reasons Scope.Check returns, in the order it checks them.
const (
	ReasonNone             Reason = ""
	ReasonScheme           Reason = "scheme"            // not http or https
	ReasonMalformed        Reason = "malformed"         // no host, or not an absolute URL
	ReasonURLTooLong       Reason = "url-too-long"      // longer than MaxURLLength
	ReasonOffHost          Reason = "off-host"          // mode host: not a seed's host
	ReasonOffDomain        Reason = "off-domain"        // mode domain: not under a seed's registered domain
	ReasonOffPrefix        Reason = "off-prefix"        // mode prefix: under no prefix
	ReasonDepth            Reason = "depth"             // deeper than MaxDepth
	ReasonTooManySegments  Reason = "too-many-segments" // more path segments than MaxPathSegments
	ReasonRepeatedSegments Reason = "repeated-segments" // a segment repeated more than MaxRepeatedSegments times
	ReasonTooManyParams    Reason = "too-many-params"   // more query parameters than MaxQueryParams
	ReasonCalendar         Reason = "calendar"          // an endless-calendar page (CalendarTrap)
	ReasonExcluded         Reason = "excluded"          // matches an Exclude expression
	ReasonNotIncluded      Reason = "not-included"      // matches no Include expression
)

// Scope modes.
const (
	ModeHost   = "host"   // the seeds' hosts (host and port)
	ModeDomain = "domain" // the seeds' registered domains and their subdomains
	ModePrefix = "prefix" // URLs starting with one of the prefixes
	ModeAny    = "any"    // every http and https URL
)

// Suggested trap limits, the configuration's defaults. ScopeOptions does not apply
// them by itself: there zero turns a limit off.
const (
	DefaultMaxURLLength        = 2048
	DefaultMaxPathSegments     = 32
	DefaultMaxRepeatedSegments = 3
	DefaultMaxQueryParams      = 16
)

// ErrScope is wrapped by every error NewScope and AddSeed return.
var ErrScope = errors.New("extract: scope")

// ScopeOptions says which URLs a crawl follows. The zero value is mode host with no
// seeds (nothing in scope) and every trap limit off.
type ScopeOptions struct {
	// Mode is ModeHost (also when empty), ModeDomain, ModePrefix or ModeAny.
	Mode string
	// Seeds are the crawl's start URLs. In mode host their hosts (with a port other
	// than the scheme's default) are in scope, whatever the scheme; in mode domain
	// their registered domains (golang.org/x/net/publicsuffix) and all subdomains are,
	// except that an IP address, localhost, a single-label name or a public suffix
	// stands for itself only. In mode prefix without Prefixes, each seed's directory
	// (its URL up to the last '/' of the path) is a prefix.
	Seeds []string
	// Prefixes, for mode prefix, are URL prefixes such as "https://example.com/docs/".
	// Scheme and host are compared case-insensitively, the rest byte for byte.
	Prefixes []string
	// Include and Exclude are regular expressions (Go RE2 syntax) matched against the
	// canonical URL. A URL matching any Exclude is refused; when Include is not
	// empty, a URL must match one of them. An expression that does not compile is an
	// error from NewScope.
	Include, Exclude []string
	// MaxDepth is the most link hops from a seed (seeds have depth 0); 0 is no limit,
	// and a negative value refuses every link: the seeds only.
	MaxDepth int
	// MaxURLLength is the longest URL in bytes; 0 is no limit.
	MaxURLLength int
	// MaxPathSegments is the most path segments (/a/b/ has 2); 0 is no limit.
	MaxPathSegments int
	// MaxRepeatedSegments is how often one path segment may occur in a path, anywhere:
	// with 2, /a/b/a/b is in scope and /a/b/a/b/a/b is not. 0 is no limit.
	MaxRepeatedSegments int
	// MaxQueryParams is the most query parameters (non-empty &-separated pieces);
	// 0 is no limit.
	MaxQueryParams int
	// CalendarTrap refuses calendar pages far from now: a URL whose path ends in a
	// date (/2031/05, /2031/05/17, /2031-05, /2031-05-17) or whose query has one
	// (date=2031-05-17, year=2031) with a year more than 3 years ahead of Now or
	// more than 30 years behind it. A date followed by more path (a blog post such as
	// /2009/05/title) is never refused.
	CalendarTrap bool
	// Now is the clock for CalendarTrap; nil means time.Now.
	Now func() time.Time
	// SeedIndex, when not nil, holds seed keys (see Scope.SeedKey) kept outside
	// memory: a URL whose key the scope does not hold in memory is in scope when the
	// index has it. Nil: the seeds added to the Scope are all it knows.
	SeedIndex SeedIndex
}

// A SeedIndex holds the seed keys of a scope outside memory, such as in a database
// of the seeds of a large seeds file. Has must be safe for simultaneous use by
// multiple goroutines; it reports false when it cannot tell.
type SeedIndex interface {
	Has(key string) bool
}

// Scope decides whether a canonical URL is in a crawl's scope. Check and AddSeed
// are safe for simultaneous use by multiple goroutines.
type Scope struct {
	mode                      string
	include, exclude          *regexp.Regexp // nil when there are none
	maxDepth, maxLen          int
	maxSegs, maxRepeat, maxQs int
	calendar                  bool
	now                       func() time.Time
	seedPrefixes              bool // mode prefix derives prefixes from the seeds

	mu       sync.RWMutex
	index    SeedIndex           // seed keys outside memory; nil: none
	keys     map[string]struct{} // seed keys (SeedKey) held in memory
	prefixes map[string][]string // scheme://host[:port] → configured prefixes, mode prefix
}

// NewScope checks opts, compiles its expressions and returns the Scope. Errors wrap
// ErrScope: an unknown mode, a seed or prefix that is not an absolute http or https
// URL, an expression that does not compile.
func NewScope(opts ScopeOptions) (*Scope, error) {
	s := &Scope{
		mode:      opts.Mode,
		maxDepth:  opts.MaxDepth,
		maxLen:    opts.MaxURLLength,
		maxSegs:   opts.MaxPathSegments,
		maxRepeat: opts.MaxRepeatedSegments,
		maxQs:     opts.MaxQueryParams,
		calendar:  opts.CalendarTrap,
		now:       opts.Now,
		index:     opts.SeedIndex,
		keys:      make(map[string]struct{}),
		prefixes:  make(map[string][]string),
	}
	if s.mode == "" {
		s.mode = ModeHost
	}
	switch s.mode {
	case ModeHost, ModeDomain, ModePrefix, ModeAny:
	default:
		return nil, fmt.Errorf("%w: unknown mode %q (want host, domain, prefix or any)", ErrScope, opts.Mode)
	}
	if s.now == nil {
		s.now = time.Now
	}
	var err error
	if s.include, err = scopeCompile("include", opts.Include); err != nil {
		return nil, err
	}
	if s.exclude, err = scopeCompile("exclude", opts.Exclude); err != nil {
		return nil, err
	}
	for _, p := range opts.Prefixes {
		origin, path, err := scopeSplitPrefix(p)
		if err != nil {
			return nil, err
		}
		s.prefixes[origin] = append(s.prefixes[origin], path)
	}
	s.seedPrefixes = s.mode == ModePrefix && len(opts.Prefixes) == 0
	for _, u := range opts.Seeds {
		if err := s.AddSeed(u); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// scopeCompile compiles exprs into one alternation, after compiling each alone so
// that an error names the expression at fault. Matching one alternation is a single
// pass over the URL however many expressions there are.
func scopeCompile(what string, exprs []string) (*regexp.Regexp, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	parts := make([]string, len(exprs))
	for i, e := range exprs {
		if _, err := regexp.Compile(e); err != nil {
			return nil, fmt.Errorf("%w: %s[%d] %q: %v", ErrScope, what, i, e, err)
		}
		parts[i] = "(?:" + e + ")"
	}
	re, err := regexp.Compile(strings.Join(parts, "|"))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrScope, what, err)
	}
	return re, nil
}

// AddSeed widens the scope with one more seed, as if it had been in
// ScopeOptions.Seeds: its host (mode host), its registered domain (mode domain) or
// its directory (mode prefix without Prefixes). u must be an absolute http or https
// URL; otherwise the error wraps ErrScope and the scope is unchanged.
func (s *Scope) AddSeed(u string) error {
	key, err := s.SeedKey(u)
	if err != nil {
		return err
	}
	s.AddSeedKey(key)
	return nil
}

// Seed keys begin with a mark of the mode that reads them, so that keys kept from
// a crawl in another mode never match.
const (
	seedKeyHost      = "h:" // + host[:port]
	seedKeyDomain    = "d." // + a registered domain: it and its subdomains
	seedKeyExact     = "d=" // + a host that stands for itself in mode domain
	seedKeyDirectory = "p:" // + scheme://host[:port]/directory/
)

// SeedKey returns what the scope learns from the seed u, as a string that AddSeedKey
// takes and a SeedIndex holds: a mark and u's host (mode host), its registered domain
// (mode domain) or its origin and directory (mode prefix without Prefixes). It returns
// "" in mode any and in mode prefix with Prefixes, which learn nothing from seeds. u
// must be an absolute http or https URL; otherwise the error wraps ErrScope. Keys are
// at most a few bytes longer than u.
func (s *Scope) SeedKey(u string) (string, error) {
	pu, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return "", fmt.Errorf("%w: seed %q: %v", ErrScope, u, err)
	}
	scheme := strings.ToLower(pu.Scheme)
	if scheme != "http" && scheme != "https" || pu.Hostname() == "" {
		return "", fmt.Errorf("%w: seed %q: not an absolute http or https URL", ErrScope, u)
	}
	host, err := scopeASCIIHost(pu.Hostname())
	if err != nil {
		return "", fmt.Errorf("%w: seed %q: %v", ErrScope, u, err)
	}
	switch {
	case s.mode == ModeHost:
		return seedKeyHost + scopeJoinPort(host, scheme, pu.Port()), nil
	case s.mode == ModeDomain:
		domain, sub := scopeDomain(host)
		if !sub {
			return seedKeyExact + domain, nil
		}
		return seedKeyDomain + domain, nil
	case s.seedPrefixes:
		dir := pu.EscapedPath()
		dir = dir[:strings.LastIndexByte(dir, '/')+1]
		if dir == "" {
			dir = "/"
		}
		return seedKeyDirectory + scheme + "://" + scopeJoinPort(host, scheme, pu.Port()) + dir, nil
	}
	return "", nil
}

// AddSeedKey widens the scope with a key from SeedKey, held in memory, and reports
// whether the scope did not hold it yet. An empty key adds nothing.
func (s *Scope) AddSeedKey(key string) bool {
	if key == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.keys[key]; ok {
		return false
	}
	s.keys[key] = struct{}{}
	return true
}

// SetSeedIndex makes the scope look up, from now on, the seed keys it does not hold in
// memory in idx, as ScopeOptions.SeedIndex does; nil stops it. A lookup in an index
// costs more than one in memory (and an allocation): set it when the keys outgrow
// memory.
func (s *Scope) SetSeedIndex(idx SeedIndex) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index = idx
}

// HasSeedKey reports whether the scope holds key in memory (not looking in its
// SeedIndex).
func (s *Scope) HasSeedKey(key string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.keys[key]
	return ok
}

// SeedKeys returns how many seed keys the scope holds in memory.
func (s *Scope) SeedKeys() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.keys)
}

// scopeSplitPrefix splits a configured prefix into its lower-cased origin
// (scheme://host[:port], default port dropped) and the rest, kept as written
// ("/" when empty).
func scopeSplitPrefix(p string) (origin, rest string, err error) {
	p = strings.TrimSpace(p)
	pu, err := url.Parse(p)
	if err != nil {
		return "", "", fmt.Errorf("%w: prefix %q: %v", ErrScope, p, err)
	}
	scheme := strings.ToLower(pu.Scheme)
	if scheme != "http" && scheme != "https" || pu.Hostname() == "" {
		return "", "", fmt.Errorf("%w: prefix %q: not an absolute http or https URL", ErrScope, p)
	}
	host, err := scopeASCIIHost(pu.Hostname())
	if err != nil {
		return "", "", fmt.Errorf("%w: prefix %q: %v", ErrScope, p, err)
	}
	after := p[strings.Index(p, "//")+2:]
	if i := strings.IndexAny(after, "/?#"); i >= 0 {
		rest = after[i:]
	}
	if rest == "" || rest[0] != '/' {
		rest = "/" + rest
	}
	return scheme + "://" + scopeJoinPort(host, scheme, pu.Port()), rest, nil
}

// scopeASCIIHost lower-cases host and converts an internationalised name to its
// ASCII (punycode) form, as canonical URLs carry it.
func scopeASCIIHost(host string) (string, error) {
	host = strings.ToLower(host)
	if net.ParseIP(host) != nil {
		return host, nil
	}
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return idna.Lookup.ToASCII(host)
		}
	}
	return host, nil
}

// scopeJoinPort returns host, with ":port" when port is not the scheme's default;
// IPv6 addresses get brackets back when a port follows.
func scopeJoinPort(host, scheme, port string) string {
	if port == "" || scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		if strings.IndexByte(host, ':') >= 0 {
			return "[" + host + "]"
		}
		return host
	}
	return net.JoinHostPort(host, port)
}

// scopeDomain returns the registered domain (eTLD+1) of an ASCII host and true, its
// subdomains being in the same domain. An IP address, localhost, a single-label
// name and a public suffix stand for themselves only: they come back with false.
func scopeDomain(host string) (string, bool) {
	host = strings.TrimSuffix(host, ".")
	if net.ParseIP(host) != nil || strings.IndexByte(host, '.') < 0 {
		return host, false
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host, false
	}
	return d, true
}
