package extract

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TextFormat is the form Page.Text takes.
type TextFormat int

const (
	// TextPlain is plain text: one line per paragraph, heading, list item and table row
	// (the cells of a row separated by a tab), and code blocks with their line breaks and
	// indentation.
	TextPlain TextFormat = iota
	// TextMarkdown is CommonMark: "#" headings, "-" and "1." list items, fenced code
	// blocks, "|" tables, "[text](URL)" links and "`code`" spans, paragraphs separated by
	// a blank line.
	TextMarkdown
)

// textWalker writes the chosen blocks of a page as text.
type textWalker struct {
	t     *textTree
	out   *textOut
	base  *canonParts // what Markdown links resolve against
	roots map[*html.Node]bool
	memo  []textMemo // by index in the tree, nil if none (textChosen.memo)
	stop  int32      // the index in the tree where the text ends, 0 if none (textPick)
	// title is the page's <title>: a heading that repeats it does not open the plain
	// text (Page.Title holds it) unless it is all the text; a Markdown document keeps
	// it as its heading. titleHead is where such a heading begins and ends in the output
	// (0, 0 if none): the first that comes before any prose, when all that was written
	// before it, if anything, is what opens an article above its headline (a date, a
	// section's name, a breadcrumb).
	title     string
	titleHead [2]int
	// edges are the spans of the output of blocks that are dropped when they come
	// before the first paragraph of prose or after the last and are junk (edgeKind):
	// prose[0] is where the first begins, prose[1] where the last ends (0, 0 if none).
	edges []textEdge
	prose [2]int
	// runs is where the first block of runs of prose of its own (textRuns) begins
	// and the last ends, for a content with no paragraph of prose (0, 0 if none).
	runs [2]int
	// proses are the paragraphs of prose written, in order: the last ones are dropped
	// when they are calls to action (textTree.tailJunk).
	proses []textEdge
	// root is the chosen block being written, at its index in the tree.
	root int32
	// rootText is the text, in characters, of the chosen block being written: a block
	// holding half of it is the content itself, never pruned as a box of links.
	rootText int32
	// rootProse is the prose, in characters, of the chosen block being written, its
	// headline links' (textInfo.lprose) counted.
	rootProse int32
	// picked are the chosen blocks, at their indexes in the tree.
	picked []int32
	// captions is the prose of the chosen blocks' figure captions and pickedProse all
	// their prose, its headline links' counted; captions is -1 until a caption asks
	// for them (captionGoes).
	captions, pickedProse int32
	cell                  int // depth inside table cells written on one line
	pre                   int // depth inside <pre>
	lists                 []int
	quotes                int
	// The heading last written, from head[0] to head[1] in the output: it is taken
	// back when what follows it in its parent was all boilerplate (headPruned).
	head       [2]int
	headParent *html.Node
	headPruned bool
	// code is set when a code block was written (textEndAtNotice).
	code bool
	// teasers are the spans of the output of lists of other stories written after a
	// paragraph of prose (textTree.teaserList): the text ends at the first of them
	// that no paragraph of the article's prose follows (teasersAt).
	teasers []textSpan
	// ended is set where the comments on the article begin (textIsCommentsHeading):
	// nothing after it is written. Never in a thread of posts (textTree.posts): there
	// the comments are the content.
	ended bool
}

// write writes n and what is under it, and notes where the blocks of the content's
// edges are in the output (edgeKind).
func (w *textWalker) write(n *html.Node) {
	if n.Type != html.ElementNode || !textBlock[n.DataAtom] || w.cell > 0 || w.pre > 0 {
		w.writeNode(n)
		return
	}
	i, ok := w.t.at[n]
	if !ok {
		w.writeNode(n)
		return
	}
	kind := w.edgeKind(n, i)
	start := len(w.out.b)
	teasers := w.prose[1] > 0 && !w.roots[n] && !w.t.posts && w.t.teaserList(i)
	w.writeNode(n)
	end := len(w.out.b)
	if end <= start {
		return
	}
	if teasers {
		w.teasers = append(w.teasers, textSpan{start, end, i})
	}
	if in := &w.t.info[i]; kind != edgeProse && in.flags&textRuns != 0 && in.text-in.link >= textProseLine && textProse(in.text, in.link) {
		// Runs of prose of its own, between <br>s or empty <p></p>s: where the
		// content's edges are when it has no paragraph of prose (text).
		if w.runs[1] == 0 {
			w.runs[0] = start
		}
		w.runs[0], w.runs[1] = min(w.runs[0], start), max(w.runs[1], end)
	}
	switch kind {
	case edgeMaybe, edgeJunk, edgeHead, edgeLong:
		w.edges = append(w.edges, textEdge{start, end, i, kind == edgeJunk, kind == edgeHead, kind == edgeLong})
	case edgeProse:
		if k := len(w.proses); k > 0 && w.proses[k-1].end > start {
			// Not a paragraph but a block of them: the table cell or the quotation
			// that holds the article's paragraphs.
			return
		}
		if w.prose[1] == 0 {
			w.prose[0] = start
		}
		w.prose[1] = end
		w.proses = append(w.proses, textEdge{start: start, end: end, i: i})
	}
}

