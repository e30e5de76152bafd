package extract

import "strings"

// textSubstrings is a list of substrings indexed by their first byte, so that a string
// is searched for all of them in one pass rather than once for each: textTokenNames
// looks for some forty in every class and id of a page.
type textSubstrings struct {
	first [256][]string // the substrings by their first byte
	empty bool          // "" is one of them
}

// textIndex indexes list.
func textIndex(list []string) *textSubstrings {
	x := &textSubstrings{}
	for _, s := range list {
		if s == "" {
			x.empty = true
			continue
		}
		x.first[s[0]] = append(x.first[s[0]], s)
	}
	return x
}

// in reports whether s holds one of the substrings, as strings.Contains would for one
// of them.
func (x *textSubstrings) in(s string) bool {
	if x.empty {
		return true
	}
	for i := range len(s) {
		for _, p := range x.first[s[i]] {
			if strings.HasPrefix(s[i:], p) {
				return true
			}
		}
	}
	return false
}

// The substrings textTokenNames looks for, indexed.
var (
	textSureIndex  = textIndex(textSureNames)
	textMaybeIndex = textIndex(textMaybeNames)
)
