package robots

import "strings"

// usageRule is a Content-Usage rule (draft-ietf-aipref-attach §4): an optional path
// pattern, matched as allow and disallow patterns are, and a statement of AI usage
// preferences, which this package keeps as written (package optout reads them).
type usageRule struct {
	rule        // the path; "/" matching every path, at length 0, when none is given
	pref string // the statement of preference, such as "train-ai=n"
}

// newUsageRule reads the value of a Content-Usage line: a path up to the first space
// or tab when the value starts with "/", then the preference. ok is false when no
// preference is left.
func newUsageRule(value string, line int) (usageRule, bool) {
	path := ""
	if strings.HasPrefix(value, "/") {
		i := strings.IndexAny(value, " \t")
		if i < 0 {
			return usageRule{}, false
		}
		path, value = value[:i], trimSpace(value[i:])
	}
	if value == "" {
		return usageRule{}, false
	}
	u := usageRule{pref: value}
	if path == "" {
		u.rule = newRule(true, "/", line)
		u.length = 0 // no path: the least specific rule
	} else {
		u.rule = newRule(true, path, line)
	}
	return u, true
}

// ContentUsage returns the Content-Usage preferences (draft-ietf-aipref-attach §4) that
// apply to rawURL for agent, as written, such as "train-ai=n": those of the rules of
// the agent's groups with the longest path matching the URL (several when their paths
// are equally long: the caller combines them, the most restrictive winning). A URL the
// agent may not fetch has none; nil means no rule applies.
func (r *Robots) ContentUsage(agent, rawURL string) []string {
	if !r.Match(agent, rawURL).Allowed {
		return nil
	}
	path := requestPath(rawURL)
	if needsNormalize(path) {
		path = string(appendNormalized(make([]byte, 0, len(path)+16), path))
	}
	var out []string
	best := -1
	for _, gi := range r.groupsFor(agent) {
		for i := range r.groups[gi].usage {
			u := &r.groups[gi].usage[i]
			if u.length < best || !u.match(path) {
				continue
			}
			if u.length > best {
				best, out = u.length, out[:0]
			}
			out = append(out, u.pref)
		}
	}
	return out
}
