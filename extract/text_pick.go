package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The content is chosen the way readability does, on the tree boilerplate has been
// marked in (text_tree.go): every paragraph of some length scores by its length and
// commas, and gives that score to its parent, half to its grandparent and less to
// three more ancestors; a block's score is then discounted by the share of its text in
// links and moved by its class and id, and the best block wins. Its siblings that
// score close to it, or are prose (unless named as maybe boilerplate: a sidebar, a
// widget; or beside a winner that is the page's <main> or an <article>), join it, with
// the headings between them; a sibling under two linked headlines is a list of teasers
// and does not, nor does a column of other stories (textTree.feed), whose prose is then
// no part of the page's. When they hold a third
// of the page's prose or less, the article is spread wider: the winner's parent is
// tried, as long as it is not mostly links and its prose is not mostly elsewhere (a
// feed beside the article); a winner of textArticleMin characters of prose under a
// parent of links is the article; failing that, the text is every paragraph of prose
// of the page (the baseline). A page without prose gives what it marks as its content
// (<main>, <article>), else all that is not boilerplate. Chosen blocks inside an
// <article> that holds little more prose than they do widen to it, up to their end: the
// article's lead and header come in. As the chosen blocks are
// written (text_write.go), a short block before the first paragraph of prose or after
// the last is dropped when it is a date line, a call to action or a byline (text_edge.go),
// and so are a heading that ends the text and the last two paragraphs of prose when they
// are calls to subscribe, follow or write in (textTree.tailJunk).

// textParagraphMin is the least text, in characters, of a paragraph that scores.
const textParagraphMin = 25

// textArticleMin is the prose, in characters, of the winner and its siblings that
// makes them the article rather than a part of one.
const textArticleMin = 500

// textPick returns the blocks whose text is the page's main text, in document order.
// What of it comes after the last block is left out: stop is the index in the tree
// where the text ends, 0 when it ends with the blocks.
func (t *textTree) textPick() (picked []int32, stop int32) {
	return t.widen(t.pick())
}

// widen returns the <article> around the picked blocks when what it holds beside them
// is little prose: the lead and the header of the article before them, which the edges
// then trim (text_write.go), rather than a feed. Its end is not: what an article
// holds after its body is notes, links and calls to action more than text.
func (t *textTree) widen(picked []int32) ([]int32, int32) {
	if len(picked) == 0 {
		return picked, 0
	}
	var prose int32
	for _, i := range picked {
		prose += t.info[i].prose
	}
	first, last := picked[0], picked[len(picked)-1]
	for a, up := t.info[first].parent, 0; a > t.body && up < 6; a, up = t.info[a].parent, up+1 {
		in := &t.info[a]
		if t.info[last].end > in.end {
			break // the picked blocks are not all in it
		}
		if t.nodes[a].DataAtom != atom.Article {
			continue
		}
		if in.prose <= prose+max(textWidenMax, prose/4) && in.link*3 < in.text {
			return []int32{a}, t.info[last].end
		}
		break
	}
	return picked, 0
}

// textWidenMax is the prose, in characters, besides the picked blocks that an
// <article> around them may hold and be the content.
const textWidenMax = 600

// pick returns the blocks chosen as described at the top of this file.
func (t *textTree) pick() []int32 {
	best := t.titled(t.score())
	if t.posts {
		// A thread of posts: all of them are the content, whichever scores best.
		return []int32{t.postsIn}
	}
	if best < 0 {
		// No paragraph of prose: a short page, whose text is what the page marks as
		// its content, else all that is not boilerplate.
		if h := t.hints(); len(h) > 0 {
			return h
		}
		return []int32{t.body}
	}
	prose := t.info[t.body].prose
	// The winner inside the block the page marks as the article's body is a part of
	// it (a gallery's captions outscoring the paragraphs): the body is the content.
	for p := t.info[best].parent; p > t.body; p = t.info[p].parent {
		if textIsArticleBody(t.nodes[p]) {
			best = p
			break
		}
	}
	for {
		// A wrapper that holds nothing but the winner is the same content; climbing it
		// lets the winner's siblings be judged at the level where they are.
		for p := t.info[best].parent; p > t.body && t.info[p].text == t.info[best].text; p = t.info[p].parent {
			best = p
		}
		picked, teasers := t.siblings(best)
		var chars int32
		for _, i := range picked {
			chars += t.info[i].prose
		}
		// The prose of a column of other stories beside them is not weighed, when
		// they are an article's length (a short winner beside a feed may be a part).
		if chars*3 >= prose || chars >= textArticleMin && chars*3 >= prose-teasers {
			return picked
		}
		// The winner holds a third of the page's prose or less: the article may be
		// spread over many blocks, of which the winner is one. Its parent is the
		// content if it is prose rather than links; if it is links, the winner is the
		// article when it is long enough to be one (the rest of the page's prose is
		// then teasers and feeds), else the page's paragraphs are.
		p := t.info[best].parent
		if p <= t.body || t.info[p].link*3 > t.info[p].text {
			if chars >= textArticleMin {
				return picked
			}
			return t.baseline()
		}
		if chars >= textArticleMin && t.info[p].prose > chars*3 {
			// The parent's prose is mostly elsewhere (a feed beside the article).
			return picked
		}
		best = p
	}
}