// writeNode writes n and what is under it.
func (w *textWalker) writeNode(n *html.Node) {
	if w.ended {
		return
	}
	if w.stop > 0 {
		if i, ok := w.t.at[n]; ok && i >= w.stop {
			return
		}
	}
	switch n.Type {
	case html.TextNode:
		if textEscapedMarkup(n) {
			return
		}
		if w.pre > 0 {
			w.out.raw(n.Data)
		} else {
			w.out.text(n.Data)
		}
		return
	case html.ElementNode:
	default:
		return
	}
	if w.afterProse() && w.cell == 0 && !w.t.posts && w.commentsBegin(n) {
		w.ended = true
		return
	}
	if textIsMath(n) {
		if !w.t.gone(n) {
			w.out.text(textMath(n))
		}
		return
	}
	if !w.roots[n] && w.label(n) {
		// A widget's label between paragraphs: the heading before it stays.
		w.out.sep = true
		return
	}
	if w.t.gone(n) || !w.roots[n] && w.prune(n) {
		if w.headParent != nil && len(w.out.b) == w.head[1] {
			w.headPruned = true // what followed the heading was boilerplate
		}
		// What is left out separates the words on either side of it: ZEIT's
		// <span class="visually-hidden">: </span> between a kicker and a headline.
		w.out.sep = true
		return
	}
	if w.t.caption(n) && w.captionGoes() {
		// A figure's caption, a block that its class names so (a heading, a table's
		// cell...), a picture's box floated beside the text: it describes a picture
		// the text does not hold.
		w.out.sep = true
		return
	}
	md := w.out.md
	switch a := n.DataAtom; a {
	case atom.Br:
		if w.cell > 0 {
			w.out.text(" ")
		} else {
			w.out.brk(1)
		}
		return
	case atom.Img, atom.Input, atom.Wbr:
		return
	case atom.Pre:
		w.codeBlock(n)
		return
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		title := w.titleFirst(md) && textRepeatsTitle(textOf(n, 1024), w.title)
		w.block(2)
		start := len(w.out.b)
		if md && w.cell == 0 {
			w.out.marker(strings.Repeat("#", textHeadingLevel(a)) + " ")
		}
		w.children(n)
		if title {
			w.titleHead = [2]int{start, len(w.out.b)}
		}
		w.block(2)
		if w.cell == 0 {
			w.head, w.headParent, w.headPruned = [2]int{start, len(w.out.b)}, n.Parent, false
		}
		return
	case atom.Ul, atom.Ol:
		w.block(2)
		next := 0 // the number of the next item of an <ol>, 0 for a <ul>
		if a == atom.Ol {
			next = 1
		}
		w.lists = append(w.lists, next)
		w.children(n)
		w.lists = w.lists[:len(w.lists)-1]
		w.out.prefix = w.prefix()
		w.block(2)
		return
	case atom.Li:
		w.block(1)
		if md {
			w.listMarker()
		}
		w.children(n)
		w.out.hold = false // an empty item
		w.block(1)
		return
	case atom.Table:
		if w.cell == 0 && textDataTable(n) {
			w.table(n)
			return
		}
	case atom.A:
		if md && w.cell == 0 && w.pre == 0 {
			w.link(n)
			return
		}
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		if md && w.pre == 0 {
			if s := textOf(n, 1<<16); s != "" && !strings.Contains(s, "`") {
				w.out.word("`" + s + "`")
				return
			}
		}
	case atom.Blockquote:
		if md {
			w.block(2)
			w.quotes++
			w.out.prefix = w.prefix()
			w.children(n)
			w.quotes--
			w.block(2)
			w.out.prefix = w.prefix()
			return
		}
	}
	if textBlock[n.DataAtom] {
		// A block that opens the plain text on one line and repeats the title is a
		// headline set in a <div> or a <p>: it goes as a heading that does (titleHead).
		first := w.titleFirst(md)
		w.block(2)
		start := len(w.out.b)
		w.children(n)
		if line := bytes.TrimLeft(w.out.b[start:], "\n"); first && len(line) > 0 && len(line) <= 300 && bytes.IndexByte(line, '\n') < 0 && textRepeatsTitle(string(line), w.title) {
			w.titleHead = [2]int{start, len(w.out.b)}
		}
		w.block(2)
	} else {
		w.children(n)
	}
	if w.headParent == n {
		if w.headPruned && len(w.out.b) == w.head[1] {
			w.truncate(w.head[0])
		}
		w.headParent = nil
	}
}

