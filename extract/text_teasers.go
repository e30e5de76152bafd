package extract

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// cards reports whether the list at i is a list of cards: three items or more, nearly
// all opening with a heading (a slideshow's slides, a gallery's legends, teasers), rather
// than the items of an article's list. A <dl> is one when nearly all its terms are links
// to other pages: headlines, each with its teaser in the <dd> after it.
func (t *textTree) cards(i int32) bool {
	items, headed, wrapped := 0, 0, 0
	dl := t.nodes[i].DataAtom == atom.Dl
	for c := t.nodes[i].FirstChild; c != nil; c = c.NextSibling {
		j, ok := t.at[c]
		if !ok || c.Type != html.ElementNode || t.info[j].text == 0 || t.info[j].flags&textGone != 0 {
			continue
		}
		if dl {
			if c.DataAtom == atom.Dt {
				items++
				if t.info[j].link*2 > t.info[j].text {
					headed++
				}
			}
			continue
		}
		if c.DataAtom != atom.Li {
			continue
		}
		items++
		switch depth := t.headed(c); {
		case depth == 0:
			headed++
		case depth > 0:
			headed++
			wrapped++
		}
	}
	// Items whose heading sits inside wrappers are cards only when they are teasers
	// (linked, short): a listicle's or a guide's sections are items too, each a
	// <div> with its heading and paragraphs, and they are the article.
	return items >= 3 && headed*4 >= items*3 && (wrapped == 0 || t.teasers(i))
}

// amidProse reports whether the element n stands between paragraphs of prose among
// its siblings: prose before it and prose after it in the same parent, as the lists of
// an article's body do; a slideshow or a feed put in the content stands in a box of its
// own, or after the article's last paragraph.
func (t *textTree) amidProse(n *html.Node) bool {
	return t.proseBeside(n, false) && t.proseBeside(n, true)
}

// proseBeside reports whether a sibling before n (after it with next) holds prose; or,
// when those are only a heading (before) or nothing (after), a sibling of n's parent:
// a list that is a section's body under the section's heading.
func (t *textTree) proseBeside(n *html.Node, next bool) bool {
	for up := 0; up < 2 && n != nil; up, n = up+1, n.Parent {
		other := false
		for s := htmlSibling(n, next); s != nil; s = htmlSibling(s, next) {
			j, ok := t.at[s]
			if !ok || t.info[j].flags&textGone != 0 || t.info[j].text == 0 {
				continue
			}
			if t.info[j].prose > 0 {
				return true
			}
			if next || s.Type != html.ElementNode || !t.isHeading(j) {
				other = true
			}
		}
		if other {
			return false
		}
		if j, ok := t.at[n.Parent]; !ok || j <= t.body {
			return false
		}
	}
	return false
}

// htmlSibling returns the sibling after n with next, else the one before.
func htmlSibling(n *html.Node, next bool) *html.Node {
	if next {
		return n.NextSibling
	}
	return n.PrevSibling
}

// headed returns how many wrappers deep the first text of the item n is a heading: 0
// when it is its first child with text, 1 or 2 when it is that child's, down through
// <div>, <section>, <article> or <header> wrappers (<li><div class="card"><h3>); -1
// when its first text is no heading.
func (t *textTree) headed(n *html.Node) int {
	for depth := 0; depth < 3; depth++ {
		first := t.firstWithText(n)
		switch {
		case first == nil || first.Type != html.ElementNode:
			return -1
		case textHeadingLevel(first.DataAtom) > 0:
			return depth
		case first.DataAtom != atom.Div && first.DataAtom != atom.Section && first.DataAtom != atom.Article && first.DataAtom != atom.Header:
			return -1
		}
		n = first
	}
	return -1
}

// feed reports whether the block at i is mostly lists of cards (textTree.cards) of
// short items: a column of other stories, each a headline and a line or two of teaser
// (and a date), which scores as prose beside the article and must not join it.
func (t *textTree) feed(i int32) bool {
	in := &t.info[i]
	if in.text == 0 || in.flags&textHint != 0 {
		return false
	}
	var cards int32
	for j := i; j < in.end; j++ {
		n := t.nodes[j]
		if n.Type != html.ElementNode || t.info[j].flags&textGone != 0 || t.info[j].text == 0 {
			continue
		}
		switch n.DataAtom {
		case atom.Ul, atom.Ol, atom.Dl:
			if t.cards(j) && t.teasers(j) {
				cards += t.info[j].text
				j = t.info[j].end - 1
			}
		default:
			if textBlock[n.DataAtom] && t.teaserRun(j) {
				cards += t.info[j].text
				j = t.info[j].end - 1
			}
		}
	}
	return cards*10 >= in.text*7
}

