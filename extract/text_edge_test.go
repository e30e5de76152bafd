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

// TestTextEndAtNotice ends a text at the notice after its last line of prose (a
// copyright notice, the links to print, mail or bookmark the story), and keeps a
// notice that prose follows or that no prose comes before.
func TestTextEndAtNotice(t *testing.T) {
	const prose = "The meeting has fuelled speculation of a possible tie-up in the run up to next year's general elections.\n"
	for _, c := range []struct{ in, want string }{
		// thecheers.org: the agency's notice, then its tags and other stories' titles.
		{prose + "© 2007 ANI\nTAGS: South-Asia\nMore\nSonia Gandhi attends Army Day reception\n", prose},
		// The Patriot Ledger: the notice, then the paper's address.
		{prose + "Copyright 2008 The Patriot Ledger\nTransmitted Friday, January 18, 2008\nP.O. Box 699159, Quincy, MA 02269-9159\n", prose},
		{prose + "Copyright (c) Press Association Ltd. 2008, All Rights Reserved.\nThe full article contains 407 words", prose},
		{prose + "Print this story\nSuperstore Deals\n", prose},
		{prose + "Bookmark/Search this post with:\ndelicious | digg | reddit\n", prose},
		{prose + "- [E-mail this to a friend](http://example.com/mail)\n", prose},
		// A notice opening its line with a year: the other stories' teasers after it are
		// prose, less than half the story's (eFluxMedia's "Other News in Science").
		{prose + prose + prose + "© 2007 - 2008 - eFluxMedia\nOther News in Science\n" + prose, prose + prose + prose},
		// A caption's credit with a year in the caption: the story goes on after it.
		{prose + prose + "Lee Elder at the Masters of 1975. | © Augusta National/Getty Images\n" + prose,
			prose + prose + "Lee Elder at the Masters of 1975. | © Augusta National/Getty Images\n" + prose},
		{prose + prose + "© 2019 Getty Images\n" + prose, prose + prose + "© 2019 Getty Images\n" + prose},
		// A notice that is a sentence, with shop boxes after it.
		{prose + "Copyright © 2007 Reed Business Information, a division of Reed Elsevier Inc. All rights reserved.\nHDMI Cables\n", prose},
		// A call to share it, a heading of other stories.
		{prose + "Like this story? Spread the news by clicking below:\ndel.icio.us Digg this reddit!\n", prose},
		{prose + "Top Stories\n15/01/2008\nNorthern Rock EGM Underway\n", prose},
		{prose + "More from SewCanShe:\n20 Free Sewing Patterns for DIY Car Organization\n", prose},
		{prose + "Also In The News\nHatton trainer hits back at Warren\n" + "Ricky Hatton's trainer has slammed Frank Warren after the promoter claimed the fighter should dump him. Full Story\n", prose},
		{prose + "Print Email this\nThanks for your comments - this feedback is now closed\n", prose},
		{prose + "Previous story: Didgeridoo you want to see some concerts?\nNext story: Beanie buddy gets rapper in trouble\n", prose},
		// A line that opens with such words and goes on as the story's own.
		{prose + "Most readers found the answer.\n", prose + "Most readers found the answer.\n"},
		// Prose after the notice: the story goes on after a photograph's credit.
		{prose + "© 2008 Reuters\n" + prose, prose + "© 2008 Reuters\n" + prose},
		// No prose before it; a list item that begins with a word like a tool's; a
		// copyright without a year (a photograph's credit).
		{"© 2007 ANI\nMore\n", "© 2007 ANI\nMore\n"},
		{prose + "bookmarks.el\nbuilt-in\n", prose + "bookmarks.el\nbuilt-in\n"},
		{prose + "© Getty Images\nGallery\n", prose + "© Getty Images\nGallery\n"},
	} {
		if got := textEndAtNotice(c.in, false); got != c.want {
			t.Errorf("textEndAtNotice(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzTextEdge reads any line as the edges do: the date line's reader must not fail,
// and what textTrimTail and textEndAtNotice keep is the text's beginning.
func FuzzTextEdge(f *testing.F) {
	for _, s := range []string{
		"Associated Press - January 14, 2008 4:44 AM ET",
		"The bank said so.\nCopyright 2008 by UPI\n",
		"call 158-23-2012\n1.2.3\n12/03/2019",
		"a\n\n\n",
		"\xff\xfe9/9/9",
		"The bank said so, and the Telegraph, which first had the story, said so too, on Monday.\n© 2008 UPI\nMore\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		textIsDateLine(s)
		if got := textTrimTail(s); !strings.HasPrefix(s, got) {
			t.Fatalf("textTrimTail(%q) = %q, not its beginning", s, got)
		}
		if got := textEndAtNotice(s, false); !strings.HasPrefix(s, got) {
			t.Fatalf("textEndAtNotice(%q) = %q, not its beginning", s, got)
		}
	})
}
