package extract

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

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

// commentsBegin reports whether the readers' comments begin at the element n, after a
// paragraph of prose: at their heading (commentsStart), an anchor named for them
// (textCommentsAnchor) or a line that heads them (commentsLine).
func (w *textWalker) commentsBegin(n *html.Node) bool {
	switch {
	case textHeadingLevel(n.DataAtom) > 0:
		return w.commentsStart(n)
	case n.DataAtom == atom.A:
		return textCommentsAnchor(n)
	}
	return w.commentsLine(n)
}

// afterProse reports whether what was written holds the article's prose, after which
// readers' comments may begin (commentsBegin): a paragraph of prose, or textArticleMin
// bytes of text where the article is runs of text between <br>s in a <span> or a
// table's cell, which are no paragraph until their block ends (2008's news sites): an
// anchor named for the comments at the top (a "jump to comments" target) ends nothing.
func (w *textWalker) afterProse() bool {
	return w.prose[1] > 0 || len(w.out.b) >= textArticleMin
}

// commentsBetween reports whether the readers' comments begin between the chosen
// blocks before and next, after a paragraph of prose: at an anchor named for them, a
// heading or a line that heads them (commentsBegin) that neither holds, where a page
// sets its comments beside the article's paragraphs as blocks of their shape (the
// Telegraph's <p class="story"> for each paragraph and each comment) or as the next
// of the chosen blocks. Never in a thread of posts (textTree.posts).
func (w *textWalker) commentsBetween(before, next int32) bool {
	t := w.t
	if !w.afterProse() || t.posts {
		return false
	}
	for j := t.info[before].end; j < next; j++ {
		in := &t.info[j]
		if in.flags&textGone != 0 {
			j = in.end - 1
			continue
		}
		if in.end <= next && t.nodes[j].Type == html.ElementNode && w.commentsBegin(t.nodes[j]) {
			return true
		}
	}
	return false
}

// commentsStart reports whether the heading n, after a paragraph of prose, opens the
// readers' comments that a page holds inside its content, as blogs do: by its text
// ("Comments", "12 Kommentare", "717 Responses to ...", "Leave a Reply"), or by its
// class or id when that names comments ("<h2 id="comments">").
func (w *textWalker) commentsStart(n *html.Node) bool {
	if textThreadGoesOn(n) {
		return false
	}
	if textNamesComments(htmlAttr(n, "id")) || textNamesComments(htmlAttr(n, "class")) {
		return true
	}
	i, ok := w.t.at[n]
	return ok && w.t.info[i].text <= 200 && textIsCommentsHeading(w.t.visibleText(i, 400))
}

