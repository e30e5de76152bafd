package robots

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/temoto/robotstxt"
)

// departure is one documented way in which github.com/temoto/robotstxt, the test oracle,
// departs from RFC 9309 as this package reads it. DEPARTURES.md carries the same list.
type departure struct {
	ID      string
	Section string // the RFC 9309 section that decides the case
	Summary string
	// An example where the two disagree: Body, Agent and URL, and our (RFC) answer.
	Body, Agent, URL string
	Ours             bool
	// applies reports whether the departure can explain a disagreement on c.
	applies func(c *diffCase) bool
}

// diffCase is one question asked of both implementations.
type diffCase struct {
	body      []byte
	ours      *Robots
	theirs    *robotstxt.RobotsData // nil when temoto refused the file
	theirsErr error
	agent     string
	path      string // path and query as given to both
}

// rules returns our rules that apply to the case's agent.
func (c *diffCase) rules() []*rule {
	var out []*rule
	for _, gi := range c.ours.groupsFor(c.agent) {
		for i := range c.ours.groups[gi].rules {
			out = append(out, &c.ours.groups[gi].rules[i])
		}
	}
	return out
}

// normPath is the case's path as this package compares it.
func (c *diffCase) normPath() string {
	return string(appendNormalized(nil, c.path))
}

// temotoMatches reports whether temoto, given the pattern alone as a disallow rule,
// matches path: how temoto reads that one pattern.
func temotoMatches(pattern, path string) bool {
	r, err := robotstxt.FromString("user-agent: *\ndisallow: " + pattern + "\n")
	if err != nil {
		return false
	}
	return !r.TestAgent(path, "x")
}

// ruleMismatches returns the applicable rules that temoto and this package match
// differently against the case's path.
func (c *diffCase) ruleMismatches() []*rule {
	var out []*rule
	np := c.normPath()
	for _, ru := range c.rules() {
		if ru.match(np) != temotoMatches(ru.Pattern, c.path) {
			out = append(out, ru)
		}
	}
	return out
}

// matching returns the applicable rules that match the case's path here.
func (c *diffCase) matching() []*rule {
	var out []*rule
	np := c.normPath()
	for _, ru := range c.rules() {
		if ru.match(np) {
			out = append(out, ru)
		}
	}
	return out
}

// lines returns the body's lines (LF, CR or CRLF), without comments, keys lower-case.
func bodyLines(body []byte) []string {
	s := strings.ReplaceAll(string(body), "\r\n", "\n")
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
}

// temotoAgentName is the name temoto gives the group of a user-agent value: its first
// whitespace-separated word, lower-case.
func temotoAgentName(v string) string {
	f := strings.Fields(v)
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(f[0])
}

// userAgentValues returns the values of the body's user-agent lines as this package
// reads them.
func userAgentValues(r *Robots) []string {
	var out []string
	for _, g := range r.groups {
		out = append(out, g.agents...)
	}
	return out
}

var wildcardRe = regexp.MustCompile(`[*$]`)

