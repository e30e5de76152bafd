package extract

import (
	"strings"
	"testing"
)

// TestTextIsDateLine reads date lines from the edges of real articles, and lines that
// hold a date among more words, or numbers that are no date.
func TestTextIsDateLine(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"associated press - january 14, 2008 4:44 am et", true},
		{"last update: 1/14 7:52 pm", true},
		{"sat, 29 dec 2007 17:50:54", true},
		{"3. august 2015", true},
		{"stand: 28.04.2020 18:00 uhr", true},
		{"15 january, 2008", true},
		{"2012-11-09", true},
		{"publié le 12/03/2019", true},
		// More words than the date's: a sentence that names a day.
		{"the bank said on january 14 that it would cut its rates by half a point", false},
		// A version and a phone number are no dates.
		{"version 1.2.3", false},
		{"call 158-23-2012", false},
		{"12 comments", false},
		{"", false},
	} {
		if got := textIsDateLine(c.s); got != c.want {
			t.Errorf("textIsDateLine(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

// TestTextTrimTail takes the junk lines that end a block of <br>-separated lines, and
// no line of the story.
func TestTextTrimTail(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"The bank said so, the Telegraph said.\nCopyright 2008 by UPI\n", "The bank said so, the Telegraph said.\n"},
		{"The bank said so.\nPosted by Ann at 10:12 | Permalink\nAll rights reserved.", "The bank said so.\n"},
		{"The bank said so.\nIt will open on Monday.", "The bank said so.\nIt will open on Monday."},
		{"Copyright 2008 by UPI", "Copyright 2008 by UPI"},
	} {
		if got := textTrimTail(c.in); got != c.want {
			t.Errorf("textTrimTail(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzTextEdge reads any line as the edges do: the date line's reader must not fail,
// and what textTrimTail keeps is the text's beginning.
func FuzzTextEdge(f *testing.F) {
	for _, s := range []string{
		"Associated Press - January 14, 2008 4:44 AM ET",
		"The bank said so.\nCopyright 2008 by UPI\n",
		"call 158-23-2012\n1.2.3\n12/03/2019",
		"a\n\n\n",
		"\xff\xfe9/9/9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		textIsDateLine(s)
		if got := textTrimTail(s); !strings.HasPrefix(s, got) {
			t.Fatalf("textTrimTail(%q) = %q, not its beginning", s, got)
		}
	})
}