// children writes the children of n. Two elements side by side with nothing between
// them and different classes are two words, as the style sheets that give them classes
// show them: a kicker and a headline (<span class="kicker">Klimaschutz</span><span
// class="title">Bohren...), a label and its value. Not one element of one letter (a
// drop cap), nor the pieces of a word an editor left in spans of one class ("<span
// class="s5">Ch</span><span class="s5">â</span>"), nor <em>b</em><em>y.
func (w *textWalker) children(n *html.Node) {
	var prev *html.Node // the element just before c, nil after text
	for c := n.FirstChild; c != nil && !w.out.full; c = c.NextSibling {
		switch c.Type {
		case html.ElementNode:
			if prev != nil && w.twoWords(prev, c) {
				w.out.sep = true
			}
			prev = c
		case html.TextNode:
			prev = nil
		}
		w.write(c)
	}
}

// twoWords reports whether the elements a and b, side by side, hold two words.
func (w *textWalker) twoWords(a, b *html.Node) bool {
	ca, cb := htmlAttr(a, "class"), htmlAttr(b, "class")
	if ca == cb {
		return false
	}
	i, ok := w.t.at[a]
	j, ok2 := w.t.at[b]
	return ok && ok2 && w.t.info[i].text > 1 && w.t.info[j].text > 1
}

// block ends the line, with a blank line in Markdown when para is 2; in a table cell
// written on one line it is a space.
func (w *textWalker) block(para int) {
	if w.cell > 0 {
		w.out.text(" ")
		return
	}
	w.out.brk(para)
}

// prune reports whether a block inside the content is boilerplate all the same: a
// list or block of links (a "related articles" box, a tag list, a share bar), a
// paragraph that is nothing but a link, or a list of cards (textTree.cards) beside
// textArticleMin characters of the content's prose: a slideshow or a gallery, whose
// slides, each under its heading, outweigh the article they are put in; a <dl> of other
// stories' linked headlines and their teasers. A list of cards between the article's
// paragraphs (textTree.amidProse) is the article's own, a guide's sections each under
// its heading ("4 major types of apps: <ol><li><h3>Native apps</h3><p>..."), unless its
// items are teasers (textTree.teasers): other stories' linked headlines.
func (w *textWalker) prune(n *html.Node) bool {
	i, ok := w.t.at[n]
	if !ok {
		return true
	}
	in := &w.t.info[i]
	if (n.DataAtom == atom.Ul || n.DataAtom == atom.Ol || n.DataAtom == atom.Dl) && w.pre == 0 && w.rootProse-in.prose-in.lprose >= textArticleMin && w.t.cards(i) && (w.t.teasers(i) || !w.t.amidProse(n)) {
		return true
	}
	if in.text == 0 || in.link == 0 || w.pre > 0 || in.text*2 > w.rootText {
		return false
	}
	switch n.DataAtom {
	case atom.Span:
		// A span in a paragraph of prose is words of it: a linked name
		// (<span><a>Google</a></span> (NASDAQ: GOOG) bought...), not a share bar.
		if p := in.parent; p >= 0 && textIsParagraph(w.t.nodes[p]) && textProse(w.t.info[p].text, w.t.info[p].link) {
			return false
		}
		return in.link*2 > in.text
	case atom.Div, atom.Section, atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Header, atom.Footer, atom.Nav, atom.Aside, atom.Form:
		return in.link*2 > in.text
	case atom.P, atom.Li:
		if in.link*3 >= in.text*2 && in.text < 150 && w.cell == 0 && n.DataAtom == atom.P {
			return true
		}
	}
	// "Lesen Sie auch: <a>...</a>", a teaser for another article, wherever it is.
	return in.text <= textEdgeMax && textIsReadAlso(w.t.firstText(i))
}

