package lang

import (
	"testing"

	"github.com/politecrawl/crawl/extract/lang/internal/ngram"
)

// TestISO6393Complete: every language Detect can return has an ISO 639-3 code.
func TestISO6393Complete(t *testing.T) {
	codes := map[string]bool{}
	for _, l := range model().langs {
		codes[l.Code] = true
	}
	for s := ngram.Script(0); s < ngram.NumScripts; s++ {
		if single[s].Code != "" {
			codes[single[s].Code] = true
		}
	}
	for c := range codes {
		if got := (Result{Code: c}).ISO6393(); len(got) != 3 {
			t.Errorf("Result{Code: %q}.ISO6393() = %q, want a three-letter code", c, got)
		}
	}
	if got := (Result{}).ISO6393(); got != "" {
		t.Errorf("Result{}.ISO6393() = %q, want \"\"", got)
	}
}