// commentsLine reports whether n, a line of its own in a paragraph, a <div> or bold
// between line breaks, says that readers' comments follow as a heading would ("Comments:",
// "Post Comments", "12 Responses"), where a page sets the heading in bold rather than
// in <h2>.
func (w *textWalker) commentsLine(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Dt, atom.B, atom.Strong:
	default:
		return false
	}
	i, ok := w.t.at[n]
	if !ok || w.t.info[i].text > 40 || w.t.info[i].link > 0 || (n.DataAtom == atom.B || n.DataAtom == atom.Strong) && !textAloneOnLine(n) {
		return false
	}
	// A sentence is not a heading ("No reply." in a story's dialogue), nor is a count of
	// replies to one post ("Reply 9", a forum's button).
	s := strings.TrimSpace(w.t.visibleText(i, 100))
	if strings.HasSuffix(s, ".") || !textIsCommentsHeading(s) {
		return false
	}
	words := textWords(s)
	for len(words) > 0 && textIsCount(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	return len(words) != 1 || textCommentWords[words[0]]
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

// textCommentsAnchor reports whether n is an anchor that marks where readers' comments
// begin: an <a> with no link and no text whose name or id names them (<a
// name="commentSection"></a>, the target of an article's "Comments" link), which pages
// put before their comments where they give them no heading.
func textCommentsAnchor(n *html.Node) bool {
	if n.DataAtom != atom.A || n.FirstChild != nil && strings.TrimSpace(textOf(n, 64)) != "" {
		return false
	}
	var named bool
	for _, a := range n.Attr {
		switch a.Key {
		case "href":
			return false
		case "name", "id":
			named = named || textNamesComments(a.Val)
		}
	}
	return named
}

// textNamesComments reports whether a class or id value names comments: not a
// commentary or a commentator, which an opinion piece's headings may be named for.
func textNamesComments(v string) bool {
	v = strings.ToLower(v)
	for _, s := range textCommentNames {
		for rest := v; ; {
			_, after, found := strings.Cut(rest, s)
			if !found {
				break
			}
			if !textCommentary(after) {
				return true
			}
			rest = after
		}
	}
	return false
}

// textIsCommentsHeading reports whether s is the heading of readers' comments: a word
// for them, with a count before or after it ("7 comments", "Comments (0)", "One
// response"), and the title of the article after "to" or "on" ("717 Responses to
// ..."); or a call to write one ("Leave a Reply", "Schreibe einen Kommentar").
func textIsCommentsHeading(s string) bool {
	words := textWords(s)
	counted := false
	for len(words) > 0 && textIsCount(words[0]) {
		words, counted = words[1:], true
	}
	for len(words) > 0 && textIsCount(words[len(words)-1]) {
		words, counted = words[:len(words)-1], true
	}
	if len(words) == 0 {
		return false
	}
	if plural, ok := textCommentWords[words[0]]; ok && (plural || counted) {
		return len(words) == 1 || len(words) > 2 && textCommentsOn[words[1]]
	}
	phrase := strings.Join(words, " ")
	for _, p := range textCommentCalls {
		if phrase == p {
			return true
		}
	}
	return false
}

// textIsCount reports whether a word counts comments: a number, "one", "no".
func textIsCount(w string) bool {
	switch w {
	case "one", "no", "keine", "ein", "un", "une", "uno":
		return true
	}
	return strings.Trim(w, "0123456789") == ""
}

// textCommentWords name readers' comments in a heading: true for a plural, false for a
// singular, which is a heading of comments only with a count ("1 Comment"; an article's
// "Comment" is its own).
var textCommentWords = map[string]bool{
	"comments": true, "responses": true, "replies": true, "reactions": true,
	"kommentare": true, "leserkommentare": true, "commentaires": true,
	"comentarios": true, "comentários": true, "commenti": true, "komentarze": true, "reacties": true,
	"comment": false, "response": false, "reply": false, "kommentar": false, "commentaire": false,
	"comentario": false, "comentário": false, "commento": false, "komentarz": false, "reactie": false,
}

// textCommentsOn are the words after textCommentWords that lead to the article's
// title: "Responses to", "Comments on", "Kommentare zu".
var textCommentsOn = map[string]bool{"to": true, "on": true, "for": true, "zu": true, "sur": true, "a": true, "en": true, "do": true}

// textCommentCalls are headings, in words, that call on readers to comment.
var textCommentCalls = []string{
	"leave a reply", "leave a comment", "post a comment", "add a comment", "add comment", "reader comments",
	"post comments", "post your comment", "post your comments", "add your comment", "add your comments",
	"schreibe einen kommentar", "kommentar schreiben", "deja un comentario", "laisser un commentaire",
	"lascia un commento", "deixe um comentário", "dodaj komentarz",
}

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

// textOut accumulates text in lines, up to max bytes. Outside code blocks white space
// collapses to one space; brk ends a line, and in Markdown a paragraph with a blank
// line. The bytes kept never end inside a character.
type textOut struct {
	b      []byte
	max    int
	md     bool
	prefix string // starts every Markdown line
	brks   int    // 0, or the break to write before the next character: 1 a line, 2 a paragraph
	space  bool   // white space seen since the last character written
	full   bool   // max reached: further writes are dropped
	hold   bool   // a marker was written: no break before the next text
	// sep is a boundary between words that the source has no white space for: a space
	// goes there when a letter comes on both sides of it (textJoins).
	sep bool
}

// brk asks for a line break (1) or a paragraph break (2) before what comes next,
// unless a marker waits for its text (hold).
func (o *textOut) brk(kind int) {
	if !o.hold {
		o.brks = max(o.brks, kind)
	}
}

// marker writes a Markdown marker ("- ", "## ") that the next text follows on the
// same line, whatever blocks open before it.
func (o *textOut) marker(s string) {
	o.raw(s)
	o.space = false
	o.hold = true
}

// text writes s with its white space collapsed.
func (o *textOut) text(s string) {
	for i := 0; i < len(s) && !o.full; {
		j := i
		for j < len(s) {
			// Only a byte of a multi-byte character may start a wide space.
			if c := s[j]; c < utf8.RuneSelf && textSpaceByte(c) || c >= utf8.RuneSelf && textWideSpace(s[j:]) {
				break
			}
			j++
		}
		if j > i {
			o.word(s[i:j])
		}
		for j < len(s) {
			if textSpaceByte(s[j]) {
				j++
			} else if n := textWideSpaceLen(s[j:]); n > 0 {
				j += n
			} else {
				break
			}
			o.space = true
		}
		i = j
	}
}

// word writes s, which holds no white space, after a space when white space came
// before it on the line.
func (o *textOut) word(s string) {
	if o.brks == 0 && len(o.b) > 0 {
		if last := o.b[len(o.b)-1]; o.space && last != ' ' && last != '\n' && last != '\t' {
			o.put(" ")
		} else if o.sep && !o.space {
			r, _ := utf8.DecodeLastRune(o.b)
			if next, _ := utf8.DecodeRuneInString(s); textJoins(r) && textJoins(next) {
				o.put(" ")
			}
		}
	}
	o.space = false
	o.put(s)
}

// textJoins reports whether a space may separate r from a neighbour: a letter of a
// script written with spaces between words. A digit may not: a number and its unit in
// two spans ("291</span><span>kcal") read as one.
func textJoins(r rune) bool {
	if !unicode.IsLetter(r) {
		return false
	}
	return !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// raw writes s as it is, but for the line breaks it holds, after which the Markdown
// prefix is repeated.
func (o *textOut) raw(s string) {
	for len(s) > 0 && !o.full {
		line, rest, nl := strings.Cut(s, "\n")
		if line != "" {
			o.put(line)
		}
		if nl {
			if len(o.b) == 0 {
				o.brks = 0
			} else {
				if len(o.b)+1+len(o.prefix) > o.max {
					o.full = true
					return
				}
				o.b = append(o.b, '\n')
				o.b = append(o.b, o.prefix...)
			}
		}
		s = rest
	}
}

// put writes s after any break asked for, cutting at max.
func (o *textOut) put(s string) {
	if o.brks > 0 && len(o.b) > 0 {
		sep := "\n"
		if o.brks == 2 && o.md {
			sep = "\n\n"
		}
		if len(o.b)+len(sep)+len(o.prefix) > o.max {
			o.full = true
			return
		}
		o.b = append(o.b, sep...)
		o.b = append(o.b, o.prefix...)
	}
	o.brks, o.hold, o.sep = 0, false, false
	if len(o.b)+len(s) > o.max {
		s = htmlCut(s, o.max-len(o.b))
		o.full = true
	}
	o.b = append(o.b, s...)
}

// truncate takes back what was written after the first n bytes.
func (o *textOut) truncate(n int) {
	if n < len(o.b) {
		o.b = o.b[:n]
		o.full = false
	}
}

// trimRight drops the white space written since start at the end of the text.
func (o *textOut) trimRight(start int) {
	k := len(o.b)
	for k > start && textSpaceByte(o.b[k-1]) {
		k--
	}
	o.b = o.b[:k]
}

func textSpaceByte(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'
}

// textWideSpace reports whether s starts with a non-ASCII space character.
func textWideSpace(s string) bool { return textWideSpaceLen(s) > 0 }

// textWideSpaceLen returns the length of the non-ASCII space character s starts with,
// 0 when it starts with none: no-break space, the spaces of U+2000-U+200A, U+202F,
// U+205F, U+3000.
func textWideSpaceLen(s string) int {
	switch {
	case strings.HasPrefix(s, "\u00a0"):
		return 2
	case len(s) >= 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] >= 0x80 && s[2] <= 0x8a || s[2] == 0xaf),
		strings.HasPrefix(s, "\u205f"), strings.HasPrefix(s, "\u3000"):
		return 3
	}
	return 0
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

// textProseLine is the least text, in characters, of a line of prose, as of a
// paragraph of prose at the edges (edgeKind).
const textProseLine = 80

// headLines returns cuts with the lines of the block at i, b[start:end], that are
// junk at the edge of the content (textEdgeJunk, textIsDateLine) taken out, up to its
// first line of prose: the block before the article, or its first paragraph of prose
// (prose, then, after them), is a run of <br>-separated lines, which are not blocks of
// their own ("Headline<br>Sat, 29 Dec 2007 17:50:54<br><br>The Palestinian..."). A
// block of one line was read as a block (edgeKind).
func (w *textWalker) headLines(b []byte, i int32, start, end int, prose bool, cuts [][2]int) [][2]int {
	if bytes.IndexByte(bytes.TrimSpace(b[start:end]), '\n') < 0 {
		return cuts
	}
	// A list's lines are its items, read as blocks (a date there is a list's: a
	// tour's dates); a data table's lines are its rows (a line with a tab: cells),
	// and preformatted text's lines are its own. A layout table's cell is a block of
	// lines (edgeKind).
	dated := true
	switch w.t.nodes[i].DataAtom {
	case atom.Ul, atom.Ol, atom.Li, atom.Dl:
		dated = false
	case atom.Table, atom.Pre:
		return cuts
	}
	for j := i + 1; j < w.t.info[i].end; j++ {
		if w.t.nodes[j].DataAtom == atom.Pre {
			return cuts
		}
	}
	found := len(cuts)
	for at := start; at < end; {
		stop := bytes.IndexByte(b[at:end], '\n')
		if stop < 0 {
			stop = end
		} else {
			stop += at
		}
		line := strings.TrimSpace(string(b[at:stop]))
		n, _ := textCount(line)
		if n > textEdgeMax {
			return cuts // a line too long for the edges
		}
		if n > 0 && !strings.Contains(line, "\t") {
			if l := strings.ToLower(line); textEdgeJunk(l) || dated && textIsDateLine(l) {
				// From the line break before it, as a block's span begins.
				cuts = append(cuts, [2]int{max(at-1, start), stop})
			} else if n >= textProseLine {
				return cuts // the first line of prose
			}
		}
		at = stop + 1
	}
	if prose {
		return cuts[:found] // no line of prose after them: a log, a poem
	}
	return cuts
}

// trimTail returns s without the junk lines that end it (textTrimTail) and without
// what follows the notice that ends the article (textEndAtNotice), when the content has
// prose before them.
func (w *textWalker) trimTail(s string) string {
	if w.prose[1] == 0 {
		return s
	}
	return textTrimTail(textEndAtNotice(s, w.code))
}

// tail returns cuts with the headings that end the text after its last paragraph of
// prose taken out too, one after the other from the end: with nothing after them, they
// announce what was left out ("Mehr zum Thema", "Das könnte dich auch interessieren").
func (w *textWalker) tail(b []byte, cuts [][2]int) [][2]int {
	end := len(b)
	for {
		end = textKeptEnd(b, cuts, end)
		found := false
		for k := len(w.edges) - 1; k >= 0; k-- {
			e := w.edges[k]
			if e.start < w.prose[1] {
				break
			}
			if e.start >= end || textKeptEnd(b, nil, e.end) != end {
				continue
			}
			if e.head {
				cuts = append(cuts, [2]int{e.start, e.end})
				end, found = e.start, true
				break
			}
		}
		if !found {
			return cuts
		}
	}
}

// textKeptEnd returns where the text kept of b[:end] ends: before the white space and
// the cut spans that end it.
func textKeptEnd(b []byte, cuts [][2]int, end int) int {
	for {
		for end > 0 && textSpaceByte(b[end-1]) {
			end--
		}
		moved := false
		for _, c := range cuts {
			if c[0] < end && end <= c[1] {
				end, moved = c[0], true
			}
		}
		if !moved {
			return end
		}
	}
}

// textMemo is what a write of the main text learnt of one block of the tree, for the
// next write in the other format: whether textTree.edgeJunk, tailJunk and headJunk,
// which search its words for some hundred phrases, hold.
type textMemo uint8

const (
	memoEdgeRead textMemo = 1 << iota // edgeJunk was read: memoEdgeJunk is its answer
	memoEdgeJunk
	memoTailRead // tailJunk was read: memoTailJunk is its answer
	memoTailJunk
	memoHeadRead // headJunk was read: memoHeadJunk is its answer
	memoHeadJunk
)

// edgeJunk is w.t.edgeJunk, read once a page when both formats are written.
func (w *textWalker) edgeJunk(i int32) bool {
	return w.memoized(i, memoEdgeRead, memoEdgeJunk, w.t.edgeJunk)
}

// headJunk is w.t.headJunk, read once a page when both formats are written.
func (w *textWalker) headJunk(i int32) bool {
	return w.memoized(i, memoHeadRead, memoHeadJunk, w.t.headJunk)
}

// tailJunk is w.t.tailJunk, read once a page when both formats are written.
func (w *textWalker) tailJunk(i int32) bool {
	return w.memoized(i, memoTailRead, memoTailJunk, w.t.tailJunk)
}

// memoized returns f(i), from w.memo when a write before this one read it (the read bit
// set, the answer in yes), and notes it there for the next.
func (w *textWalker) memoized(i int32, read, yes textMemo, f func(int32) bool) bool {
	if w.memo == nil {
		return f(i)
	}
	if m := w.memo[i]; m&read != 0 {
		return m&yes != 0
	}
	v := f(i)
	w.memo[i] |= read
	if v {
		w.memo[i] |= yes
	}
	return v
}

// textEdge is a block of the output that may be dropped at an edge of the content.
type textEdge struct {
	start, end int   // its span in the output
	i          int32 // its index in the tree
	junk       bool  // dropped there whatever it says (a figure)
	head       bool  // a heading: dropped when it ends the text (textWalker.tail)
	long       bool  // longer than the edges' blocks: read by textTree.tailJunk
}

// edgeKinds say what a block is to the edges of the content.
type edgeKind int

const (
	edgeNone  edgeKind = iota
	edgeProse          // a paragraph of prose: the content is between the first and the last
	edgeJunk           // dropped before the first paragraph of prose and after the last
	edgeMaybe          // dropped there if textTree.edgeJunk says so
	edgeLong           // dropped there if textTree.tailJunk says so
	edgeHead           // a heading: dropped when nothing follows it (textWalker.tail)
)

// textEdgeMax is the most text, in characters, of a block dropped at the edges.
const textEdgeMax = 120

// edgeKind says what the block n, at i in the tree, is to the edges of the content:
// prose, a figure and its caption (the picture over the article), or a short block
// that is dropped there if it is a call to action ("Newsletter abonnieren", "Share
// this article"), a date line, a byline (textTree.edgeJunk), or a longer block, not
// prose, of textTailMax characters at most, dropped there if it holds the last
// paragraphs' narrower phrases (textTree.tailJunk: a newspaper's list of services that
// says "Subscribe").
func (w *textWalker) edgeKind(n *html.Node, i int32) edgeKind {
	in := &w.t.info[i]
	if in.text == 0 {
		return edgeNone
	}
	if n.DataAtom == atom.Figure || n.DataAtom == atom.Figcaption {
		return edgeJunk
	}
	prose := textIsParagraph(n) && textProse(in.text, in.link) && in.text-in.link >= 80
	switch {
	case textHeadingLevel(n.DataAtom) > 0:
		if in.text <= textEdgeMax {
			return edgeHead
		}
	case in.text > textTailMax:
	case in.text > textEdgeMax:
		if !prose {
			return edgeLong
		}
	case !prose:
		// Read only if it turns out to be at an edge: most short blocks are not.
		return edgeMaybe
	case w.edgeJunk(i):
		return edgeJunk
	}
	if prose {
		return edgeProse
	}
	return edgeNone
}

// label reports whether the block n inside the content is a widget's label
// (textWidgetLabels): "Advertisement", "Story continues below", "Click to enlarge"; or a
// short paragraph with a link that is a call to action (textTree.tailJunk: "Keep up with
// our newsletter", "Follow us on Twitter"), wherever it is between the paragraphs.
func (w *textWalker) label(n *html.Node) bool {
	if w.cell > 0 || w.pre > 0 || n.Type != html.ElementNode || !textBlock[n.DataAtom] {
		return false
	}
	i, ok := w.t.at[n]
	if ok && w.t.info[i].text <= textCallMax && w.t.info[i].link > 0 && textIsParagraph(n) && w.tailJunk(i) {
		return true
	}
	if !ok || w.t.info[i].text > textLabelMax || w.t.info[i].text == 0 {
		return false
	}
	var b [4 * textLabelMax]byte
	k := w.t.labelKey(i, &b)
	return k > 0 && textWidgetLabels[string(b[:k])] // no copy of the key
}

// textCallMax is the most text, in characters, of a paragraph with a link between the
// content's paragraphs that is dropped as a call to action (textTree.tailJunk).
const textCallMax = 150

// textLabelMax is the most text, in characters, of a block that is a widget's label
// (textWidgetLabels).
const textLabelMax = 40

// labelKey writes into b the words of the short block at i (textLabelMax characters or
// less), lower case, each separated by one space, and returns their length, 0 when they
// do not fit: the key of textWidgetLabels.
func (t *textTree) labelKey(i int32, b *[4 * textLabelMax]byte) int {
	n := 0
	space := false
	for j := i; j < t.info[i].end; j++ {
		if t.info[j].flags&(textGone|textPermalink) != 0 {
			j = t.info[j].end - 1
			continue
		}
		nd := t.nodes[j]
		if nd.Type != html.TextNode {
			space = space || nd.Type == html.ElementNode && textBlock[nd.DataAtom]
			continue
		}
		for _, r := range nd.Data {
			if !unicode.IsLetter(r) {
				space = true
				continue
			}
			if space && n > 0 {
				if n == len(b) {
					return 0
				}
				b[n] = ' '
				n++
			}
			space = false
			r = unicode.ToLower(r)
			if n+utf8.RuneLen(r) > len(b) {
				return 0
			}
			n += utf8.EncodeRune(b[n:], r)
		}
	}
	return n
}

// textWidgetLabels are the words of blocks inside the content that label a widget put
// between its paragraphs, not the article's (textTree.labelKey): an advertisement's
// slot, a photo's controls.
var textWidgetLabels = map[string]bool{
	// An advertisement's slot
	"advertisement": true, "advertisements": true, "advertising": true, "sponsored": true,
	"advertisement continue reading below": true, "story continues below": true,
	"story continues below advertisement": true, "article continues below": true,
	"article continues below advertisement": true, "continue reading the main story": true,
	"anzeige": true, "werbung": true, "publicité": true, "publicidad": true, "pubblicità": true,
	"publicidade": true, "reklama": true, "advertentie": true,
	// A photo's controls
	"enlarge": true, "enlarge photo": true, "enlarge image": true, "enlarge this image": true,
	"view larger image": true, "view larger": true, "click to enlarge": true,
	"click image to enlarge": true, "click here to enlarge": true, "hide caption": true,
	"show caption": true, "toggle caption": true, "zoom": true, "zoom in": true,
	"bild vergrößern": true, "zum vergrößern anklicken": true, "vergrößern": true,
	"agrandir": true, "ampliar": true, "ingrandisci": true, "powiększ": true,
}