// textAloneOnLine reports whether nothing but white space stands between n and the
// line breaks or block edges on either side of it.
func textAloneOnLine(n *html.Node) bool {
	for m := n.PrevSibling; m != nil && m.DataAtom != atom.Br; m = m.PrevSibling {
		if textStandsBeside(m) {
			return false
		}
	}
	for m := n.NextSibling; m != nil && m.DataAtom != atom.Br; m = m.NextSibling {
		if textStandsBeside(m) {
			return false
		}
	}
	return true
}

// textStandsBeside reports whether the sibling m shares a line: an element, or text that
// is not white space.
func textStandsBeside(m *html.Node) bool {
	return m.Type == html.ElementNode || m.Type == html.TextNode && strings.TrimSpace(m.Data) != ""
}

// captionGoes reports whether a figure's caption is left out of the chosen blocks: it
// is when they hold more of an article's prose besides their captions than in them (a
// caption describes a picture the text does not hold, and most readers' truths of an
// article leave it out), not in a gallery, whose captions are its prose. The blocks
// are weighed together: the picture over an article is often a block of its own
// beside the article's body, both chosen (the New York Times' <div class="image">).
func (w *textWalker) captionGoes() bool {
	if w.captions < 0 {
		w.captions, w.pickedProse = 0, 0
		t := w.t
		for _, i := range w.picked {
			w.pickedProse += t.info[i].prose + t.info[i].lprose
			for j := i; j < t.info[i].end; j++ {
				if t.caption(t.nodes[j]) {
					w.captions += t.info[j].prose + t.info[j].lprose
					j = t.info[j].end - 1
				}
			}
		}
	}
	besides := w.pickedProse - w.captions
	return besides >= textCaptionsBesides && besides > w.captions
}

// textCaptionsBesides is the least prose, in characters, besides the figure captions,
// of the chosen blocks when their captions go: a paragraph or two.
const textCaptionsBesides = 200

// codeBlock writes a <pre> as it is shown: every line break and space kept, in
// Markdown inside a fence.
func (w *textWalker) codeBlock(n *html.Node) {
	if w.cell > 0 {
		w.out.text(textOf(n, 1<<20))
		return
	}
	w.block(2)
	if w.out.md {
		w.out.raw("```" + textCodeLanguage(n))
		w.out.brk(1)
	}
	w.pre++
	w.code = true
	start := len(w.out.b)
	w.children(n)
	w.pre--
	w.out.trimRight(start)
	if w.out.md {
		w.out.brk(1)
		w.out.raw("```")
	}
	w.block(2)
}

// textCodeLanguage returns the language a code block names in its class or its <code>
// child's ("language-go", "lang-go", "highlight-python"), "" when none.
func textCodeLanguage(n *html.Node) string {
	classes := htmlAttr(n, "class")
	if c := n.FirstChild; c != nil && c.Type == html.ElementNode && c.DataAtom == atom.Code {
		classes += " " + htmlAttr(c, "class")
	}
	if p := n.Parent; p != nil && p.Type == html.ElementNode {
		classes += " " + htmlAttr(p, "class")
		if g := p.Parent; g != nil && g.Type == html.ElementNode {
			classes += " " + htmlAttr(g, "class")
		}
	}
	for c := range strings.FieldsSeq(classes) {
		for _, prefix := range []string{"language-", "lang-", "highlight-"} {
			if l, ok := strings.CutPrefix(c, prefix); ok && l != "" && l != "default" && !strings.ContainsAny(l, "`") {
				return l
			}
		}
	}
	return ""
}

// listMarker starts a Markdown list item: "- " or "N. ", indented by the lists it is
// nested in.
func (w *textWalker) listMarker() {
	marker := "- "
	if k := len(w.lists); k > 0 && w.lists[k-1] > 0 {
		marker = strconv.Itoa(w.lists[k-1]) + ". "
		w.lists[k-1]++
	}
	w.out.prefix = w.prefix()
	w.out.marker(marker)
}

// prefix is what starts each Markdown line at the current nesting: two spaces per
// enclosing list beyond the first, then "> " per quote.
func (w *textWalker) prefix() string {
	return strings.Repeat("  ", max(len(w.lists)-1, 0)) + strings.Repeat("> ", w.quotes)
}

