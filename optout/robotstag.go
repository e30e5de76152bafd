package optout

import "strings"

// NoAI is what the noai and noimageai directives say of a page: not to use it, or its
// images, for AI. They are the convention DeviantArt introduced in 2022, written where
// noindex is: the X-Robots-Tag header field and meta robots.
type NoAI struct {
	NoAI, NoImageAI bool
	Source          string // "x-robots-tag" or "meta", where the first was found
}

// Or returns what n and o say together: a directive of either, the first source.
func (n NoAI) Or(o NoAI) NoAI {
	if n.Source == "" {
		n.Source = o.Source
	}
	n.NoAI, n.NoImageAI = n.NoAI || o.NoAI, n.NoImageAI || o.NoImageAI
	return n
}

// RobotsTag reads noai and noimageai in a response's X-Robots-Tag fields (keys
// canonical, as net/http's Header) that apply to agent: fields without a user agent
// prefix, and those prefixed by the agent's product token ("examplebot: noai").
func RobotsTag(h map[string][]string, agent string) NoAI {
	var n NoAI
	for _, v := range h["X-Robots-Tag"] {
		n = n.Or(directives(v, agent, "x-robots-tag"))
	}
	return n
}

// directives reads one robots directive list, such as "noai, noimageai" or
// "examplebot: noai", for agent.
func directives(v, agent, source string) NoAI {
	var n NoAI
	if name, rest, ok := strings.Cut(v, ":"); ok && isAgentName(name) {
		if !strings.EqualFold(strings.TrimSpace(name), productToken(agent)) {
			return n
		}
		v = rest
	}
	for _, d := range strings.Split(v, ",") {
		switch strings.ToLower(strings.TrimSpace(d)) {
		case "noai":
			n.NoAI = true
		case "noimageai":
			n.NoImageAI = true
		}
	}
	if n.NoAI || n.NoImageAI {
		n.Source = source
	}
	return n
}

// isAgentName reports whether s, before a colon, names a user agent rather than being
// a directive that takes a value (unavailable_after, max-snippet, ...).
func isAgentName(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " ,") {
		return false
	}
	switch strings.ToLower(s) {
	case "unavailable_after", "max-snippet", "max-image-preview", "max-video-preview":
		return false
	}
	return true
}

// productToken returns the leading run of letters, '_' and '-' of a User-Agent value.
func productToken(agent string) string {
	agent = strings.TrimSpace(agent)
	i := 0
	for i < len(agent) {
		c := agent[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-') {
			break
		}
		i++
	}
	return agent[:i]
}