// score gives every block its content score and returns the best block, -1 when no
// paragraph scores.
func (t *textTree) score() int32 {
	var para int32 // the end of the paragraph being read: the elements before it are in it
	for i := t.body; int(i) < len(t.nodes); i++ {
		n, in := t.nodes[i], &t.info[i]
		if in.flags&(textGone|textPermalink) != 0 || n.Type != html.ElementNode {
			continue
		}
		if !t.isParagraph(i) {
			if i < para && !textBlock[n.DataAtom] {
				// An inline element inside a paragraph (a <span>, a <b>): its text is
				// the paragraph's, which scored once already.
				continue
			}
			t.runs(i, func(r textRun) {
				if r.text-r.link >= textParagraphMin {
					t.credit(i, r.text, r.commas)
				}
			})
			continue
		}
		para = max(para, in.end)
		if in.text-in.link >= textParagraphMin {
			t.credit(in.parent, in.text, in.commas)
		}
	}
	best, bestScore := int32(-1), float32(0)
	for i := t.body; int(i) < len(t.nodes); i++ {
		in := &t.info[i]
		if in.flags&textScored == 0 || in.flags&textGone != 0 || in.text == 0 {
			continue
		}
		in.score *= 1 - float32(in.link)/float32(in.text)
		if in.score > bestScore {
			best, bestScore = i, in.score
		}
	}
	return best
}

// titled returns the block to take as the best scored: best, unless it is not under
// the headline that repeats the page's title and another block that scores nearly as
// well (textTitledScore), with half its prose or more and a third of its text in links
// or less, is. A page that runs on into other articles (a stream of
// stories that loads the next one under the first) is the article its title names, not
// the one of the stream that happens to be longest.
func (t *textTree) titled(best int32) int32 {
	if best < 0 || t.title == "" || t.headlined(best) {
		return best
	}
	min, other := t.info[best].score*textTitledScore, int32(-1)
	for i := t.body; int(i) < len(t.nodes); i++ {
		in := &t.info[i]
		if in.flags&textScored == 0 || in.flags&textGone != 0 || in.score < min || i == best {
			continue
		}
		if i < best && in.end > best || best < i && t.info[best].end > i {
			continue // an ancestor or a part of best: the same content
		}
		if in.prose*2 < t.info[best].prose || in.link*3 > in.text {
			continue // less of an article than best: a teaser, a box of links
		}
		if t.headlined(i) && (other < 0 || in.score > t.info[other].score) {
			other = i
		}
	}
	if other < 0 {
		return best
	}
	return other
}

// textTitledScore is the share of the best score that a block under the headline that
// repeats the title needs to be taken instead (titled).
const textTitledScore = 0.7

// headlined reports whether block i is headed by a headline that repeats the page's
// title: the first <h1> or <h2> in it, before any prose; else the last in the siblings
// before it or before its parent (the article's header beside its body), up to one that
// holds more than a standfirst's prose (textHeadProse).
func (t *textTree) headlined(i int32) bool {
	if h := t.heading(i, true); h >= 0 {
		return textRepeatsTitle(textOf(t.nodes[h], 1024), t.title)
	}
	c := t.nodes[i]
	for up := 0; up < 2; up++ {
		for s := c.PrevSibling; s != nil; s = s.PrevSibling {
			j, ok := t.at[s]
			if !ok {
				continue
			}
			if t.info[j].prose > textHeadProse {
				return false
			}
			if h := t.heading(j, false); h >= 0 {
				return textRepeatsTitle(textOf(t.nodes[h], 1024), t.title)
			}
		}
		if c = c.Parent; c == nil || t.at[c] <= t.body {
			break
		}
	}
	return false
}

