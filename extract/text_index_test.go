package extract

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestTextIndex checks textSubstrings.in against strings.Contains.
func TestTextIndex(t *testing.T) {
	lists := [][]string{textSureNames, textMaybeNames, {"ab", "abc", "b"}, {"x", ""}, nil}
	for _, s := range []string{"", "a", "ab", "xab", "bbb", "site-header__inner", "js-share-bar", "sr-only", "main-content", "relatedposts", "modal-open", "c"} {
		for _, list := range lists {
			want := false
			for _, p := range list {
				want = want || strings.Contains(s, p)
			}
			if got := textIndex(list).in(s); got != want {
				t.Errorf("textIndex(%q).in(%q) = %v, want %v", list, s, got, want)
			}
		}
	}
}

// textHasPhrase reports whether s holds the phrase p as words (not "anzeige" in
// "Bild anzeigen"), one strings.Index at a time: the reference textSubstrings.phrase
// is checked against.
func textHasPhrase(s, p string) bool {
	for k := 0; ; {
		at := strings.Index(s[k:], p)
		if at < 0 {
			return false
		}
		at += k
		before, _ := utf8.DecodeLastRuneInString(s[:at])
		after, _ := utf8.DecodeRuneInString(s[at+len(p):])
		if !unicode.IsLetter(before) && !unicode.IsLetter(after) {
			return true
		}
		k = at + 1
	}
}

// textHasAnyPhrase is what textSubstrings.phrase replaces: textHasPhrase for each
// phrase of list.
func textHasAnyPhrase(s string, list []string) bool {
	for _, p := range list {
		if textHasPhrase(s, p) {
			return true
		}
	}
	return false
}

// textPhraseSeeds are lines such as the edges read, and the places where a phrase
// touches a letter, a digit, a mark or a broken character.
var textPhraseSeeds = []string{
	"", "a", "tags", "tagsx", "xtags", "1tags", "tags1", "#tags:", "bild anzeigen", "anzeige",
	"share this article", "shared this", "posted by jane on 3 may", "follow us on twitter",
	"foto: dpa", "fotos:dpa", "©2024 the paper", "x©", "© x", "all rights reserved.",
	"mis à jour le 3 mai", "émis à jour", "zurück nach oben", "é tags", "étags", "\xfftags",
	"tags\xff", "\xe2\x80tags", "ta\u0301gs", "tags\u0301", "read more » subscribe",
	"newsletter abonnieren", "abonnieren!", "weiterlesen…", "kommentare (12)",
}

// TestTextPhrase checks textSubstrings.phrase against textHasPhrase on the lists the
// edges read.
func TestTextPhrase(t *testing.T) {
	for _, s := range textPhraseSeeds {
		for _, c := range textPhraseLists {
			if got, want := c.x.phrase(s), textHasAnyPhrase(s, c.list); got != want {
				t.Errorf("%s.phrase(%q) = %v, want %v", c.name, s, got, want)
			}
		}
	}
}

// textPhraseLists are the indexes of phrases and what they index.
var textPhraseLists = []struct {
	name string
	x    *textSubstrings
	list []string
}{
	{"textEdgeIndex", textEdgeIndex, slices.Concat(textCallsToAction, textPostMeta, textTailCalls, textDisclosures)},
	{"textTailIndex", textTailIndex, textTailCalls},
	{"textHeadIndex", textHeadIndex, textDisclosures},
	{"small", textIndex([]string{"ab", "abc", "b", "é", "©"}), []string{"ab", "abc", "b", "é", "©"}},
}

// FuzzTextPhrase compares textSubstrings.phrase with textHasPhrase on any text.
func FuzzTextPhrase(f *testing.F) {
	for _, s := range textPhraseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range textPhraseLists {
			if got, want := c.x.phrase(s), textHasAnyPhrase(s, c.list); got != want {
				t.Fatalf("%s.phrase(%q) = %v, want %v", c.name, s, got, want)
			}
		}
	})
}