// teaserRun reports whether the block at i is a run of teasers: three children or more,
// holding most of its text, each of textTeaserMax characters or less and opening with a
// link (a headline, then a sentence or two: "<p><a>Bellamy raring to go</a> West Ham
// striker Craig Bellamy is expected...</p>").
func (t *textTree) teaserRun(i int32) bool {
	var items, text int32
	for c := t.nodes[i].FirstChild; c != nil; c = c.NextSibling {
		j, ok := t.at[c]
		if !ok || c.Type != html.ElementNode || t.info[j].text == 0 || t.info[j].flags&textGone != 0 {
			continue
		}
		if t.info[j].text <= textTeaserMax && t.info[j].link > 0 && t.opensWithLink(c) {
			items++
			text += t.info[j].text
		}
	}
	return items >= 3 && text*10 >= t.info[i].text*7
}

// teaserList reports whether the block at i is a list of other stories, each under a
// headline that links to it: a list of cards that are teasers (textTree.cards,
// teasers: each item a linked headline and a line or two), a run of teasers
// (teaserRun; a table's rows too), or a block of two headings or more that are links,
// with at most a teaser's text each. Their headlines are links to another page, not within this one
// (a footnote's number, a heading's anchor), and words (textHeadline), not a term with
// its colon; a list's items open with them (not a feature's name over its description
// and a "Learn more" link).
func (t *textTree) teaserList(i int32) bool {
	n, in := t.nodes[i], &t.info[i]
	if in.link == 0 || in.flags&textGone != 0 {
		return false
	}
	switch n.DataAtom {
	case atom.Ul, atom.Ol, atom.Dl:
		return t.cards(i) && t.teasers(i) && t.headlines(i)
	}
	if in.heads >= 2 && in.text <= in.heads*textTeaserMax {
		return t.linkedHeadings(i)
	}
	if n.DataAtom == atom.Table {
		// A table's rows are in its <tbody>.
		if b := t.firstWithText(n); b != nil && b.DataAtom == atom.Tbody {
			i = t.at[b]
		}
	}
	return t.teaserRun(i) && t.headlines(i)
}

// headlines reports whether nearly all the items of the block at i (its children with
// text; a <dl>'s terms) open with a story's headline (storyHeadline).
func (t *textTree) headlines(i int32) bool {
	var items, ok int
	dl := t.nodes[i].DataAtom == atom.Dl
	for c := t.nodes[i].FirstChild; c != nil; c = c.NextSibling {
		j, in := t.at[c]
		if !in || c.Type != html.ElementNode || t.info[j].text == 0 || t.info[j].flags&textGone != 0 || dl && c.DataAtom != atom.Dt {
			continue
		}
		items++
		if t.storyHeadline(t.openingLink(c)) {
			ok++
		}
	}
	return items > 0 && ok*4 >= items*3
}

// linkedHeadings reports whether nearly all the headings in the block at i are
// headlines of stories (storyHeadline), two at least.
func (t *textTree) linkedHeadings(i int32) bool {
	var heads, ok int
	for j := i + 1; j < t.info[i].end; j++ {
		if t.info[j].flags&textGone != 0 {
			j = t.info[j].end - 1
			continue
		}
		n := t.nodes[j]
		if textHeadingLevel(n.DataAtom) == 0 || t.info[j].text == 0 {
			continue
		}
		heads++
		if t.storyHeadline(t.openingLink(n)) {
			ok++
		}
		j = t.info[j].end - 1
	}
	return heads >= 2 && ok*4 >= heads*3
}

