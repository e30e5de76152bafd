// Package texteval scores main-text extraction against public references: the article
// extraction benchmark of Scrapinghub (whole article bodies, scored by 4-token shingles,
// held back), and as development sets trafilatura's evaluation set (snippets each page's
// text must and must not contain), Readability.js's test pages, the news set of L3S-GN1's
// and Dragnet's pages (newsset.sh), the modern set of GoogleTrends-2017's pages
// (modernset.sh) and WCXB's development split (wcxbset.sh), whole texts chosen or
// reviewed by people, scored by shingles. It holds the metrics and the loaders; the tests
// run them.
package texteval

import (
	"regexp"
	"strings"
	"unicode"
)

// Counts are the shingle counts of one page normalised by their sum, as the benchmark's
// evaluate.py computes them: TP+FP+FN is 1, or all are 0 when both texts are empty.
type Counts struct{ TP, FP, FN float64 }

// Shingles compares the multisets of 4-token shingles of truth and pred, tokens being
// the runs of \w as Python's re.UNICODE reads it (letters, numbers and "_").
func Shingles(truth, pred string) Counts {
	t, p := shingles(truth), shingles(pred)
	var c Counts
	for k, tn := range t {
		pn := p[k]
		c.TP += float64(min(tn, pn))
		c.FN += float64(max(0, tn-pn))
	}
	for k, pn := range p {
		c.FP += float64(max(0, pn-t[k]))
	}
	if s := c.TP + c.FP + c.FN; s > 0 {
		c.TP, c.FP, c.FN = c.TP/s, c.FP/s, c.FN/s
	}
	return c
}

// shingles counts the 4-token shingles of s; a text of fewer than 4 tokens is one
// shingle of them all, none when it has no token.
func shingles(s string) map[string]int {
	toks := Tokens(s)
	m := make(map[string]int)
	for i := 0; i < max(1, len(toks)-3); i++ {
		sh := toks[i:min(len(toks), i+4)]
		if len(sh) == 0 {
			continue
		}
		m[strings.Join(sh, "\x00")]++
	}
	return m
}

// wordRE is Python's \w under re.UNICODE: what str.isalnum() accepts, and "_".
var wordRE = regexp.MustCompile(`[\p{L}\p{N}_]+`)

// Tokens returns the \w+ tokens of s.
func Tokens(s string) []string { return wordRE.FindAllString(s, -1) }

// Score is a set's precision and recall averaged over pages, and F1 their harmonic
// mean, as the benchmark reports them.
type Score struct {
	Precision, Recall, F1 float64
	Pages                 int
}

// Mean averages counts over pages as evaluate.py's metrics_from_tp_fp_fns does: a page
// counts toward precision when TP+FP > 0 and toward recall when TP+FN > 0.
func Mean(pages []Counts) Score {
	var p, r float64
	var np, nr int
	for _, c := range pages {
		if c.TP+c.FP > 0 {
			p += ratio(c.TP, c.FP, c.FN)
			np++
		}
		if c.TP+c.FN > 0 {
			r += ratio(c.TP, c.FN, c.FP)
			nr++
		}
	}
	s := Score{Pages: len(pages)}
	if np > 0 {
		s.Precision = p / float64(np)
	}
	if nr > 0 {
		s.Recall = r / float64(nr)
	}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}

// ratio is a/(a+b), 1 when b and other are 0 (both texts agree), 0 when a and b are 0.
func ratio(a, b, other float64) float64 {
	switch {
	case b == 0 && other == 0:
		return 1
	case a == 0 && b == 0:
		return 0
	}
	return a / (a + b)
}

// Snippets holds the counts of trafilatura's evaluation: TP the "with" snippets found in
// the text, FN those missing, FP the "without" snippets found, TN those absent.
type Snippets struct{ TP, FP, FN, TN int }

// CountSnippets matches each snippet in text after collapsing white space on both
// sides, as trafilatura's eval_common.count_item does.
func CountSnippets(with, without []string, text string) Snippets {
	t := collapse(text)
	var s Snippets
	for _, w := range with {
		if strings.Contains(t, collapse(w)) {
			s.TP++
		} else {
			s.FN++
		}
	}
	for _, w := range without {
		if strings.Contains(t, collapse(w)) {
			s.FP++
		} else {
			s.TN++
		}
	}
	return s
}

// Add adds o to s.
func (s *Snippets) Add(o Snippets) { s.TP += o.TP; s.FP += o.FP; s.FN += o.FN; s.TN += o.TN }

// Precision is TP/(TP+FP).
func (s Snippets) Precision() float64 { return frac(s.TP, s.TP+s.FP) }

// Recall is TP/(TP+FN).
func (s Snippets) Recall() float64 { return frac(s.TP, s.TP+s.FN) }

// Accuracy is (TP+TN) over all snippets.
func (s Snippets) Accuracy() float64 { return frac(s.TP+s.TN, s.TP+s.TN+s.FP+s.FN) }

// F1 is 2TP/(2TP+FP+FN).
func (s Snippets) F1() float64 { return frac(2*s.TP, 2*s.TP+s.FP+s.FN) }

func frac(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// collapse trims s and turns each run of white space into one space.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}
