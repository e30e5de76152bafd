package texteval

import (
	"math"
	"testing"
)

// TestShingles checks the metric against figures worked by hand as evaluate.py
// computes them.
func TestShingles(t *testing.T) {
	tests := []struct {
		truth, pred string
		want        Counts
	}{
		{"", "", Counts{}},
		// 5 tokens: shingles "a b c d", "b c d e"; pred has the first.
		{"a b c d e", "a b c d", Counts{TP: 0.5, FN: 0.5}},
		// Fewer than 4 tokens make one shingle of them all.
		{"a b", "a b", Counts{TP: 1}},
		{"a b c d", "x a b c d", Counts{TP: 1.0 / 2, FP: 1.0 / 2}},
		// Punctuation and case: \w+ tokens, case kept.
		{"Hello, world! It is", "Hello world It is", Counts{TP: 1}},
		{"Hello world it is", "Hello world It is", Counts{FP: 0.5, FN: 0.5}},
		// Multisets: a repeated shingle counts twice.
		{"a b c d a b c d", "a b c d", Counts{TP: 1.0 / 5, FN: 4.0 / 5}},
	}
	for _, tt := range tests {
		got := Shingles(tt.truth, tt.pred)
		if math.Abs(got.TP-tt.want.TP) > 1e-9 || math.Abs(got.FP-tt.want.FP) > 1e-9 || math.Abs(got.FN-tt.want.FN) > 1e-9 {
			t.Errorf("Shingles(%q, %q):\n\tgot  %+v\n\twant %+v", tt.truth, tt.pred, got, tt.want)
		}
	}
}

func TestMean(t *testing.T) {
	// Page 1: precision 1, recall 0.5. Page 2: precision 0.5, recall 1. Page 3 has no
	// text either side and counts for neither.
	s := Mean([]Counts{{TP: 0.5, FN: 0.5}, {TP: 0.5, FP: 0.5}, {}})
	if s.Precision != 0.75 || s.Recall != 0.75 || math.Abs(s.F1-0.75) > 1e-9 || s.Pages != 3 {
		t.Errorf("Mean: %+v, want precision, recall and F1 0.75 over 3 pages", s)
	}
}

func TestCountSnippets(t *testing.T) {
	got := CountSnippets([]string{"two  words", "absent"}, []string{"menu", "footer text"}, "Some two\nwords and a footer  text.")
	want := Snippets{TP: 1, FN: 1, FP: 1, TN: 1}
	if got != want {
		t.Errorf("CountSnippets:\n\tgot  %+v\n\twant %+v", got, want)
	}
	if got.Precision() != 0.5 || got.Recall() != 0.5 || got.Accuracy() != 0.5 || got.F1() != 0.5 {
		t.Errorf("scores of %+v: %v %v %v %v, want 0.5 each", got, got.Precision(), got.Recall(), got.Accuracy(), got.F1())
	}
}