// heading returns the index of the <h1> or <h2> that is node i or in it, -1 if none:
// with first, the first in it before any paragraph of prose; else the last. It looks
// through textHeadlineNodes nodes at most.
func (t *textTree) heading(i int32, first bool) int32 {
	if a := t.nodes[i].DataAtom; a == atom.H1 || a == atom.H2 {
		return i
	}
	h := int32(-1)
	for j := i + 1; j < t.info[i].end && j <= i+textHeadlineNodes; j++ {
		if a := t.nodes[j].DataAtom; a == atom.H1 || a == atom.H2 {
			if first {
				return j
			}
			h = j
		} else if first && t.info[j].prose > 0 && t.info[j].flags&textParagraph != 0 {
			break
		}
	}
	return h
}

// textHeadlineNodes is how many nodes of a block heading looks through.
const textHeadlineNodes = 400

// textHeadProse is the most prose, in characters, between a headline and the block it
// heads (a standfirst, a byline).
const textHeadProse = 300

// credit adds the score of a paragraph of text characters and commas commas to the
// block at p, which holds it, and to four of its ancestors, less at each level.
func (t *textTree) credit(p int32, text, commas int32) {
	s := 1 + float32(commas) + min(float32(text)/100, 3)
	{
		div := float32(1)
		for level := 0; level < 5 && p >= t.body; level, p = level+1, t.info[p].parent {
			pi := &t.info[p]
			if pi.flags&textScored == 0 {
				pi.flags |= textScored
				pi.score = t.initialScore(p)
			}
			switch level {
			case 0:
				div = 1
			case 1:
				div = 2
			default:
				div = float32(level * 3)
			}
			pi.score += s / div
		}
	}
}

// initialScore is a block's score before its paragraphs add to it: by its element,
// its class and id, and whether it is marked as the content.
func (t *textTree) initialScore(i int32) float32 {
	n := t.nodes[i]
	var s float32
	switch n.DataAtom {
	case atom.Div, atom.Article, atom.Main, atom.Section:
		s = 5
	case atom.Pre, atom.Td, atom.Blockquote:
		s = 3
	case atom.Address, atom.Ol, atom.Ul, atom.Dl, atom.Dd, atom.Dt, atom.Li, atom.Form:
		s = -3
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Th:
		s = -5
	}
	if textIsHint(n) {
		s += 25
	}
	return s + textClassWeight(n)
}

// textClassWeight is readability's class weight: +25 for a class or id naming content,
// -25 for one naming something else.
func textClassWeight(n *html.Node) float32 {
	var w float32
	for _, v := range []string{htmlAttr(n, "class"), htmlAttr(n, "id")} {
		if v == "" {
			continue
		}
		v = strings.ToLower(v)
		for _, s := range textNegativeNames {
			if strings.Contains(v, s) {
				w -= 25
				break
			}
		}
		for _, s := range textPositiveNames {
			if strings.Contains(v, s) {
				w += 25
				break
			}
		}
	}
	return w
}

var textPositiveNames = []string{"article", "body", "content", "entry", "hentry", "main", "page", "post", "text", "blog", "story"}

var textNegativeNames = []string{"hidden", "banner", "combx", "comment", "contact", "footer", "gdpr", "masthead", "media", "meta", "outbrain", "promo", "related", "scroll", "share", "shoutbox", "sidebar", "skyscraper", "sponsor", "shopping", "tags", "widget"}

// isParagraph reports whether the element at i is a paragraph for scoring.
func (t *textTree) isParagraph(i int32) bool { return textIsParagraph(t.nodes[i]) }

// textIsParagraph reports whether an element is a paragraph for scoring: <p>, <pre>,
// <td>, <blockquote> and <dd>, or a block element holding only text and inline
// elements.
func textIsParagraph(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Pre, atom.Td, atom.Blockquote, atom.Dd:
		return true
	case atom.Div, atom.Section, atom.Article, atom.Li, atom.Center:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && textBlock[c.DataAtom] && c.DataAtom != atom.Br {
				return false
			}
		}
		return true
	}
	return false
}