// openingLink returns the link that holds the first text of n, down its first children
// with text, nil if that text is in none.
func (t *textTree) openingLink(n *html.Node) *html.Node {
	for depth := 0; depth < 5 && n != nil; depth++ {
		if n.Type != html.ElementNode {
			return nil
		}
		if j := t.at[n]; t.info[j].flags&textLink != 0 {
			return n
		}
		n = t.firstWithText(n)
	}
	return nil
}

// storyHeadline reports whether the link a may be a story's headline: it leads to
// another page, and its text is a headline (textHeadline).
func (t *textTree) storyHeadline(a *html.Node) bool {
	if a == nil {
		return false
	}
	href := strings.TrimSpace(htmlAttr(a, "href"))
	if href == "" || href[0] == '#' || strings.HasPrefix(strings.ToLower(href), "javascript:") {
		return false
	}
	return textHeadline(textOf(a, textHeadlineMax+1))
}

// textHeadline reports whether s reads as a story's headline: words, at most
// textHeadlineMax bytes; not a term with its colon ("Keywords:") nor a number.
func textHeadline(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) > textHeadlineMax || strings.HasSuffix(s, ":") {
		return false
	}
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// textHeadlineMax is the most text, in bytes, of a story's headline.
const textHeadlineMax = 200

// firstWithText returns the first child of n with text, or nil.
func (t *textTree) firstWithText(n *html.Node) *html.Node {
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if kj, ok := t.at[k]; ok && t.info[kj].text > 0 {
			return k
		}
	}
	return nil
}

// opensWithLink reports whether the first text of n, down its first children with
// text, is inside a link.
func (t *textTree) opensWithLink(n *html.Node) bool {
	for depth := 0; depth < 4; depth++ {
		first := t.firstWithText(n)
		if first == nil || first.Type != html.ElementNode {
			return false
		}
		if j := t.at[first]; t.info[j].flags&textLink != 0 {
			return true
		}
		n = first
	}
	return false
}

// teasers reports whether the items of the list of cards at i are teasers: nearly all
// hold a link (the headline, a "more" link) and they hold textTeaserMax characters of
// text or less on average; not the sections of an article, nor a list of tips.
func (t *textTree) teasers(i int32) bool {
	var items, linked int32
	for c := t.nodes[i].FirstChild; c != nil; c = c.NextSibling {
		if j, ok := t.at[c]; ok && c.Type == html.ElementNode && (c.DataAtom == atom.Li || c.DataAtom == atom.Dt) && t.info[j].text > 0 {
			items++
			if t.info[j].link > 0 {
				linked++
			}
		}
	}
	return items > 0 && linked*4 >= items*3 && t.info[i].text <= items*textTeaserMax
}

// textTeaserMax is the most text, in characters, of a teaser on average: a headline,
// a sentence or two and a date.
const textTeaserMax = 400

// teasersAt returns where the first list of other stories (w.teasers) begins after
// which the text holds no paragraph of prose outside such lists, 0 if none. The text
// before it must be an article's: textArticleMin characters of prose, one paragraph
// at least longer than a teaser's summary (textTeaserLine; a section's page is teasers
// throughout), and more prose than the lists' teasers, which are prose by their
// length: a list whose teasers outweigh the text before it is the page's own (a
// guide's venues, each a linked name and its review; a documentation page's tiles).
func (w *textWalker) teasersAt() int {
	for _, s := range w.teasers {
		var before, after, line int32
		for _, p := range w.proses {
			prose := w.t.info[p.i].prose
			switch {
			case p.end <= s.start:
				before += prose
				line = max(line, prose)
			case p.start < s.start:
			case !textInSpans(w.teasers, p.start, p.end):
				after = -1
			case after >= 0:
				after += prose
			}
			if after < 0 {
				break
			}
		}
		if after >= 0 && before >= textArticleMin && line > textTeaserLine && after <= before {
			return s.start
		}
	}
	return 0
}

// textTeaserLine is the most prose, in characters, of a teaser's summary: a sentence.
const textTeaserLine = 200

// textSpan is a span of the output, from start to end.
type textSpan struct {
	start, end int
	i          int32 // the block's index in the tree
}

// textInSpans reports whether [start, end) is inside one of spans.
func textInSpans(spans []textSpan, start, end int) bool {
	for _, s := range spans {
		if s.start <= start && end <= s.end {
			return true
		}
	}
	return false
}
