package extract

import (
	"net/http"
	"strings"
)

// Directives are the page-level robots directives that apply to the crawler, merged from
// <meta name="robots">, <meta name="AGENT"> and the X-Robots-Tag header: a directive set
// by any source holds. The zero value allows everything.
type Directives struct {
	NoIndex   bool `json:"noindex,omitempty"`   // do not store the page in an index ("noindex", "none")
	NoFollow  bool `json:"nofollow,omitempty"`  // none of the page's links may enter the frontier ("nofollow", "none")
	NoArchive bool `json:"noarchive,omitempty"` // do not keep a copy for others to see ("noarchive", "nocache")
	NoSnippet bool `json:"nosnippet,omitempty"` // do not show an excerpt of the text ("nosnippet")
}

// Merge returns the union of d and o: a directive set in either is set.
func (d Directives) Merge(o Directives) Directives {
	return Directives{
		NoIndex:   d.NoIndex || o.NoIndex,
		NoFollow:  d.NoFollow || o.NoFollow,
		NoArchive: d.NoArchive || o.NoArchive,
		NoSnippet: d.NoSnippet || o.NoSnippet,
	}
}

// RobotsTag returns the directives of the X-Robots-Tag header lines of a response, for
// responses that are not HTML (HTML merges them with its meta tags). agent is the
// crawler's product token, such as "ExampleBot", or a whole User-Agent value whose
// leading token is used; matching is case-insensitive.
//
// Each header line is a comma-separated list of directives. A directive prefixed with a
// user agent ("otherbot: noindex, nofollow") starts a run of directives for that agent
// only, which lasts until the next prefix or the end of the line. Directives for other
// agents are ignored, and so are unknown ones and valued ones such as "max-snippet: 20"
// or "unavailable_after: ...".
func RobotsTag(header http.Header, agent string) Directives {
	var d Directives
	token := robotsMetaToken(agent)
	for _, line := range header.Values("X-Robots-Tag") {
		d = d.Merge(robotsTagLine(line, token))
	}
	return d
}

// robotsTagLine reads one X-Robots-Tag line for the lower-case product token.
func robotsTagLine(line, token string) Directives {
	var d Directives
	scope := ""
	for part := range strings.SplitSeq(line, ",") {
		if i := strings.IndexByte(part, ':'); i >= 0 {
			name := strings.ToLower(strings.TrimSpace(part[:i]))
			if !robotsMetaKnown[name] && robotsMetaIsToken(name) {
				scope, part = name, part[i+1:]
			} else {
				continue // a valued directive such as max-snippet: 20
			}
		}
		if scope == "" || scope == token {
			d = d.Merge(robotsMetaContent(part))
		}
	}
	return d
}

// robotsMetaKnown lists directive names, so that "max-snippet: 20" is not taken for a
// user agent called max-snippet.
var robotsMetaKnown = map[string]bool{
	"all": true, "index": true, "follow": true, "noindex": true, "nofollow": true,
	"none": true, "noarchive": true, "nocache": true, "nosnippet": true,
	"notranslate": true, "noimageindex": true, "noodp": true, "noydir": true,
	"indexifembedded": true, "unavailable_after": true, "max-snippet": true,
	"max-image-preview": true, "max-video-preview": true,
}

// robotsMetaContent reads the content of a robots meta tag: directives separated by
// commas, semicolons or white space, case-insensitive.
func robotsMetaContent(content string) Directives {
	var d Directives
	for _, f := range strings.FieldsFunc(content, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f'
	}) {
		switch strings.ToLower(f) {
		case "noindex":
			d.NoIndex = true
		case "nofollow":
			d.NoFollow = true
		case "none":
			d.NoIndex, d.NoFollow = true, true
		case "noarchive", "nocache":
			d.NoArchive = true
		case "nosnippet":
			d.NoSnippet = true
		}
	}
	return d
}

// robotsMetaToken returns the lower-case product token at the start of agent: the
// leading run of letters, digits, "_" and "-" ("ExampleBot/1.0 (+url)" → "examplebot").
func robotsMetaToken(agent string) string {
	agent = strings.TrimSpace(agent)
	i := 0
	for i < len(agent) && robotsMetaTokenByte(agent[i]) {
		i++
	}
	return strings.ToLower(agent[:i])
}

func robotsMetaIsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !robotsMetaTokenByte(s[i]) {
			return false
		}
	}
	return true
}

func robotsMetaTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}
