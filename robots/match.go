package robots

import (
	"strconv"
	"strings"
)

// Rule is one allow or disallow line of a robots.txt file.
type Rule struct {
	// Allow is true for an allow line, false for a disallow line.
	Allow bool
	// Pattern is the path pattern as written, trimmed of spaces (with a leading "/"
	// added when it started with neither "/" nor "*").
	Pattern string
	// Line is the rule's line number in the file, counting from 1.
	Line int
}

// String formats the rule as "allow: /pattern (line 4)".
func (r Rule) String() string {
	kind := "disallow"
	if r.Allow {
		kind = "allow"
	}
	return kind + ": " + r.Pattern + " (line " + strconv.Itoa(r.Line) + ")"
}

// Reason says what decided a Decision.
type Reason uint8

const (
	// NoRule: no rule of the applicable groups matched (or no group applies), so the
	// URL is allowed.
	NoRule Reason = iota
	// ByRule: Decision.Rule decided.
	ByRule
	// RobotsTxt: the URL is /robots.txt itself, which is always allowed.
	RobotsTxt
	// Unavailable: robots.txt answered with a 4xx status (other than 429), so there are
	// no restrictions (RFC 9309 §2.3.1.3).
	Unavailable
	// Unreachable: robots.txt could not be fetched (429, 5xx, network error), so
	// everything is disallowed (RFC 9309 §2.3.1.4).
	Unreachable
)

// String returns a short lower-case description such as "no matching rule".
func (r Reason) String() string {
	switch r {
	case NoRule:
		return "no matching rule"
	case ByRule:
		return "rule"
	case RobotsTxt:
		return "/robots.txt is always allowed"
	case Unavailable:
		return "robots.txt unavailable: no restrictions"
	case Unreachable:
		return "robots.txt unreachable: everything disallowed"
	}
	return "reason(" + strconv.Itoa(int(r)) + ")"
}

// Decision is the answer of Match: whether the URL may be fetched, and why.
type Decision struct {
	// Allowed reports whether the agent may fetch the URL.
	Allowed bool
	// Rule is the rule that decided, nil when no rule did (see Reason). It points into
	// the Robots and must not be modified.
	Rule *Rule
	// Reason says what decided: ByRule when Rule is set.
	Reason Reason
}

// String explains the decision: the deciding rule, such as
// "disallow: /private (line 4)", or the Reason.
func (d Decision) String() string {
	if d.Rule != nil {
		return d.Rule.String()
	}
	return d.Reason.String()
}

// Allowed reports whether the agent may fetch rawURL. agent is a product token such as
// "ExampleBot" or a whole User-Agent value, whose leading token is used (see
// AgentToken). rawURL is an absolute URL or a path with an optional query; its fragment
// is ignored and an empty path is "/". Allowed does not allocate unless the URL needs
// its percent-encoding normalised.
func (r *Robots) Allowed(agent, rawURL string) bool {
	return r.Match(agent, rawURL).Allowed
}

// Match is like Allowed but also returns the rule that decided.
func (r *Robots) Match(agent, rawURL string) Decision {
	path := requestPath(rawURL)
	if path == "/robots.txt" || strings.HasPrefix(path, "/robots.txt?") {
		return Decision{Allowed: true, Reason: RobotsTxt}
	}
	switch {
	case r.unreachable:
		return Decision{Allowed: false, Reason: Unreachable}
	case r.unavailable:
		return Decision{Allowed: true, Reason: Unavailable}
	}
	if len(r.groups) == 0 {
		return Decision{Allowed: true, Reason: NoRule}
	}
	if needsNormalize(path) {
		path = string(appendNormalized(make([]byte, 0, len(path)+16), path))
	}
	var best *rule
	for _, gi := range r.groupsFor(agent) {
		rules := r.groups[gi].rules
		for i := range rules {
			ru := &rules[i]
			if best != nil && !ru.before(best) {
				break // rules are sorted: none later in this group can beat best
			}
			if ru.match(path) {
				best = ru
				break
			}
		}
	}
	if best == nil {
		return Decision{Allowed: true, Reason: NoRule}
	}
	return Decision{Allowed: best.Allow, Rule: &best.Rule, Reason: ByRule}
}

// groupsFor returns the indices of the groups that apply to agent: those naming its
// product token, else the "*" groups.
func (r *Robots) groupsFor(agent string) []int {
	tok := AgentToken(agent)
	if tok != "" && len(r.byAgent) > 0 {
		var buf [64]byte
		if len(tok) <= len(buf) {
			b := buf[:len(tok)]
			for i := 0; i < len(tok); i++ {
				c := tok[i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				b[i] = c
			}
			if idx, ok := r.byAgent[string(b)]; ok {
				return idx
			}
		} else if idx, ok := r.byAgent[strings.ToLower(tok)]; ok {
			return idx
		}
	}
	return r.star
}

// AgentToken returns the product token of a User-Agent value: its leading run of
// letters, '_' and '-' (RFC 9309 §2.2.1), such as "ExampleBot" for
// "ExampleBot/2.1 (+https://example.com/bot)". Leading spaces are skipped. It returns
// "" when the value does not start with such a run.
func AgentToken(userAgent string) string {
	s := trimSpace(userAgent)
	i := 0
	for i < len(s) && isTokenByte(s[i]) {
		i++
	}
	return s[:i]
}

func isTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_'
}

