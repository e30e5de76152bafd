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

// TestLabelledText checks the truth taken from L3S-GN1's annotated pages: the text of the
// spans of one label, nested markup and entities included, other labels not; each text
// node is followed by a space.
func TestLabelledText(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`<p><span class="x-nc-sel1">Headline</span></p><p><span class="x-nc-sel2">First &amp; <a href="/x">linked</a> words</span></p>`,
			"First &  linked  words "},
		{`<span class="x-nc-sel0">Menu</span><span class="x-nc-sel2 x-nc-invisible">Body</span><span class="x-nc-sel3">Caption</span>`,
			"Body "},
		// A span inside a labelled one stays labelled; the text after the inner one too.
		{`<span class="x-nc-sel2">a <span>b</span> c</span> d`, "a  b  c "},
		{`<span class="x-nc-sel5">comment</span>`, ""},
	}
	for _, tt := range tests {
		if got := labelledText([]byte(tt.doc), "x-nc-sel2"); got != tt.want {
			t.Errorf("labelledText(%q) = %q, want %q", tt.doc, got, tt.want)
		}
	}
}

// TestLabelText checks the modern set's truth: the text of the elements whose nearest
// labelled ancestor is labelled main (a value with spaces around it too), line breaks at
// block elements, inline markup joined as it stands, no script text, and the page's
// declared charset.
func TestLabelText(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`<h1 __label="title">Headline</h1><div __label="main"><p>First &amp; <a href="/x">link</a>ed</p><p>Second</p></div>`,
			"\n\nFirst & linked\n\nSecond\n\n"},
		// A labelled element inside main is what its own label says.
		{`<div __label="main ">Body <figure __label="caption">Photo</figure><span>more</span><div __label="comment">Nice!</div></div>`,
			"\nBody more\n"},
		{`<div __label="main">a<script>var x = 1</script><style>p{}</style>b</div>`, "\nab\n"},
		{`<div __label="comment">A comment</div><p>Unlabelled</p>`, ""},
		{"<meta charset=\"windows-1252\"><p __label=\"main\">caf\xe9</p>", "\ncaf\u00e9\n"},
	}
	for _, tt := range tests {
		got, err := labelText([]byte(tt.doc), "main")
		if err != nil || got != tt.want {
			t.Errorf("labelText(%q) = %q, %v; want %q", tt.doc, got, err, tt.want)
		}
	}
}

// TestPlainText checks the decoding of Dragnet's text files.
func TestPlainText(t *testing.T) {
	tests := []struct {
		b    []byte
		want string
	}{
		{[]byte("caf\xc3\xa9"), "café"},
		{[]byte("it\x92s \x96 \xa3250"), "it’s – £250"},
		{[]byte("\xff\xfeh\x00\xe9\x00"), "hé"},
		{[]byte("\xfe\xff\x00h\x00\xe9"), "hé"},
	}
	for _, tt := range tests {
		if got := plainText(tt.b); got != tt.want {
			t.Errorf("plainText(%q) = %q, want %q", tt.b, got, tt.want)
		}
	}
}

func TestCovered(t *testing.T) {
	tests := []struct {
		truth, text string
		want        float64
	}{
		{"a b c d e", "x a b c d y", 0.5},
		{"a b c d e", "a b c d e and more", 1},
		{"a b c d a b c d", "a b c d", 0.2}, // a multiset: 1 of 5 shingles
		{"", "a b c d", 0},
	}
	for _, tt := range tests {
		if got := covered(tt.truth, tt.text); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("covered(%q, %q) = %v, want %v", tt.truth, tt.text, got, tt.want)
		}
	}
}

func TestDragnetArticle(t *testing.T) {
	for _, marker := range []string{"!@#$%^&*()  COMMENTS", "!@#$%^&*() COMMENTS", "!@#$%^&*()  COMMENTS\r", "!@ $%^&*()  COMMENTS",
		"@#$%^&*() COMMENTS", "!@#$%^&**()  COMMENTS", "!@#$%^&*()  \tCOMMENTS", "!@#$%^&*()  COMMENTS\t"} {
		text := "Headline\n\nThe article's COMMENTS section.\n" + marker + "\nA reader: great post\n"
		if got, want := dragnetArticle(text), "Headline\n\nThe article's COMMENTS section.\n"; got != want {
			t.Errorf("with the marker %q: got %q, want %q", marker, got, want)
		}
	}
	if got := dragnetArticle("No comments here.\n"); got != "No comments here.\n" {
		t.Errorf("without a marker: got %q", got)
	}
}