// departures is the list, each with the RFC section that decides it.
var departures = []departure{
	{
		ID: "lenient-parsing", Section: "2.3.1.5",
		Summary: "temoto rejects the whole file (returns an error and no rules) when a Crawl-delay value is not a number or a rule comes before the first user-agent line; the RFC says crawlers MUST use the parseable rules.",
		Body:    "user-agent: *\ncrawl-delay: soon\ndisallow: /private\n", Agent: "bot", URL: "/private", Ours: false,
		applies: func(c *diffCase) bool { return c.theirsErr != nil },
	},
	{
		ID: "size-limit", Section: "2.5",
		Summary: "temoto parses files of any size; the RFC lets a crawler stop at 500 KiB, and this package ignores what follows MaxSize.",
		Body:    "user-agent: *\n#" + strings.Repeat("x", MaxSize) + "\ndisallow: /\n", Agent: "bot", URL: "/x", Ours: true,
		applies: func(c *diffCase) bool { return len(c.body) > MaxSize },
	},
	{
		ID: "agent-prefix", Section: "2.2.1",
		Summary: "temoto picks the group whose name is the longest prefix of the whole User-Agent string, so a group \"Example\" catches \"ExampleBot\"; the RFC matches the product token case-insensitively, whole.",
		Body:    "user-agent: Example\ndisallow: /\n", Agent: "ExampleBot", URL: "/x", Ours: true,
		applies: func(c *diffCase) bool {
			agent := strings.ToLower(c.agent)
			for _, v := range userAgentValues(c.ours) {
				n := temotoAgentName(v)
				if n != "" && n != "*" && n != agent && strings.HasPrefix(agent, n) {
					return true
				}
			}
			return false
		},
	},
	{
		ID: "agent-value", Section: "2.2.1",
		Summary: "temoto compares a group's whole user-agent value (\"Googlebot/2.1\", \"*bot\") with the crawler's name; the RFC's user-agent line carries a product token, which this package takes as the value's leading run of letters, '_' and '-' (or '*' for a value starting with '*').",
		Body:    "user-agent: ExampleBot/1.0\ndisallow: /\n", Agent: "ExampleBot", URL: "/x", Ours: false,
		applies: func(c *diffCase) bool {
			tok, agent := strings.ToLower(AgentToken(c.agent)), strings.ToLower(c.agent)
			for _, v := range userAgentValues(c.ours) {
				ours := strings.ToLower(AgentToken(v))
				if strings.HasPrefix(v, "*") {
					ours = "*"
				}
				theirs := temotoAgentName(v)
				if theirs != ours && (ours == tok || ours == "*" || strings.HasPrefix(agent, theirs)) {
					return true
				}
			}
			return false
		},
	},
	{
		ID: "one-letter-agent", Section: "2.2.1",
		Summary: "temoto lets a group named by a one-letter product token (\"a\") lose to the \"*\" group, since it ranks groups by name length and \"*\" counts as 1; the RFC makes any group naming the product token win over \"*\".",
		Body:    "user-agent: *\ndisallow: /\n\nuser-agent: a\ndisallow: /private\n", Agent: "a", URL: "/x", Ours: true,
		applies: func(c *diffCase) bool {
			return len(AgentToken(c.agent)) == 1 && len(c.ours.star) > 0
		},
	},
	{
		ID: "empty-group", Section: "2.2.1",
		Summary: "temoto forgets a group that has no allow or disallow line, so its agent falls back to the \"*\" group; in the RFC the group still matches the agent and, having no rules, allows everything (the quxbot of the §5.1 example).",
		Body:    "user-agent: *\ndisallow: /\n\nuser-agent: quxbot\n", Agent: "quxbot", URL: "/x", Ours: true,
		applies: func(c *diffCase) bool {
			idx := c.ours.groupsFor(c.agent)
			if len(idx) == 0 || (len(c.ours.star) > 0 && &idx[0] == &c.ours.star[0]) {
				return false
			}
			return len(c.rules()) == 0
		},
	},
	{
		ID: "extension-ends-group", Section: "2.2.4",
		Summary: "temoto ends a group at a Crawl-delay line, so a user-agent line after it opens a new group; in the RFC only allow and disallow rules end the user-agent lines of a group, and other records must not interfere with parsing.",
		Body:    "user-agent: a\ncrawl-delay: 5\nuser-agent: b\ndisallow: /x\n", Agent: "a", URL: "/x", Ours: false,
		applies: func(c *diffCase) bool {
			pending := false
			for _, l := range bodyLines(c.body) {
				key, _, ok := splitLine(stripComment(l))
				if !ok {
					continue
				}
				switch key {
				case "crawl-delay":
					pending = true
				case "allow", "disallow":
					pending = false
				case "user-agent":
					if pending {
						return true
					}
				}
			}
			return false
		},
	},
	{
		ID: "encoding", Section: "2.2.2",
		Summary: "temoto compares octets as written; the RFC percent-encodes non-ASCII octets and decodes encoded unreserved characters on both sides before comparing (\"/caf%C3%A9\" and \"/café\" are one path; \"/%7Ea\" is \"/~a\").",
		Body:    "user-agent: *\ndisallow: /caf%C3%A9\n", Agent: "bot", URL: "/café", Ours: false,
		applies: func(c *diffCase) bool {
			if c.normPath() != c.path || !utf8.ValidString(c.path) {
				return true
			}
			for _, ru := range c.rules() {
				if needsNormalize(ru.Pattern) || !utf8.ValidString(ru.Pattern) {
					return true
				}
			}
			return false
		},
	},
	{
		ID: "tie-allow", Section: "2.2.2",
		Summary: "when an allow and a disallow rule match with patterns of equal length, temoto takes the first in the file; the RFC says the allow rule SHOULD be used.",
		Body:    "user-agent: *\ndisallow: /page\nallow: /page\n", Agent: "bot", URL: "/page", Ours: true,
		applies: func(c *diffCase) bool {
			best, allow, disallow := -1, false, false
			for _, ru := range c.matching() {
				switch {
				case ru.length > best:
					best, allow, disallow = ru.length, ru.Allow, !ru.Allow
				case ru.length == best:
					allow, disallow = allow || ru.Allow, disallow || !ru.Allow
				}
			}
			return allow && disallow
		},
	},
	{
		ID: "wildcard-length", Section: "2.2.2",
		Summary: "temoto measures a pattern with '*' or '$' by the length of the regular expression it compiles it to (\"/a*b\" counts as \"/a.*b\", '.' as \"\\.\"), drops trailing '*' and never lets a pattern of only '*' decide; the RFC's most specific match is the one with the most octets in the pattern.",
		Body:    "user-agent: *\nallow: /*.html\ndisallow: /pages/a.\n", Agent: "bot", URL: "/pages/a.html", Ours: false,
		applies: func(c *diffCase) bool {
			m := c.matching()
			for _, ru := range m {
				if wildcardRe.MatchString(ru.Pattern) && (len(m) > 1 || strings.Trim(ru.Pattern, "*") == "") {
					return true
				}
			}
			return false
		},
	},
	{
		ID: "wildcard-unanchored", Section: "2.2.2",
		Summary: "temoto matches a pattern with '*' or '$' anywhere in the path (an unanchored regular expression), so \"/a/*/b\" matches \"/x/a/y/b\"; the RFC matches patterns from the start of the path.",
		Body:    "user-agent: *\ndisallow: /a/*/b\n", Agent: "bot", URL: "/x/a/y/b", Ours: true,
		applies: func(c *diffCase) bool {
			for _, ru := range c.ruleMismatches() {
				if wildcardRe.MatchString(ru.Pattern) && !ru.match(c.normPath()) {
					return true
				}
			}
			return false
		},
	},
	{
		ID: "dollar-literal", Section: "2.2.3",
		Summary: "temoto reads every '$' in a pattern as an end anchor, so \"/a$b\" matches nothing; the RFC's '$' designates the end of the pattern, and this package reads a '$' elsewhere as a literal character.",
		Body:    "user-agent: *\ndisallow: /price$list\n", Agent: "bot", URL: "/price$list", Ours: false,
		applies: func(c *diffCase) bool {
			for _, ru := range c.rules() {
				if i := strings.IndexByte(ru.Pattern, '$'); i >= 0 && i < len(ru.Pattern)-1 {
					return true
				}
			}
			return false
		},
	},
	{
		ID: "robots-txt", Section: "2.2.2",
		Summary: "temoto applies the rules to /robots.txt itself; the RFC says the /robots.txt URI is implicitly allowed.",
		Body:    "user-agent: *\ndisallow: /\n", Agent: "bot", URL: "/robots.txt", Ours: true,
		applies: func(c *diffCase) bool {
			p := requestPath(c.path)
			return p == "/robots.txt" || strings.HasPrefix(p, "/robots.txt?")
		},
	},
	{
		ID: "comment", Section: "2.2",
		Summary: "temoto starts a comment at '#' only at the start of a word, so \"disallow: /a#b\" is the pattern \"/a#b\"; in the RFC's syntax '#' starts a comment wherever it appears.",
		Body:    "user-agent: *\ndisallow: /private#staff only\n", Agent: "bot", URL: "/private/x", Ours: false,
		applies: func(c *diffCase) bool {
			for _, l := range bodyLines(c.body) {
				if i := strings.IndexByte(l, '#'); i > 0 && !isSpace(l[i-1]) {
					return true
				}
			}
			return false
		},
	},
	{
		ID: "value-whitespace", Section: "2.2",
		Summary: "temoto splits a line at every space, so \"disallow: /a b\" is the pattern \"/a\" followed by a stray word; the RFC's line is key, colon and value, and this package keeps the value whole (\"/a%20b\").",
		Body:    "user-agent: *\ndisallow: /docs/a b\n", Agent: "bot", URL: "/docs/a", Ours: true,
		applies: func(c *diffCase) bool {
			for _, l := range bodyLines(c.body) {
				key, value, ok := splitLine(stripComment(l))
				if ok && (key == "allow" || key == "disallow") && strings.ContainsAny(value, " \t\v\f") {
					return true
				}
			}
			return false
		},
	},
	{
		ID: "space-before-colon", Section: "2.2",
		Summary: "temoto reads \"allow : /x\" (whitespace between key and colon) as the key \"allow\" with the value \":\"; the RFC's syntax allows whitespace before the colon (*WS \":\").",
		Body:    "user-agent: *\ndisallow : /x\n", Agent: "bot", URL: "/x", Ours: false,
		applies: func(c *diffCase) bool {
			for _, l := range bodyLines(c.body) {
				l = trimSpace(stripComment(l))
				i := strings.IndexByte(l, ':')
				if i > 0 && isSpace(l[i-1]) {
					return true
				}
			}
			return false
		},
	},
	{
		ID: "misspelled-keys", Section: "2.3.1.5",
		Summary: "temoto ignores \"user agent\", \"disalow\" and \"dissallow\"; the RFC asks crawlers to use every line they can parse, and this package reads these common misspellings as the keys they mean.",
		Body:    "user-agent: *\ndisalow: /x\n", Agent: "bot", URL: "/x", Ours: false,
		applies: func(c *diffCase) bool {
			for _, l := range bodyLines(c.body) {
				l = strings.ToLower(trimSpace(stripComment(l)))
				for _, k := range []string{"user agent", "user_agent", "disalow", "dissallow", "dissalow", "site-map"} {
					if strings.HasPrefix(l, k) {
						return true
					}
				}
			}
			return false
		},
	},
}

func stripComment(l string) string {
	if i := strings.IndexByte(l, '#'); i >= 0 {
		return l[:i]
	}
	return l
}

// explain returns the departures that can explain a disagreement on c.
func explain(c *diffCase) []string {
	var ids []string
	for _, d := range departures {
		if d.applies(c) {
			ids = append(ids, d.ID)
		}
	}
	return ids
}