// siblings returns best and those of its siblings that belong to the same content:
// blocks that score close to it, blocks of prose, and the headings between them.
func (t *textTree) siblings(best int32) (picked []int32, teasers int32) {
	parent := t.info[best].parent
	if parent < t.body {
		return []int32{best}, 0
	}
	threshold := max(10, t.info[best].score*0.2)
	// Beside the page's <main> (role=main) or an <article>, a block is outside what the
	// page marks as its main content or as a composition of its own: it joins by its
	// score, not by its prose (a column's "About" box, a sidebar of prose, another
	// story's teaser). Not a sibling <article> of one shape: a forum's posts.
	main := textIsMain(t.nodes[best])
	article := t.nodes[best].DataAtom == atom.Article
	heading := int32(-1) // a heading waiting for the block after it
	for c := t.nodes[parent].FirstChild; c != nil; c = c.NextSibling {
		i, ok := t.at[c]
		if !ok || t.info[i].flags&(textGone|textPermalink) != 0 {
			continue
		}
		in := &t.info[i]
		switch {
		case i == best:
		case in.heads >= 2:
			// A list of teasers, each under its linked headline.
			heading = -1
			continue
		case t.feed(i):
			// A column of other stories, each a headline and its teaser. Their prose
			// is not the article's: the winner is not weighed against it.
			teasers += in.prose
			heading = -1
			continue
		case in.flags&textScored != 0 && in.score >= threshold:
		case in.prose*2 >= in.text && in.link*4 < in.text && !main && !(article && !textSameShape(t.nodes[best], c)) && !t.maybeAside(c):
		case c.Type == html.ElementNode && in.link == 0 && t.isHeading(i):
			heading = i
			continue
		default:
			if c.Type == html.ElementNode || in.text > 0 {
				heading = -1
			}
			continue
		}
		if heading >= 0 && (len(picked) > 0 || t.nodes[heading].DataAtom != atom.H1) {
			// A heading that opens the content or a part of it; not the page's title
			// in <h1> above it, which Page.Title holds.
			picked = append(picked, heading)
		}
		heading = -1
		picked = append(picked, i)
	}
	return picked, teasers
}

// maybeAside reports whether the sibling n is named as what may be boilerplate (a
// "sidebar-wrapper", a "related" box) and was kept for its prose: it joins the content
// only by its score, not by its prose (a blog's "About Me", a widget's teaser).
func (t *textTree) maybeAside(n *html.Node) bool {
	if n.Type != html.ElementNode || n.DataAtom == atom.Header || t.boilerplate(n) != textMaybe {
		return false
	}
	// Not a utility class's word: "hidden" beside Tailwind's "md:block" shows it.
	return !strings.Contains(htmlAttr(n, "class"), ":")
}

// isHeading reports whether the element at i is a heading, or a block that holds only
// a heading (DocBook's <div class="titlepage"><div><div><h2>).
func (t *textTree) isHeading(i int32) bool {
	for {
		n := t.nodes[i]
		if textHeadingLevel(n.DataAtom) > 0 {
			return true
		}
		// The one child that holds all the text.
		next := int32(-1)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if j, ok := t.at[c]; ok && t.info[j].text == t.info[i].text && c.Type == html.ElementNode {
				next = j
				break
			}
		}
		if next < 0 || t.info[i].text > 300 {
			return false
		}
		i = next
	}
}

// end returns the index after the last node under i.
func (t *textTree) end(i int32) int32 { return t.info[i].end }

// hints returns the outermost elements that say they hold the content (<main>,
// role=main, itemprop=articleBody, <article>) and have text.
func (t *textTree) hints() []int32 {
	var hints []int32
	for i := t.body; i < t.end(t.body); i++ {
		if n := t.nodes[i]; n.Type == html.ElementNode && t.info[i].text > 0 && t.info[i].flags&textGone == 0 && textIsHint(n) {
			hints = append(hints, i)
			i = t.end(i) - 1
		}
	}
	return hints
}

// baseline returns the page's paragraphs of prose, and headings and list items that
// are not links, in document order; or the body when there are none.
func (t *textTree) baseline() []int32 {
	var picked []int32
	end := t.end(t.body)
	for j := t.body; j < end; j++ {
		in := &t.info[j]
		n := t.nodes[j]
		if in.flags&(textGone|textPermalink) != 0 || n.Type != html.ElementNode {
			continue
		}
		ok := false
		switch n.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Li, atom.Pre, atom.Blockquote, atom.Table:
			ok = in.text > 0 && in.link*2 < in.text
		default:
			ok = t.isParagraph(j) && textProse(in.text, in.link)
		}
		if ok {
			picked = append(picked, j)
			j = t.end(j) - 1
		}
	}
	if len(picked) == 0 {
		return []int32{t.body}
	}
	return picked
}

// textIsMain reports whether an element is the page's main content by its name or its
// role: a <main>, role=main.
func textIsMain(n *html.Node) bool {
	return n.DataAtom == atom.Main || strings.EqualFold(strings.TrimSpace(htmlAttr(n, "role")), "main")
}

// textIsArticleBody reports whether an element is marked as an article's body
// (itemprop=articleBody).
func textIsArticleBody(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "itemprop" && strings.Contains(strings.ToLower(a.Val), "articlebody") {
			return true
		}
	}
	return false
}
