package robots

import (
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// MaxSize is the number of bytes of a robots.txt body that Parse reads (500 KiB, the
// minimum RFC 9309 §2.5 asks a crawler to parse). Bytes beyond it are ignored, even
// when that cuts the last line short.
const MaxSize = 500 << 10

// Robots is a parsed robots.txt file, or the rules that a fetch status implies (see
// FromStatus). The zero value allows everything.
//
// A Robots is immutable and safe for simultaneous use by multiple goroutines.
type Robots struct {
	groups   []group
	byAgent  map[string][]int // lower-case product token → indices into groups
	star     []int            // indices of groups whose user-agent is "*"
	sitemaps []string
	records  []Record

	status      int  // HTTP status given to FromStatus, 0 for Parse
	unreachable bool // disallow everything (FromStatus)
	unavailable bool // allow everything because of a 4xx (FromStatus)
}

// group is one group of the file: its user-agent lines and its members.
type group struct {
	agents     []string // user-agent values as written
	rules      []rule   // in decision order: longer first, allow first, then line
	crawlDelay time.Duration
	rate       Rate
	visit      []VisitTime
	signal     map[string]string
	usage      []usageRule // Content-Usage rules, in file order
	line       int         // line of the first user-agent
}

// Record is one line of a robots.txt file with a key this package does not interpret
// (or a value it could not use, such as a relative Sitemap URL). Key is lower-case;
// Value is as written, trimmed of spaces; Line counts from 1.
type Record struct {
	Key   string
	Value string
	Line  int
}

// Parse parses a robots.txt body. It never fails and never fetches: lines it cannot
// read are skipped. Only the first MaxSize bytes are read. Line endings may be LF, CR or
// CRLF; a leading UTF-8 byte order mark is skipped; keys are case-insensitive and may be
// separated from their value by a colon or by whitespace; "useragent", "user agent",
// "disalow" and "dissallow" are read as the keys they misspell.
func Parse(body []byte) *Robots {
	if len(body) > MaxSize {
		body = body[:MaxSize]
	}
	text := string(body) // one copy; every pattern and value is a substring of it
	text = strings.TrimPrefix(text, "\uFEFF")

	p := parser{r: &Robots{byAgent: make(map[string][]int)}}
	line := 0
	for len(text) > 0 {
		line++
		i := strings.IndexAny(text, "\r\n")
		var l string
		if i < 0 {
			l, text = text, ""
		} else {
			l = text[:i]
			if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			text = text[i+1:]
		}
		p.line(l, line)
	}
	return p.finish()
}

// parser holds the state of Parse between lines.
type parser struct {
	r       *Robots
	cur     int  // index of the current group in r.groups, when started
	inRules bool // the current group has had an allow or disallow line
	started bool // a group has been opened
}

func (p *parser) line(l string, n int) {
	if i := strings.IndexByte(l, '#'); i >= 0 {
		l = l[:i]
	}
	key, value, ok := splitLine(l)
	if !ok {
		return
	}
	switch key {
	case "user-agent":
		p.userAgent(value, n)
	case "allow", "disallow":
		if !p.started {
			return // RFC 9309 §2.2.2: rules outside any group are ignored
		}
		p.inRules = true
		if value == "" {
			return // an empty rule matches nothing
		}
		g := &p.r.groups[p.cur]
		g.rules = append(g.rules, newRule(key == "allow", value, n))
	case "sitemap":
		if isAbsURL(value) {
			p.r.sitemaps = append(p.r.sitemaps, value)
		} else {
			p.r.records = append(p.r.records, Record{Key: key, Value: value, Line: n})
		}
	case "crawl-delay":
		if d, ok := parseDelay(value); ok && p.started {
			g := &p.r.groups[p.cur]
			g.crawlDelay = max(g.crawlDelay, d)
		} else {
			p.r.records = append(p.r.records, Record{Key: key, Value: value, Line: n})
		}
	case "request-rate":
		if rt, ok := parseRate(value); ok && p.started {
			g := &p.r.groups[p.cur]
			if g.rate.IsZero() || rt.Interval() > g.rate.Interval() {
				g.rate = rt
			}
		} else {
			p.r.records = append(p.r.records, Record{Key: key, Value: value, Line: n})
		}
	case "visit-time":
		if vt, ok := parseVisitTime(value); ok && p.started {
			g := &p.r.groups[p.cur]
			g.visit = append(g.visit, vt)
		} else {
			p.r.records = append(p.r.records, Record{Key: key, Value: value, Line: n})
		}
	case "content-signal":
		if sig := parseSignal(value); len(sig) > 0 && p.started {
			g := &p.r.groups[p.cur]
			if g.signal == nil {
				g.signal = make(map[string]string, len(sig))
			}
			for _, kv := range sig {
				if _, dup := g.signal[kv[0]]; !dup {
					g.signal[kv[0]] = kv[1]
				}
			}
		} else {
			p.r.records = append(p.r.records, Record{Key: key, Value: value, Line: n})
		}
	case "content-usage":
		if u, ok := newUsageRule(value, n); ok && p.started {
			g := &p.r.groups[p.cur]
			g.usage = append(g.usage, u)
		} else {
			p.r.records = append(p.r.records, Record{Key: key, Value: value, Line: n})
		}
	default:
		p.r.records = append(p.r.records, Record{Key: key, Value: value, Line: n})
	}
}

// userAgent handles a user-agent line: it joins the current group unless that group
// already has rules, in which case it opens a new one.
func (p *parser) userAgent(value string, n int) {
	r := p.r
	if !p.started || p.inRules {
		r.groups = append(r.groups, group{line: n})
		p.cur = len(r.groups) - 1
		p.started, p.inRules = true, false
	}
	g := &r.groups[p.cur]
	g.agents = append(g.agents, value)
	if strings.HasPrefix(value, "*") {
		if len(r.star) == 0 || r.star[len(r.star)-1] != p.cur {
			r.star = append(r.star, p.cur)
		}
		return
	}
	tok := AgentToken(value)
	if tok == "" {
		return
	}
	tok = strings.ToLower(tok)
	idx := r.byAgent[tok]
	if len(idx) == 0 || idx[len(idx)-1] != p.cur {
		r.byAgent[tok] = append(idx, p.cur)
	}
}

func (p *parser) finish() *Robots {
	for i := range p.r.groups {
		rules := p.r.groups[i].rules
		sort.SliceStable(rules, func(a, b int) bool { return rules[a].before(&rules[b]) })
	}
	return p.r
}

// keys maps the lower-case keys (and their tolerated misspellings) to their canonical
// names.
var keys = map[string]string{
	"user-agent":     "user-agent",
	"useragent":      "user-agent",
	"user agent":     "user-agent",
	"user_agent":     "user-agent",
	"allow":          "allow",
	"disallow":       "disallow",
	"disalow":        "disallow",
	"dissallow":      "disallow",
	"dissalow":       "disallow",
	"sitemap":        "sitemap",
	"site-map":       "sitemap",
	"crawl-delay":    "crawl-delay",
	"crawldelay":     "crawl-delay",
	"request-rate":   "request-rate",
	"visit-time":     "visit-time",
	"content-signal": "content-signal",
	"content-usage":  "content-usage",
}

// splitLine splits a comment-free line into its canonical lower-case key and trimmed
// value. The key is a run of letters, digits, '-' and '_' ("user agent" with a space is
// also accepted); a colon or whitespace separates it from the value. ok is false for a
// line with no key.
func splitLine(l string) (key, value string, ok bool) {
	l = trimSpace(l)
	i := 0
	for i < len(l) && isKeyByte(l[i]) {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	k := l[:i]
	rest := l[i:]
	// "user agent": a key of two words.
	if strings.EqualFold(k, "user") {
		r := trimSpace(rest)
		if len(r) >= 5 && strings.EqualFold(r[:5], "agent") && (len(r) == 5 || !isKeyByte(r[5])) {
			k, rest = "user agent", r[5:]
		}
	}
	switch {
	case rest == "":
	case rest[0] == ':':
		rest = rest[1:]
	case isSpace(rest[0]):
		rest = strings.TrimPrefix(trimSpace(rest), ":")
	default:
		return "", "", false // "Disallow/x", "key=value": not a record
	}
	key = lowerKey(k)
	if c, known := keys[key]; known {
		key = c
	}
	return key, trimSpace(rest), true
}

// lowerKey lower-cases an ASCII key without allocating when it is lower-case already.
func lowerKey(k string) string {
	for i := 0; i < len(k); i++ {
		if 'A' <= k[i] && k[i] <= 'Z' {
			return strings.ToLower(k)
		}
	}
	return k
}

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// trimSpace trims spaces, tabs and vertical tabs (but not other bytes) from both ends.
func trimSpace(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }

// isAbsURL reports whether s is an absolute http or https URL with a host.
func isAbsURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// maxDelay bounds Crawl-delay and Request-rate so that durations do not overflow.
const maxDelay = 100 * 365 * 24 * time.Hour

// parseDelay reads a Crawl-delay value: decimal seconds, optionally followed by "s".
func parseDelay(v string) (time.Duration, bool) {
	v = strings.TrimSuffix(strings.TrimSuffix(v, "s"), " ")
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) || v == "" || !isDecimal(v) {
		return 0, false
	}
	if f >= maxDelay.Seconds() {
		return maxDelay, true
	}
	return time.Duration(f * float64(time.Second)), true
}

// isDecimal reports whether v is digits with at most one '.', as Crawl-delay uses
// (strconv.ParseFloat would also take "0x10", "1e3" and "inf").
func isDecimal(v string) bool {
	dot := false
	digits := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}
