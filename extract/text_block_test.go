package extract

import (
	"strings"
	"testing"
)

func TestTextBlockRead(t *testing.T) {
	tests := []struct {
		in   string
		want textBlockStats
	}{
		{"The council voted on Tuesday, after a long debate.",
			textBlockStats{words: 9, caps: 2, stops: 3, letters: 40, commas: 1, sentence: true}},
		{"Share this: Facebook | Twitter | Email",
			textBlockStats{words: 5, caps: 4, stops: 1, letters: 29, seps: 2}},
		// "am" is a German stop word.
		{"Updated 10:42 AM, March 3, 2019",
			textBlockStats{words: 7, caps: 3, stops: 1, letters: 14, digits: 9, commas: 2, date: true}},
		{"Der Rat hat am Dienstag entschieden, dass es weitergeht.",
			textBlockStats{words: 9, caps: 3, stops: 5, letters: 46, commas: 1, sentence: true}},
		// "da" is a Portuguese one.
		{"Die Übergangsregierung ist für die Bürger da.",
			textBlockStats{words: 7, caps: 3, stops: 5, letters: 38, sentence: true}},
		{"", textBlockStats{}},
	}
	for _, tt := range tests {
		var got textBlockStats
		textBlockRead([]byte(tt.in), &got)
		if got != tt.want {
			t.Errorf("textBlockRead(%q):\n\tgot  %+v\n\twant %+v", tt.in, got, tt.want)
		}
	}
}

// TestTextBlockScorer checks the block scorer on page shapes: what it drops that the
// rules keep, and what it leaves to them.
func TestTextBlockScorer(t *testing.T) {
	prose := "<p>The council voted on Tuesday to extend the program for another two years, after a long debate in which several members said that the costs had grown faster than expected.</p>\n"
	cyrillic := "<p>Совет во вторник проголосовал за продление программы ещё на два года после долгих споров, в ходе которых несколько членов совета заявили, что расходы росли быстрее, чем ожидалось.</p>\n"
	page := func(para, middle string) string {
		return "<html><body><article><h1>Council extends program</h1>" + para + para + para + middle + para + para + "</article></body></html>"
	}
	tests := []struct {
		name    string
		html    string
		line    string // in the text without the scorer
		dropped bool   // and not with it
	}{{
		// A share bar between two paragraphs, inside the article, where the rules of
		// the edges do not reach.
		name:    "share bar in the article",
		html:    page(prose, "<p>Share this: Facebook | Twitter | Email</p>"),
		line:    "Share this: Facebook | Twitter | Email",
		dropped: true,
	}, {
		// The same bar on a page in a language whose stop words the scorer does not
		// know: it is left to the rules.
		name: "share bar in a page it cannot read",
		html: page(cyrillic, "<p>Share this: Facebook | Twitter | Email</p>"),
		line: "Share this: Facebook | Twitter | Email",
	}, {
		// Captions, code blocks and tables are left to the rules: the truths disagree
		// on captions, and a manual's code and tables are its content.
		name: "caption",
		html: page(prose, `<figure><img src="a.jpg"><figcaption>Photos: 12 pictures</figcaption></figure>`),
		line: "Photos: 12 pictures",
	}, {
		name: "code block",
		html: page(prose, "<pre>Share this: Facebook | Twitter | Email</pre>"),
		line: "Share this: Facebook | Twitter | Email",
	}, {
		name: "table",
		html: page(prose, "<table><tr><td>Updated</td><td>10:42 AM, March 3, 2019</td></tr></table>"),
		line: "Updated\t10:42 AM, March 3, 2019",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := textBlockModel
			textBlockModel = textBlockWeights{}
			without := htmlTestText(t, tt.html)
			textBlockModel = saved
			with := htmlTestText(t, tt.html)
			if !strings.Contains(without, tt.line) {
				t.Fatalf("without the scorer, %q is not in the text:\n%s", tt.line, without)
			}
			if got := !strings.Contains(with, tt.line); got != tt.dropped {
				t.Errorf("with the scorer, dropped %v, want %v:\n%s", got, tt.dropped, with)
			}
			if n := strings.Count(with, "\n") - strings.Count(without, "\n"); tt.dropped && n != -1 || !tt.dropped && n != 0 {
				t.Errorf("with the scorer, %d lines more than without:\n%s", n, with)
			}
			// The Markdown text drops what the plain text's scorer dropped.
			p, err := HTML(htmlTestURL, nil, []byte(tt.html), HTMLOptions{WithText: true, TextFormat: TextMarkdown})
			if err != nil {
				t.Fatal(err)
			}
			if got := !strings.Contains(p.Text, strings.ReplaceAll(tt.line, "\t", " | ")); got != tt.dropped {
				t.Errorf("Markdown: dropped %v, want %v:\n%s", got, tt.dropped, p.Text)
			}
		})
	}
}

// htmlTestText returns the main text of the page src.
func htmlTestText(t *testing.T, src string) string {
	t.Helper()
	p, err := HTML(htmlTestURL, nil, []byte(src), HTMLOptions{WithText: true})
	if err != nil {
		t.Fatal(err)
	}
	return p.Text
}

// TestTextBlockJudged checks what the scorer judges with a model that drops every block
// it judges: not the blocks before the first paragraph of prose, nor paragraphs of
// prose, captions, code blocks and tables, nor anything on a page in a language whose
// stop words it does not know.
func TestTextBlockJudged(t *testing.T) {
	prose := "<p>The council voted on Tuesday to extend the program for another two years, after a long debate in which several members said that the costs had grown faster than expected.</p>\n"
	cyrillic := "<p>Совет во вторник проголосовал за продление программы ещё на два года после долгих споров, в ходе которых несколько членов совета заявили, что расходы росли быстрее, чем ожидалось.</p>\n"
	body := func(para string) string {
		return "<html><body><article><h1>Council extends program</h1><p>Six hours of debate, and a vote of nine to two</p>" + para + para +
			"<p>Tags: politics, economy</p>" + `<figure><img src="a.jpg"><figcaption>The council's chamber</figcaption></figure>` +
			"<pre>make install</pre><table><tr><td>Votes</td><td>9 to 2</td></tr></table>" + para + "<h3>More on this story</h3></article></body></html>"
	}
	saved := textBlockModel
	defer func() { textBlockModel = saved }()
	textBlockModel = textBlockWeights{on: true, w: textBlockVec{0: -10}}
	got := htmlTestText(t, body(prose))
	for _, line := range []string{"Six hours of debate", "The council's chamber", "make install", "Votes\t9 to 2", "The council voted"} {
		if !strings.Contains(got, line) {
			t.Errorf("%q dropped:\n%s", line, got)
		}
	}
	for _, line := range []string{"Tags: politics", "More on this story"} {
		if strings.Contains(got, line) {
			t.Errorf("%q kept:\n%s", line, got)
		}
	}
	if got := htmlTestText(t, body(cyrillic)); !strings.Contains(got, "Tags: politics") {
		t.Errorf("a block dropped on a page in Russian:\n%s", got)
	}
}