// requestPath returns the path and query of rawURL without its fragment; "/" when the
// path is empty. rawURL may be absolute ("https://host/p?q"), scheme-relative
// ("//host/p") or a path ("/p?q"); a relative path gets a leading "/".
func requestPath(rawURL string) string {
	s := rawURL
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if !strings.HasPrefix(s, "/") {
		if i := schemeEnd(s); i > 0 {
			s = s[i+1:]
		}
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexAny(s, "/?")
		if i < 0 {
			return "/"
		}
		s = s[i:]
	}
	if !strings.HasPrefix(s, "/") {
		return "/" + s
	}
	return s
}

// schemeEnd returns the index of the colon ending a URL scheme at the start of s, or -1.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			return i
		default:
			return -1
		}
	}
	return -1
}

// rule is a Rule compiled for matching.
type rule struct {
	Rule
	// segs are the literal parts of the normalised pattern between its "*" wildcards:
	// one part when there is none.
	segs []string
	// anchored is set when the pattern ended in "$": the path must end where it does.
	anchored bool
	// length is the pattern's length in octets after normalisation: the specificity of
	// RFC 9309 §2.2.2.
	length int
}

// before reports whether a ranks before b: longer first, allow before disallow on a
// tie, then the earlier line.
func (a *rule) before(b *rule) bool {
	if a.length != b.length {
		return a.length > b.length
	}
	if a.Allow != b.Allow {
		return a.Allow
	}
	return a.Line < b.Line
}

// newRule compiles the pattern of an allow or disallow line.
func newRule(allow bool, pattern string, line int) rule {
	if pattern[0] != '/' && pattern[0] != '*' {
		pattern = "/" + pattern
	}
	r := rule{Rule: Rule{Allow: allow, Pattern: pattern, Line: line}}
	p := pattern
	if strings.HasSuffix(p, "$") {
		r.anchored = true
		p = p[:len(p)-1]
	}
	// Split on the wildcards first, so that a %2A in the pattern, which normalises to
	// "*", stays a literal star; collapse runs of "*", which mean the same as one.
	parts := strings.Split(p, "*")
	r.segs = parts[:1]
	for _, seg := range parts[1:] {
		if seg == "" && len(r.segs) > 1 && r.segs[len(r.segs)-1] == "" {
			continue
		}
		r.segs = append(r.segs, seg)
	}
	r.length = len(parts) - 1 // the stars
	if r.anchored {
		r.length++
	}
	for i, seg := range r.segs {
		if needsNormalize(seg) {
			r.segs[i] = string(appendNormalized(nil, seg))
		}
		r.length += len(r.segs[i])
	}
	return r
}

// match reports whether the rule's pattern matches path, which is normalised. Each
// literal part is matched at its leftmost position after the previous one, which is
// correct for patterns whose only wildcard is "*" and never backtracks.
func (r *rule) match(path string) bool {
	s := r.segs
	if !strings.HasPrefix(path, s[0]) {
		return false
	}
	if len(s) == 1 {
		return !r.anchored || len(path) == len(s[0])
	}
	path = path[len(s[0]):]
	last := len(s) - 1
	for _, seg := range s[1:last] {
		i := strings.Index(path, seg)
		if i < 0 {
			return false
		}
		path = path[i+len(seg):]
	}
	if r.anchored {
		return strings.HasSuffix(path, s[last])
	}
	return strings.Contains(path, s[last])
}

// Pattern is a path pattern in the syntax of robots.txt's allow and disallow rules
// (RFC 9309 §2.2.2), compiled: a prefix of the path, "*" any run of characters, a final
// "$" the end of the path. Other formats borrow the syntax (TDMRep's location);
// Pattern matches them exactly as a rule is matched, percent-encoding normalised on
// both sides. The zero Pattern, like one made from "", matches nothing (as an empty
// Disallow).
type Pattern struct {
	r   rule
	set bool
}

// NewPattern compiles p. A pattern not starting with "/" or "*" gets a leading "/".
func NewPattern(p string) Pattern {
	if p == "" {
		return Pattern{}
	}
	return Pattern{r: newRule(false, p, 0), set: true}
}

// Match reports whether the pattern matches rawURL, an absolute URL or a path with an
// optional query, read as Robots.Match reads it.
func (p Pattern) Match(rawURL string) bool {
	if !p.set {
		return false
	}
	path := requestPath(rawURL)
	if needsNormalize(path) {
		path = string(appendNormalized(make([]byte, 0, len(path)+16), path))
	}
	return p.r.match(path)
}
