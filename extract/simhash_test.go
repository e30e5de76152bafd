package extract

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestSimHashText(t *testing.T) {
	tests := []struct {
		in   string
		want SimHash
	}{
		{"", 0},
		{" \n\t—, ", 0},
	}
	for _, tt := range tests {
		if got := TextSimHash(tt.in); got != tt.want {
			t.Errorf("TextSimHash(%q):\n\tgot  %v\n\twant %v", tt.in, got, tt.want)
		}
	}
	// Case, punctuation and white space do not change the words.
	a := TextSimHash("The quick brown fox jumps over the lazy dog.")
	b := TextSimHash("the QUICK  brown fox — jumps over\nthe lazy dog")
	if a != b || a == 0 {
		t.Errorf("TextSimHash of the same words: %v and %v", a, b)
	}
	// Words of scripts without spaces are characters.
	ja1 := TextSimHash("子どもへの体罰を禁止する法律ができる。親が子どもを教育するために体罰をしてはいけないと決めた。")
	ja2 := TextSimHash("子どもへの体罰を禁止する法律ができた。親が子どもを教育するために体罰をしてはいけないと決めた。")
	if d := ja1.Distance(ja2); d > 12 {
		t.Errorf("two Japanese sentences one character apart differ in %d bits", d)
	}
}

func TestSimHashEncoding(t *testing.T) {
	for _, h := range []SimHash{0, 1, 0xfedcba9876543210, 1<<64 - 1} {
		b, err := json.Marshal(struct {
			H SimHash `json:"h"`
		}{h})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`{"h":"%016x"}`, uint64(h))
		if string(b) != want {
			t.Errorf("json.Marshal(%d):\n\tgot  %s\n\twant %s", uint64(h), b, want)
		}
		var back struct {
			H SimHash `json:"h"`
		}
		if err := json.Unmarshal(b, &back); err != nil || back.H != h {
			t.Errorf("json.Unmarshal(%s): %v, %v", b, back.H, err)
		}
	}
	for _, bad := range []string{"", "x", "+1", "-1", "00000000000000000", "0123456789abcdefg"} {
		var h SimHash
		if err := h.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("UnmarshalText(%q) = %v, want an error", bad, h)
		}
	}
}

// simhashArticle returns an article of n words drawn from a vocabulary of 2,000,
// with a sentence end every 12 words.
func simhashArticle(r *rand.Rand, n int) []string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", r.IntN(2000))
		if i%12 == 11 {
			words[i] += "."
		}
	}
	return words
}

// TestSimHashPlanted measures how well Near tells planted near-duplicates from other
// pages: 200 articles of 150 to 1,200 words, each with variants a crawler meets
// (the same text under another URL, a calendar page with its date changed, an edit of
// 1% of the words, a comment added of 5%), compared with every other article. It
// requires a recall of at least 0.7 on the pairs of variants and a precision of 1 (no
// two different articles near), and logs both.
func TestSimHashPlanted(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 2026))
	type page struct {
		article int
		h       SimHash
	}
	var pages []page
	variants := 0
	for a := range 200 {
		words := simhashArticle(r, 150+r.IntN(1050))
		text := strings.Join(words, " ")
		pages = append(pages, page{a, TextSimHash(text)})
		// The same text: a session id in the URL.
		pages = append(pages, page{a, TextSimHash(text)})
		// A calendar page: the date line changes.
		pages = append(pages, page{a, TextSimHash("Events on 2026-11-" + fmt.Sprint(a%28+1) + ". " + text)})
		// An edit of 1% of the words.
		edited := append([]string(nil), words...)
		for range max(1, len(words)/100) {
			edited[r.IntN(len(edited))] = "changed"
		}
		pages = append(pages, page{a, TextSimHash(strings.Join(edited, " "))})
		// A comment of 5% of the words appended.
		pages = append(pages, page{a, TextSimHash(text + " " + strings.Join(simhashArticle(r, len(words)/20), " "))})
		variants += 4
	}
	var tp, fp, fn int
	for i := range pages {
		for j := i + 1; j < len(pages); j++ {
			same := pages[i].article == pages[j].article
			near := pages[i].h.Near(pages[j].h)
			switch {
			case near && same:
				tp++
			case near:
				fp++
			case same:
				fn++
			}
		}
	}
	precision := float64(tp) / float64(tp+fp)
	recall := float64(tp) / float64(tp+fn)
	t.Logf("%d pages, %d pairs of near-duplicates: precision %.3f, recall %.3f (tp %d, fp %d, fn %d)", len(pages), tp+fn, precision, recall, tp, fp, fn)
	if fp > 0 || recall < 0.7 {
		t.Errorf("precision %.3f, recall %.3f: want 1 and at least 0.7", precision, recall)
	}
}

// FuzzSimHashText checks that every signature UnmarshalText accepts is written back
// as the same value, and that what String writes is read back.
func FuzzSimHashText(f *testing.F) {
	for _, s := range []string{"0", "fedcba9876543210", "FFFF", "", "+1", "0x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var h SimHash
		if err := h.UnmarshalText([]byte(s)); err != nil {
			return
		}
		var back SimHash
		if err := back.UnmarshalText([]byte(h.String())); err != nil || back != h {
			t.Fatalf("UnmarshalText(%q) = %v, which reads back as %v, %v", s, h, back, err)
		}
	})
}