// link writes an <a> in Markdown: [text](URL) when it points to an http or https URL,
// its text alone otherwise.
func (w *textWalker) link(n *html.Node) {
	href := htmlAttr(n, "href")
	u := ""
	if href != "" && w.base != nil {
		u, _ = htmlResolve(w.base, href, false)
	}
	text := textOf(n, 1<<16)
	if u == "" || text == "" || strings.ContainsAny(text, "[]") {
		w.children(n)
		return
	}
	w.out.word("[" + text + "](" + strings.ReplaceAll(strings.ReplaceAll(u, "(", "%28"), ")", "%29") + ")")
}

// table writes a table of data one row a line: cells separated by a tab, or in
// Markdown a "|" table whose first row is the header.
func (w *textWalker) table(n *html.Node) {
	w.block(2)
	rows := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && !w.out.full; c = c.NextSibling {
			if c.Type != html.ElementNode || w.t.gone(c) {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				w.row(c, rows)
				rows++
			case atom.Caption:
				w.write(c)
			case atom.Thead, atom.Tbody, atom.Tfoot:
				walk(c)
			}
		}
	}
	walk(n)
	w.block(2)
}

// row writes one table row on one line.
func (w *textWalker) row(tr *html.Node, index int) {
	w.out.brk(1)
	md := w.out.md
	cells := 0
	for c := tr.FirstChild; c != nil && !w.out.full; c = c.NextSibling {
		if c.Type != html.ElementNode || c.DataAtom != atom.Td && c.DataAtom != atom.Th || w.t.gone(c) || w.t.caption(c) && w.captionGoes() {
			continue
		}
		switch {
		case md && cells == 0:
			w.out.raw("| ")
		case md:
			w.out.raw(" | ")
		case cells > 0:
			w.out.raw("\t")
		}
		w.out.space = false
		w.cell++
		w.children(c)
		w.cell--
		w.out.space = false
		cells++
	}
	if md && cells > 0 {
		w.out.raw(" |")
		if index == 0 {
			w.out.brk(1)
			w.out.raw("|" + strings.Repeat(" --- |", cells))
		}
	}
	w.out.brk(1)
}

// textDataTable reports whether a table holds data rather than laying out a page: no
// table inside it, and no cell holding more than two blocks (paragraphs, lists,
// headings) or more than 500 bytes of text.
func textDataTable(n *html.Node) bool {
	var cell *html.Node // the cell being read
	blocks := 0
	stack := []*html.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c != n && c.Type == html.ElementNode {
			switch c.DataAtom {
			case atom.Table:
				return false
			case atom.Td, atom.Th:
				cell, blocks = c, 0
				if len(textOf(c, 501)) > 500 {
					return false
				}
			case atom.P, atom.Div, atom.Ul, atom.Ol, atom.Dl, atom.Pre, atom.Blockquote,
				atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Section, atom.Article:
				if blocks++; cell != nil && blocks > 2 {
					return false
				}
			}
		}
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
	return true
}

// textHeadingLevel returns 1 to 6 for <h1> to <h6>, 0 otherwise.
func textHeadingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// textRepeatsTitle reports whether a heading says what the page's title says: three
// quarters of its words, and at least two, are words of the title ("Klimaschutz: Bohren,
// bis es heiß wird | ZEIT ONLINE").
func textRepeatsTitle(heading, title string) bool {
	if title == "" {
		return false
	}
	words := make(map[string]bool)
	for _, w := range textWords(title) {
		words[w] = true
	}
	in, all := 0, 0
	for _, w := range textWords(heading) {
		all++
		if words[w] {
			in++
		}
	}
	return all >= 2 && in*4 >= all*3
}

// textWords returns the words of s, lower case: runs of letters and digits.
func textWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// titleFirst reports whether a block written next may be the headline that repeats the
// title (titleHead): in plain text, outside a table's row, before any prose, and with at
// most what opens an article above its headline written before it: three short lines
// (a date, a section's name, a breadcrumb; "December 17, 2025 • 8 minutes").
func (w *textWalker) titleFirst(md bool) bool {
	if md || w.cell > 0 || w.titleHead[1] > 0 || w.prose[1] > 0 {
		return false
	}
	b := w.out.b
	return len(b) <= textTitleAbove && bytes.Count(b, []byte{'\n'}) <= 3
}

// textTitleAbove is the most, in bytes, written above a headline that goes (titleFirst).
const textTitleAbove = 160

