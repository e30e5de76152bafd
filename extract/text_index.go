package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

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

// phrase reports whether s holds one of the substrings as words, as textHasPhrase
// would for one of them: with no letter just before it nor just after it. Where the
// byte before is an ASCII letter, nothing is looked for: most bytes of a text are
// inside a word.
func (x *textSubstrings) phrase(s string) bool {
	for i := range len(s) {
		list := x.first[s[i]]
		if len(list) == 0 {
			continue
		}
		if i > 0 {
			if c := s[i-1]; c < utf8.RuneSelf {
				if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
					continue
				}
			} else if r, _ := utf8.DecodeLastRuneInString(s[:i]); unicode.IsLetter(r) {
				continue
			}
		}
		for _, p := range list {
			if strings.HasPrefix(s[i:], p) {
				if r, _ := utf8.DecodeRuneInString(s[i+len(p):]); !unicode.IsLetter(r) {
					return true
				}
			}
		}
	}
	return false
}

// The phrases the edges of the content look for (textEdgeJunk, textTailJunk,
// textTree.headJunk), indexed.
var (
	textEdgeIndex = textIndex(slices.Concat(textCallsToAction, textPostMeta, textTailCalls, textDisclosures))
	textTailIndex = textIndex(textTailCalls)
	textHeadIndex = textIndex(textDisclosures)
	// textPictureIndex holds the words of a picture's credit (textEndNotice).
	textPictureIndex = textIndex(textPictureWords)
)

// The substrings textTokenNames looks for, indexed.
var (
	textSureIndex  = textIndex(textSureNames)
	textMaybeIndex = textIndex(textMaybeNames)
)
