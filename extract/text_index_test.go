package extract

import (
	"strings"
	"testing"
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