// truncate takes back what was written after the first n bytes, and what was noted of
// it.
func (w *textWalker) truncate(n int) {
	w.out.truncate(n)
	if n < w.titleHead[1] {
		w.titleHead = [2]int{}
	}
	for len(w.edges) > 0 && w.edges[len(w.edges)-1].end > n {
		w.edges = w.edges[:len(w.edges)-1]
	}
	for len(w.proses) > 0 && w.proses[len(w.proses)-1].end > n {
		w.proses = w.proses[:len(w.proses)-1]
	}
	if w.runs[1] > n {
		w.runs[1] = len(w.out.b) + 1
		if w.runs[0] >= n {
			w.runs = [2]int{}
		}
	}
	if w.prose[1] > n {
		// The last paragraph of prose is gone; the one before it is not known: the
		// trailing edge is no longer trimmed.
		w.prose[1] = len(w.out.b) + 1
		if w.prose[0] >= n {
			w.prose = [2]int{}
		}
	}
}

// text returns the output with the junk at the edges of the content taken out, and the
// heading that repeats the title when something follows it.
func (w *textWalker) text() string {
	if at := w.teasersAt(); at > 0 {
		// The article ends where the other stories begin: what follows them is the
		// page's, not the article's.
		w.truncate(at)
		if k := len(w.proses); k > 0 {
			w.prose[1] = w.proses[k-1].end
		}
	}
	b := w.out.b
	var cuts [][2]int
	// No paragraph of prose: the content's leading edge is where its runs of prose
	// begin (a story's lines between <br>s or empty <p></p>s), if any; its trailing
	// edge is left as it is.
	runsOnly := w.prose[1] == 0 && w.runs[1] > 0
	if runsOnly {
		w.prose = [2]int{w.runs[0], len(b) + 1}
	}
	if h := w.titleHead; h[1] > 0 && h[1] < len(b) && len(bytes.TrimSpace(b[h[1]:])) > 0 {
		cuts = append(cuts, h)
	}
	// The last paragraphs, when they are calls to action or disclosures, are an edge
	// too.
	for k := len(w.proses); k > 1 && len(w.proses)-k < 2 && w.prose[1] == w.proses[k-1].end; k-- {
		p := w.proses[k-1]
		if w.t.info[p.i].text > textTailMax || !w.tailJunk(p.i) && !w.headJunk(p.i) {
			break
		}
		cuts = append(cuts, [2]int{p.start, p.end})
		w.prose[1] = w.proses[k-2].end
	}
	// The first paragraphs, when they are disclosures, are an edge too.
	first := 0
	for ; first < 2 && first+1 < len(w.proses) && w.proses[first+1].end <= w.prose[1] && w.prose[0] == w.proses[first].start; first++ {
		p := w.proses[first]
		if w.t.info[p.i].text > textTailMax || !w.headJunk(p.i) {
			break
		}
		cuts = append(cuts, [2]int{p.start, p.end})
		w.prose[0] = w.proses[first+1].start
	}
	if w.prose[1] > 0 {
		for _, e := range w.edges {
			switch {
			case (e.end <= w.prose[0] || e.start >= w.prose[1]) && (e.junk || !e.long && w.edgeJunk(e.i) || e.long && (w.tailJunk(e.i) || w.headJunk(e.i))):
				cuts = append(cuts, [2]int{e.start, e.end})
			case e.end <= w.prose[0] && !e.head:
				cuts = w.headLines(b, e.i, e.start, e.end, false, cuts)
			}
		}
		if first < len(w.proses) {
			p := w.proses[first]
			cuts = w.headLines(b, p.i, p.start, p.end, true, cuts)
		}
	}
	if runsOnly {
		w.prose = [2]int{}
	}
	if w.prose[1] > 0 {
		cuts = w.tail(b, cuts)
	}
	if len(cuts) == 0 {
		return w.trimTail(string(b))
	}
	slices.SortFunc(cuts, func(x, y [2]int) int { return x[0] - y[0] })
	out := make([]byte, 0, len(b))
	at := 0
	for _, c := range cuts {
		if c[0] > at {
			out = append(out, b[at:c[0]]...)
		}
		at = max(at, c[1])
	}
	out = append(out, b[at:]...)
	return w.trimTail(strings.TrimLeft(string(out), "\n"))
}

// textProseLine is the least text, in characters, of a line of prose, as of a
// paragraph of prose at the edges (edgeKind).
const textProseLine = 80
