package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// textTree is what the main-text heuristic knows of a document's body: every node not
// hidden, in document order, with the visible text under it and the part of that text
// inside links, counted in non-space characters. Boilerplate is marked rather than
// removed, so that the tree goquery holds is left as it was.
type textTree struct {
	nodes []*html.Node         // document (pre-)order; a parent comes before its children
	info  []textInfo           // by index in nodes
	at    map[*html.Node]int32 // index in nodes; a node absent is hidden or never text
	body  int32                // index of <body>, or of the root when there is none
	names map[string]textNames // textNamesOf of the class and id values read (boilerplate)
	// posts is set on a page whose content is a thread of posts named as comments (a
	// forum's, a link aggregator's): such names do not mark boilerplate
	// (markBoilerplate), and the content is postsIn, the block that holds the posts.
	posts   bool
	postsIn int32
	// title is the page's <title>, which names the article when the page holds
	// several (titled).
	title string
	// unshown is set when an element of text was left out as not shown until a script
	// shows it (textUnshown): a page whose text is all such is read again with them
	// (htmlText).
	unshown bool
}

// textInfo is what textTree knows of one node. lprose is the text of headline links (a
// link holding no block) that runs of text would count as prose: it is counted with
// prose where the keeping of a block is weighed (markBoilerplate, the writer's prune of
// cards), not where the content is chosen (textPick).
type textInfo struct {
	parent int32   // index of the parent, -1 for the root
	end    int32   // index after the last node under this one
	text   int32   // non-space characters of visible text under the node
	link   int32   // the part of text inside <a href>
	commas int32   // commas in that text (",", "，", "、", "،")
	heads  int32   // headings under the node that are links: the titles of teasers
	prose  int32   // the part of text in paragraphs of prose (textProse), outside links
	lprose int32   // the text of headline links that runs would count as prose
	score  float32 // content score, for the elements scored (textPick)
	flags  textFlag
}

// textFlag marks nodes.
type textFlag uint16

const (
	textBoiler    textFlag = 1 << iota // navigation, footer, share bar...: not main text
	textGone                           // the node or an ancestor is boilerplate
	textHint                           // <main>, <article>, role=main or itemprop=articleBody, or holds one
	textScored                         // has a content score
	textPermalink                      // a permalink mark (a.headerlink, "¶"): dropped
	textLink                           // an <a href>: all its text is link text
	textWrite                          // holds a <textarea>: a form to write a comment or a message in
	textField                          // holds a field to type in or choose from (textIsField)
	textParagraph                      // a paragraph (textIsParagraph) not around a <form> (textHoldsForm)
	textRuns                           // not a paragraph, with runs of prose of its own (textTree.runs)
)

// textTreeOf builds the textTree of a parsed document of about size nodes. With
// unshown, the elements that are not shown until a script shows them (textUnshown) are
// read as shown.
func textTreeOf(doc *html.Node, size int, unshown bool) *textTree {
	t := &textTree{at: make(map[*html.Node]int32, size), body: -1, nodes: make([]*html.Node, 0, size), info: make([]textInfo, 0, size)}
	type item struct {
		n      *html.Node
		parent int32
	}
	stack := []item{{doc, -1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := it.n
		var info textInfo
		switch n.Type {
		case html.TextNode:
			if textEscapedMarkup(n) {
				continue
			}
			info.text, info.commas = textCount(n.Data)
			if info.text == 0 {
				continue
			}
		case html.ElementNode:
			if n.DataAtom == atom.Textarea && it.parent >= 0 {
				t.info[it.parent].flags |= textWrite
			}
			if it.parent >= 0 && textIsField(n) {
				t.info[it.parent].flags |= textField
			}
			if textIsMath(n) && !textIsHidden(n) {
				// A formula is a leaf of the tree: its text is what textMath writes.
				if info.text, info.commas = textCount(textMath(n)); info.text > 0 {
					info.parent = it.parent
					t.at[n] = int32(len(t.nodes))
					t.nodes = append(t.nodes, n)
					t.info = append(t.info, info)
				}
				continue
			}
			if n.Namespace != "" || textSkip[n.DataAtom] && !textLandmark[n.DataAtom] {
				continue
			}
			if v := textVisibility(n); v == textNever || v == textUnshown && !unshown {
				t.unshown = t.unshown || v == textUnshown
				continue
			}
			if n.DataAtom == atom.Body && t.body < 0 {
				t.body = int32(len(t.nodes))
			}
		case html.DocumentNode:
		default:
			continue
		}
		info.parent = it.parent
		i := int32(len(t.nodes))
		t.nodes = append(t.nodes, n)
		t.info = append(t.info, info)
		t.at[n] = i
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, item{c, i})
		}
	}
	if t.body < 0 {
		t.body = 0
	}
	// Children come after their parent: summing in reverse order adds each node's
	// complete total to its parent.
	for i := len(t.nodes) - 1; i >= 0; i-- {
		n, in := t.nodes[i], &t.info[i]
		in.end = max(in.end, int32(i)+1)
		if n.Type == html.ElementNode {
			if n.DataAtom == atom.A && htmlAttr(n, "href") != "" {
				in.link = in.text
				in.flags |= textLink
			}
			if textIsHint(n) {
				in.flags |= textHint
			}
			if textHeadingLevel(n.DataAtom) > 0 && in.text > 0 && in.link*2 > in.text {
				in.heads++
			}
			if textIsPermalink(n, in.text) {
				in.flags |= textPermalink
				in.text, in.link, in.commas = 0, 0, 0
			}
		}
		if n.Type == html.ElementNode {
			if textIsParagraph(n) {
				if !textHoldsForm(n) {
					in.flags |= textParagraph
				}
				if textProse(in.text, in.link) {
					in.prose = in.text - in.link
				}
			} else {
				t.runs(int32(i), func(r textRun) {
					if textProse(r.text, r.link) {
						in.prose += max(0, r.text-r.link-r.prose) // prose in the run's elements is counted
						in.flags |= textRuns
					}
				})
			}
			if in.flags&textLink != 0 && !textHoldsBlock(n) {
				// The words of a link are the link's, not prose: a headline's 33
				// characters ("<li><a>Davies given chance to fill Anelka void</a>")
				// are no part of the page's prose, which the winner's is weighed
				// against (textPick). A link around a card is its prose.
				in.lprose += in.prose
				in.prose = 0
			}
		}
		if p := in.parent; p >= 0 {
			t.info[p].end = max(t.info[p].end, in.end)
			t.info[p].prose += in.prose
			t.info[p].lprose += in.lprose
			t.info[p].text += in.text
			t.info[p].link += in.link
			t.info[p].commas += in.commas
			t.info[p].heads += in.heads
			t.info[p].flags |= in.flags & (textHint | textWrite | textField)
		}
	}
	t.markBoilerplate()
	return t
}

// textIsMath reports whether n is a MathML formula, <math>.
func textIsMath(n *html.Node) bool {
	return n.Type == html.ElementNode && n.Namespace == "math" && n.DataAtom == atom.Math
}

// textMath returns the text of a MathML formula: the TeX of its <annotation> when it
// has one (Wikipedia's, MathJax's), else the text of its tokens (identifiers, numbers,
// operators) separated by spaces, "a ≠ 0", as a reader of the page hears them.
func textMath(n *html.Node) string {
	tokens := textWriter{max: textMathMax}
	stack := []*html.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch {
		case c.Type == html.TextNode:
			tokens.write(c.Data)
			tokens.space = true
			continue
		case c.Type != html.ElementNode:
			continue
		case c.Namespace == "math" && c.DataAtom == atom.Annotation:
			if tex := textOf(c, textMathMax); tex != "" {
				return tex
			}
			continue
		case c.Namespace == "math" && c.DataAtom == atom.AnnotationXml:
			continue
		}
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
	return tokens.String()
}

// textMathMax is the most text, in bytes, a formula gives.
const textMathMax = 4096

// textEscapedMarkup reports whether a text node is markup a <noscript> holds as text,
// as pages saved from a browser with scripting on serialize it ("&lt;img src=...&gt;"):
// a tracking pixel or an embed, not words.
func textEscapedMarkup(n *html.Node) bool {
	p := n.Parent
	return p != nil && p.Type == html.ElementNode && p.DataAtom == atom.Noscript &&
		strings.HasPrefix(strings.TrimLeft(n.Data, " \t\r\n\f"), "<")
}

// textFieldMax is the most text, in characters, of a block around a field (textIsField)
// that is a widget, not the content: a newsletter's sign-up box, a box to copy a link
// from, a poll, a search box.
const textFieldMax = 300

// fieldBox reports whether the block at i, which holds a field (textIsField) and little
// text, is a box around it: no link and no item of a list or row of a table in it, so
// not a recipe's ingredients with a field for the number of servings, nor an item of a
// list that has a field of its own (IMDb's episodes, each with its rating). A form to
// write a comment in (a <textarea>) is not: its heading ends the text where the
// comments begin (textWalker.commentsStart).
func (t *textTree) fieldBox(i int32) bool {
	in := &t.info[i]
	if in.link > 0 || in.flags&(textHint|textWrite) != 0 {
		return false
	}
	for j := i + 1; j < in.end; j++ {
		switch t.nodes[j].DataAtom {
		case atom.Li, atom.Tr, atom.Dt, atom.Dd:
			if t.info[j].text > 0 {
				return false
			}
		}
	}
	return true
}

// textIsField reports whether n is a field a reader types in: an <input> for text, an
// e-mail address, a search, a URL. Not a hidden one or a button (a page wrapped in a
// <form>, as ASP.NET's are, has those around its article), nor a choice (a recipe's
// ingredients to tick, a product's options).
func textIsField(n *html.Node) bool {
	if n.DataAtom != atom.Input {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(htmlAttr(n, "type"))) {
	case "", "text", "email", "search", "url", "tel":
		return true
	}
	return false
}

// textLandmark lists the elements of textSkip that are boilerplate in a page but may
// hold main text inside the content (a headline in an article's <header>, a footnote in
// an <aside>): they stay in the tree and are judged by markBoilerplate.
var textLandmark = map[atom.Atom]bool{atom.Nav: true, atom.Aside: true, atom.Footer: true, atom.Noscript: true}

// markBoilerplate marks the navigation, headers, footers, sidebars, comments, share
// bars and banners of the page, and the forms to write a comment or a message in (a
// <form> around a <textarea>: its labels, rules and notes are lines of text), and takes
// their text out of their ancestors' counts.
// A block that holds a <main> or an <article>, or most of the page's text, is never
// boilerplate: it is a page wrapper with an unlucky class name; unless it is a thread
// of comments beside an article (thread).
// A page whose prose is in blocks named as comments, twice as much as outside them,
// with no prose before the first of them and less than an article's after it, and no
// post beside them (postBeside), is a thread of posts: a forum's, a link aggregator's,
// whose software names every post "comment-4711". Those blocks are then judged again
// with their comment names read as no name at all (textTree.posts).
func (t *textTree) markBoilerplate() {
	m := textMarks{total: t.info[t.body].text, prose: t.info[t.body].prose + t.info[t.body].lprose}
	var comments []int32          // the blocks of prose marked for their comment names only
	var inComments, outside int32 // the prose in them, and in the paragraphs and runs kept outside them
	var para int32                // the end of the paragraph last counted in outside
	var head int32                // the end of the heading last read: a heading is no prose
	var before int32              // outside before the first of comments
	for i := range t.nodes {
		in := &t.info[i]
		kind, marked := t.mark(int32(i), &m)
		if marked && int32(i) < para {
			outside -= in.prose // a part of a paragraph counted
		}
		switch {
		case marked && kind == textComments && textBlock[t.nodes[i].DataAtom] && in.prose >= textParagraphMin:
			if inComments == 0 {
				before = outside
			}
			comments = append(comments, int32(i))
			inComments += in.prose
		case in.flags&textGone != 0 || int32(i) < max(para, head):
		case textHeadingLevel(t.nodes[i].DataAtom) > 0:
			head = in.end
		case in.flags&textRuns != 0:
			outside += t.ownProse(int32(i))
		case in.flags&textParagraph != 0:
			outside += in.prose
			para = in.end
		}
	}
	if len(comments) == 0 || outside >= textArticleMin || inComments < 2*max(outside, textParagraphMin) || before >= textParagraphMin || t.postBeside(comments) {
		return
	}
	t.posts, t.postsIn = true, comments[0]
	for _, c := range comments { // postsIn: the block that holds them all
		for c >= t.info[t.postsIn].end {
			t.postsIn = t.info[t.postsIn].parent
		}
	}
	for _, c := range comments {
		t.unmark(c)
		m.hint = 0
		for p := t.info[c].parent; p >= 0; p = t.info[p].parent {
			if textIsHint(t.nodes[p]) {
				m.hint = t.info[p].end
				break
			}
		}
		for i := c; i < t.info[c].end; i++ {
			t.mark(i, &m)
		}
	}
}

// ownProse returns the prose of the element at i in runs of its own, not in the
// blocks under it.
func (t *textTree) ownProse(i int32) int32 {
	p := t.info[i].prose
	for c := i + 1; c < t.info[i].end; c = t.info[c].end {
		p -= t.info[c].prose // a child: what follows it is its sibling
	}
	return max(p, 0)
}

// postBeside reports whether the page marks an article beside the blocks named as
// comments (in document order): an <article>, a <main>, or a block whose class names it
// a post ("post hentry"), that holds none of them and is not a post of their thread (a
// sibling of the same shape holds one: a short post, an advertisement between posts): a
// blog's post, however short (a photograph and its caption), of which they are the
// readers' comments. A forum's posts each hold their own block named as a comment
// ("ipsComment_content").
func (t *textTree) postBeside(comments []int32) bool {
	for i := t.body; i < t.info[t.body].end; i++ {
		n, in := t.nodes[i], &t.info[i]
		if in.flags&textGone != 0 {
			i = in.end - 1
			continue
		}
		if n.Type != html.ElementNode || in.text == 0 || !textIsHint(n) && t.namesOf(htmlAttr(n, "class"))&namesEntry == 0 {
			continue
		}
		if !textHolds(comments, i, in.end) && !t.threadPost(n, comments) {
			return true
		}
	}
	return false
}

// threadPost reports whether a sibling of n has its shape (textSameShape) and holds
// one of comments.
func (t *textTree) threadPost(n *html.Node, comments []int32) bool {
	for s := n.Parent.FirstChild; s != nil; s = s.NextSibling {
		if j, ok := t.at[s]; ok && s != n && s.Type == html.ElementNode && textSameShape(n, s) && textHolds(comments, j, t.info[j].end) {
			return true
		}
	}
	return false
}

// textHolds reports whether one of the indices sorted in is in [from, to).
func textHolds(in []int32, from, to int32) bool {
	k, _ := slices.BinarySearch(in, from)
	return k < len(in) && in[k] < to
}

// textThreadGoesOn reports whether the heading n is between two posts of one thread:
// the elements before and after it have one shape, with a class (bbPress's
// "forum-post forum-post-original", "76 Replies", "forum-post forum-post-reply"). A
// blog's "12 Responses" is between its post and a list of comments of another shape.
func textThreadGoesOn(n *html.Node) bool {
	prev, next := textElementSibling(n, -1), textElementSibling(n, 1)
	return prev != nil && next != nil && htmlAttr(prev, "class") != "" && textSameShape(prev, next)
}

// textElementSibling returns the element before n (dir -1) or after it (dir 1) among
// its siblings, nil if none.
func textElementSibling(n *html.Node, dir int) *html.Node {
	for {
		if dir < 0 {
			n = n.PrevSibling
		} else {
			n = n.NextSibling
		}
		if n == nil || n.Type == html.ElementNode {
			return n
		}
	}
}

// textSameShape reports whether the elements a and b have one shape: the same tag and
// the same first class, as the posts of a thread or the items of a list have.
func textSameShape(a, b *html.Node) bool {
	if a.DataAtom != b.DataAtom || a.Data != b.Data {
		return false
	}
	ca, _, _ := strings.Cut(strings.TrimSpace(htmlAttr(a, "class")), " ")
	cb, _, _ := strings.Cut(strings.TrimSpace(htmlAttr(b, "class")), " ")
	return ca == cb
}

// textMarks is what markBoilerplate reads a node with: the page's text and prose, in
// characters, the end of the <article>, <main>... being read, and the end of the <pre>
// or <code> being read (whose elements' names are not read).
type textMarks struct{ total, prose, hint, code int32 }

// mark judges the node at i, whose ancestors have been, and marks it when it is
// boilerplate; kind is what its name says it is.
func (t *textTree) mark(i int32, m *textMarks) (kind textKind, marked bool) {
	n, in := t.nodes[i], &t.info[i]
	if p := in.parent; p >= 0 && t.info[p].flags&textGone != 0 {
		in.flags |= textGone
		return textContent, false
	}
	if n.Type != html.ElementNode {
		return textContent, false
	}
	if i < m.code {
		// Inside a block of code: its classes name a highlighter's tokens
		// (<span class="hljs-comment">, <span class="token comment">), not the page's
		// boxes.
		return textContent, false
	}
	if n.DataAtom == atom.Pre || n.DataAtom == atom.Code {
		m.code = in.end
	}
	if in.flags&textHint != 0 && textIsHint(n) {
		m.hint = max(m.hint, in.end)
	}
	kind = t.boilerplate(n)
	if n.DataAtom == atom.Form && in.flags&textWrite != 0 {
		kind = textSure // a comment or contact form: its labels, rules and notes
	}
	if in.flags&textField != 0 && in.text <= textFieldMax && textBlock[n.DataAtom] && t.fieldBox(i) {
		kind = textSure // a box to sign up, search or copy a link from: its labels
	}
	// A block's prose here counts the headlines of its links: a list of news whose
	// titles are all the page has, named "widget-latest-news", is not boilerplate.
	bprose := in.prose + in.lprose
	switch kind {
	case textContent:
		return kind, false
	case textMaybe:
		// A name such as "sticky-sidebar-relative" or "entry-content-read-more" may
		// be a wrapper of the article: a block with prose in it stays (not a box
		// about the author, whose biography is prose: textTree.author), and so does
		// one holding half of the page's prose ("box article modal-enabled").
		keep := int32(textProseKeep)
		if n.DataAtom == atom.Header {
			keep = textLeadKeep
			if i < m.hint {
				// The header of the article: its headline and standfirst.
				keep = textArticleLeadKeep
			}
		}
		if bprose >= keep && in.link*3 < in.text && (in.text > textAuthorMax || !t.author(n)) || bprose*2 > m.prose {
			return kind, false
		}
	}
	if in.flags&textHint != 0 && bprose >= textProseKeep && !textLandmark[n.DataAtom] || in.text > m.total*6/10 && !t.thread(n, kind, m.prose-bprose) {
		return kind, false
	}
	in.flags |= textBoiler | textGone
	t.count(i, -1)
	return kind, true
}

// unmark takes back the marks of the block at i and of the nodes under it, and its
// text into its ancestors' counts.
func (t *textTree) unmark(i int32) {
	for j := i; j < t.info[i].end; j++ {
		t.info[j].flags &^= textBoiler | textGone
	}
	t.count(i, 1)
}

// count adds the counts of the block at i, times sign, to its ancestors'.
func (t *textTree) count(i, sign int32) {
	in := &t.info[i]
	link := in.link
	for p := in.parent; p >= 0; p = t.info[p].parent {
		if t.info[p].flags&textLink != 0 {
			link = in.text // inside a link, all of the block's text was link text
		}
		t.info[p].text += sign * in.text
		t.info[p].link += sign * link
		t.info[p].commas += sign * in.commas
		t.info[p].heads += sign * in.heads
		t.info[p].prose += sign * in.prose
		t.info[p].lprose += sign * in.lprose
	}
}

// thread reports whether a block of most of the page's text, which is kept as the page's
// wrapper, is rather a thread of readers' comments longer than the article: its name
// is sure boilerplate ("comments", "disqus"), the page has an article's prose outside
// it, and its class does not name it a post (a post filed under a term
// "internet-estallido-comentarios").
func (t *textTree) thread(n *html.Node, kind textKind, outside int32) bool {
	return (kind == textSure || kind == textComments) && outside >= textArticleMin && t.namesOf(htmlAttr(n, "class"))&namesContent == 0
}

// author reports whether the block element n is named as a box about the author (its
// class or id has a textAuthorWord): however much prose it holds, it is a biography
// beside the article, kept only when it holds half of the page's prose or is longer
// than textAuthorMax. Not an inline element: a byline's <span> that a page left open
// around the text, which the parser splits into one span per block.
func (t *textTree) author(n *html.Node) bool {
	return textBlock[n.DataAtom] && n.DataAtom != atom.Header && (t.namesOf(htmlAttr(n, "class"))|t.namesOf(htmlAttr(n, "id")))&namesAuthor != 0
}

// namedCaption reports whether the element n is a picture's caption by its class or id
// ("wp-caption-text", "image-caption", "pictureCaption"), as a <figcaption> is by its
// name: a block of a caption's length (textCaptionMax), not a wrapper of the article
// that a class so names ("has-caption").
func (t *textTree) namedCaption(n *html.Node) bool {
	if n.Type != html.ElementNode || t.nameOf(n)&namesCaption == 0 {
		return false
	}
	i, ok := t.at[n]
	return ok && t.info[i].text <= textCaptionMax
}

// textCaptionMax is the most text, in characters, of a block named as a caption.
const textCaptionMax = 500

// caption reports whether the element n is a picture's caption: a <figcaption>, a block
// named as a caption (namedCaption), a picture set beside the text with its caption
// (floatFigure), a <figure> of a picture (pictureFigure), or a picture and its caption
// alone together in a block inside the article (pictureBlock), or small print on the
// line under a picture (smallCaption).
func (t *textTree) caption(n *html.Node) bool {
	return n.DataAtom == atom.Figcaption || t.namedCaption(n) || t.floatFigure(n) || t.pictureFigure(n) || t.pictureBlock(n) || t.smallCaption(n)
}

// smallCaption reports whether n is a picture's caption in a page's flat markup: small
// print (<font size="1">, size="-1" or less, <small>) on a line of its own right under a
// picture, at most textFloatCaptionMax characters, not mostly links: <img ...><br><font
// size="1">Saved ... Photograph: Sebastiao Moreira/EPA</font><br>, as 2008's pages set a
// picture's caption with no class to name it.
func (t *textTree) smallCaption(n *html.Node) bool {
	if n.DataAtom != atom.Font && n.DataAtom != atom.Small || n.DataAtom == atom.Font && !textSmallFont(n) {
		return false
	}
	if _, ok := t.shortText(n, textFloatCaptionMax); !ok {
		return false
	}
	br := textSiblingPast(n, false)
	if br == nil || br.DataAtom != atom.Br || !textPicture(textSiblingPast(br, false)) {
		return false
	}
	next := textSiblingPast(n, true)
	return next == nil || next.Type == html.ElementNode && (next.DataAtom == atom.Br || textBlock[next.DataAtom])
}

// textSmallFont reports whether the <font> n sets its text smaller than the text around
// it: size 1, or -1 and less.
func textSmallFont(n *html.Node) bool {
	v, ok := htmlAttrAny(n, "size")
	switch strings.TrimSpace(v) {
	case "1", "-1", "-2", "-3":
		return ok
	}
	return false
}

// textSiblingPast returns the sibling of m after it (with next, else before it), past
// white space and comments: nil if there is none.
func textSiblingPast(m *html.Node, next bool) *html.Node {
	for m = htmlSibling(m, next); m != nil && !textStandsBeside(m); m = htmlSibling(m, next) {
	}
	return m
}

// textPicture reports whether m is a picture: an <img> not marked as a decoration by an
// empty alt (textDecoration), or a link around one alone.
func textPicture(m *html.Node) bool {
	if m != nil && m.DataAtom == atom.A {
		c := m.FirstChild
		if c != nil && (c.Type == html.CommentNode || c.Type == html.TextNode && strings.TrimSpace(c.Data) == "") {
			c = textSiblingPast(c, true)
		}
		if c == nil || textSiblingPast(c, true) != nil {
			return false
		}
		m = c
	}
	return m != nil && m.Type == html.ElementNode && m.DataAtom == atom.Img && !textDecoration(m)
}

// pictureBlock reports whether n is a picture and its caption alone together in a block
// that no class or id names (pictureAndText), inside the article: beside a paragraph of
// prose (the block's own neighbour, or its wrapper's where the block is alone in it, up
// to textPictureWrappers levels), and not one of a run of such blocks beside each other.
// Cards in a grid, a forum's avatars with their names, logos with what they name are
// pictures with their texts beside other such blocks, not beside the article's prose.
func (t *textTree) pictureBlock(n *html.Node) bool {
	if !t.pictureAndText(n) {
		return false
	}
	x := n
	for range textPictureWrappers {
		prev, ptext := textElementBeside(x.PrevSibling, false)
		next, ntext := textElementBeside(x.NextSibling, true)
		if ptext || ntext {
			return false // in a line of text, not a block of its own
		}
		if prev == nil && next == nil {
			if x = x.Parent; x == nil {
				return false
			}
			continue
		}
		prose := false
		for _, m := range [2]*html.Node{prev, next} {
			if m == nil {
				continue
			}
			if m.DataAtom == n.DataAtom && t.pictureAndText(m) {
				return false
			}
			if i, ok := t.at[m]; ok && t.info[i].flags&textParagraph != 0 && t.info[i].prose > 0 {
				prose = true
			}
		}
		return prose
	}
	return false
}

// textPictureWrappers is how many wrappers around a picture and its caption alone in
// them pictureBlock climbs to find the article's prose beside them.
const textPictureWrappers = 3

// textElementBeside returns the first element from m on (its next siblings with next,
// else its previous ones), past white space and comments, or reports that text comes
// first.
func textElementBeside(m *html.Node, next bool) (*html.Node, bool) {
	for m != nil && m.Type != html.ElementNode {
		if m.Type == html.TextNode && strings.TrimSpace(m.Data) != "" {
			return nil, true
		}
		if next {
			m = m.NextSibling
		} else {
			m = m.PrevSibling
		}
	}
	return m, false
}

// pictureAndText reports whether n is a picture and a short text alone together in a
// block: its first child (past white space) holds a picture and no text (an <img> not
// marked as a decoration, a <picture>, a link or a box around one), and the rest, set
// apart from the picture's line (a block or an inline element of its own, or text after
// a <br>), is a short text (at most textPictureCaptionMax characters), not mostly links,
// with no heading, list, term, quotation, table or further picture: <div><img><div>The
// bridge at dawn. Photo: X</div></div>, <p><img><br>caption</p>,
// <span><img><em>caption</em></span>. Text on the picture's own line is a paragraph with
// an initial or an icon in it.
func (t *textTree) pictureAndText(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.P, atom.Span, atom.Center:
	default:
		return false
	}
	i, ok := t.shortText(n, textPictureCaptionMax)
	if !ok {
		return false
	}
	in := &t.info[i]
	c := n.FirstChild
	for c != nil && !textStandsBeside(c) {
		c = c.NextSibling
	}
	if c == nil || c.Type != html.ElementNode {
		return false
	}
	ci, ok := t.at[c]
	if !ok || t.info[ci].text != 0 {
		return false
	}
	picture := false
	for j := ci; j < t.info[ci].end; j++ {
		if m := t.nodes[j]; m.DataAtom == atom.Picture || m.DataAtom == atom.Img && !textDecoration(m) {
			picture = true
		}
	}
	if !picture {
		return false
	}
	// The caption: past white space, a <br> then anything, or elements only.
	c = c.NextSibling
	for c != nil && !textStandsBeside(c) {
		c = c.NextSibling
	}
	if c == nil {
		return false
	}
	if c.DataAtom != atom.Br {
		for m := c; m != nil; m = m.NextSibling {
			if m.Type == html.TextNode && strings.TrimSpace(m.Data) != "" {
				return false
			}
		}
	}
	for j := t.info[ci].end; j < in.end; j++ {
		switch t.nodes[j].DataAtom {
		case atom.Img, atom.Picture, atom.Video, atom.Iframe, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
			atom.Ul, atom.Ol, atom.Dl, atom.Dt, atom.Dd, atom.Blockquote, atom.Table, atom.Pre, atom.Figure, atom.Form:
			return false
		}
	}
	return true
}

// textPictureCaptionMax is the most text, in characters, of a picture's caption alone
// with it in a block that no class names: a longer text is a paragraph under a picture.
const textPictureCaptionMax = 200

// textDecoration reports whether the picture m is marked as a decoration by an empty
// alt: a spacer, an icon, the quote marks around a quotation set beside the text.
func textDecoration(m *html.Node) bool {
	alt, ok := htmlAttrAny(m, "alt")
	return ok && strings.TrimSpace(alt) == ""
}

// pictureFigure reports whether n is a <figure> of a picture whose text, outside a
// <figcaption> or in one, is its caption or credit: it holds an <img> or a <picture>,
// at most textCaptionMax characters of text, and no quotation, code, table or list
// (a figure of those is the article's own).
func (t *textTree) pictureFigure(n *html.Node) bool {
	if n.DataAtom != atom.Figure {
		return false
	}
	i, ok := t.at[n]
	if !ok || t.info[i].text == 0 || t.info[i].text > textCaptionMax {
		return false
	}
	picture := false
	for j := i + 1; j < t.info[i].end; j++ {
		switch t.nodes[j].DataAtom {
		case atom.Img, atom.Picture:
			picture = true
		case atom.Blockquote, atom.Pre, atom.Table, atom.Ul, atom.Ol:
			return false
		}
	}
	return picture
}

// floatFigure reports whether n is a picture set beside the article's text with its
// caption, as old pages set a figure: a table or a block aligned or floated left or
// right (<table align="right" width="200">, style="float: right") that holds a picture
// (an <img> not marked as a decoration by an empty alt, as a spacer or the quote marks
// around a quotation set beside the text are on BBC News' pages) and at most
// textFloatCaptionMax characters of text, not mostly links (a teaser with its
// thumbnail).
func (t *textTree) floatFigure(n *html.Node) bool {
	if n.DataAtom != atom.Table && n.DataAtom != atom.Div || !textFloated(n) {
		return false
	}
	i, ok := t.shortText(n, textFloatCaptionMax)
	if !ok {
		return false
	}
	for j := i + 1; j < t.info[i].end; j++ {
		if m := t.nodes[j]; m.DataAtom == atom.Img && !textDecoration(m) {
			return true
		}
	}
	return false
}

// shortText returns the index of the element n in the tree when it holds some text, at
// most max characters, not mostly in links: a caption's length and shape.
func (t *textTree) shortText(n *html.Node, max int32) (int32, bool) {
	i, ok := t.at[n]
	if !ok {
		return 0, false
	}
	in := &t.info[i]
	return i, in.text > 0 && in.text <= max && in.link*2 <= in.text
}

// textFloatCaptionMax is the most text, in characters, of a floated picture's box
// whose text is its caption.
const textFloatCaptionMax = 300

// textFloated reports whether n is aligned or floated to the left or the right of the
// text around it.
func textFloated(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "align":
			if strings.EqualFold(a.Val, "left") || strings.EqualFold(a.Val, "right") {
				return true
			}
		case "style":
			for decl := range strings.SplitSeq(a.Val, ";") {
				k, v, ok := strings.Cut(decl, ":")
				if ok && strings.EqualFold(strings.TrimSpace(k), "float") {
					v = strings.TrimSpace(v)
					return strings.EqualFold(v, "left") || strings.EqualFold(v, "right")
				}
			}
		}
	}
	return false
}

// textCaptionName reports whether a class (or an id value) names a picture's caption
// ("wp-caption-text", "pictureCaption", "caption__credit", and in other languages
// "bildunterschrift", "didascalia", "legende", "pie-de-foto"), not a block's state of
// holding one or not ("no_caption", "has-caption", "image-with-caption"), or a
// picture's credit ("photo-credit", "image-copyright", "bildnachweis").
func textCaptionName(names string) bool {
	if len(names) > textCaptionNameMax {
		return false
	}
	if i := strings.Index(names, "caption"); i >= 0 {
		before := strings.TrimRight(names[:i], "-_")
		for _, p := range []string{"no", "has", "with", "without"} {
			if strings.HasSuffix(before, p) {
				return false
			}
		}
		return true
	}
	for _, w := range textCaptionWords {
		// At the start of a word: "grundlegende" is not a "legende".
		if i := strings.Index(names, w); i == 0 || i > 0 && !unicode.IsLetter(rune(names[i-1])) {
			return true
		}
	}
	if !strings.Contains(names, "credit") && !strings.Contains(names, "copyright") {
		return false
	}
	for _, w := range textPictureNames {
		if strings.Contains(names, w) {
			return true
		}
	}
	return false
}

// textCaptionNameMax is the longest class or id value, in bytes, read for a caption's
// name: a longer one is a heading's text made an id ("how-to-add-captions-to-a-video").
const textCaptionNameMax = 40

// textCaptionWords name a picture's caption, or its credit, in class and id values in
// other languages than English.
var textCaptionWords = []string{"bildunterschrift", "didascalia", "legende", "piedefoto", "pie-de-foto", "pie_de_foto", "bildtext", "bildnachweis", "fotonachweis"}

// textPictureNames name a picture in class and id values: a credit or a copyright
// so named is the picture's.
var textPictureNames = []string{"photo", "image", "img", "picture", "foto", "bild"}

// textAuthorMax is the most text, in characters, of a box about the author: a longer
// block named so is a wrapper of the post ("s-author-none", a byline's span left open).
const textAuthorMax = 800

// gone reports whether the node at i is left out of the main text.
func (t *textTree) gone(n *html.Node) bool {
	i, ok := t.at[n]
	return !ok || t.info[i].flags&(textGone|textPermalink) != 0
}

// textRun is a run of text and inline elements directly inside a block that holds
// blocks too: text between <br>s in a <div>, say, which counts as a paragraph.
type textRun struct{ text, link, commas, prose int32 }

// runs calls fn for each run of text and inline elements among the children of the
// element at i, when it is not itself a paragraph (textIsParagraph).
func (t *textTree) runs(i int32, fn func(textRun)) {
	var r textRun
	for c := t.nodes[i].FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && textBlock[c.DataAtom] && c.DataAtom != atom.Br {
			if r.text > 0 {
				fn(r)
			}
			r = textRun{}
			continue
		}
		if j, ok := t.at[c]; ok && t.info[j].flags&textGone == 0 {
			r.text += t.info[j].text
			r.link += t.info[j].link
			r.commas += t.info[j].commas
			r.prose += t.info[j].prose
		}
	}
	if r.text > 0 {
		fn(r)
	}
}

// textHoldsForm reports whether a child of n is a <form>, which textIsParagraph
// reads as inline: the posts of a forum's thread, inside the form to quote them from,
// are no one paragraph.
func textHoldsForm(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Form {
			return true
		}
	}
	return false
}

// textHoldsBlock reports whether a child of n is a block element: a link around a
// card (<a><div><h5>...<p>...), whose description is prose, not a headline.
func textHoldsBlock(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && textBlock[c.DataAtom] && c.DataAtom != atom.Br {
			return true
		}
	}
	return false
}

// textProseKeep is the prose, in characters, that keeps a block whose class or id
// only may be boilerplate.
const textProseKeep = 400

// textLeadKeep is the prose, in characters, that keeps a <header>: an article's lead
// or a section's introduction rather than a site's header, which is links.
const textLeadKeep = 200

// textArticleLeadKeep is the prose, in characters, that keeps a <header> inside an
// <article> or <main>: the article's standfirst.
const textArticleLeadKeep = 120

// textProse reports whether a paragraph of text characters, link of them in links, is
// prose: at least textParagraphMin characters outside links, and links less than a
// quarter of it.
func textProse(text, link int32) bool {
	return text-link >= textParagraphMin && link*4 < text
}

// textCount counts the non-space characters and the commas of s.
func textCount(s string) (chars, commas int32) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f':
			case c == ',':
				chars++
				commas++
			default:
				chars++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case unicode.IsSpace(r):
		case r == '，' || r == '、' || r == '،':
			chars++
			commas++
		default:
			chars++
		}
	}
	return chars, commas
}

// textIsHidden reports whether an element is not shown (textVisibility).
func textIsHidden(n *html.Node) bool {
	return textVisibility(n) != textShown
}

// How an element is shown (textVisibility).
const (
	textShown = iota
	// textUnshown is an element that is not shown until a script shows it: the hidden
	// attribute, an inline display:none or visibility:hidden, the class "hidden"
	// (textClassHidden). What it holds is left out of the text, unless it is all the
	// page's text (textTree.unshown): a page that keeps its content hidden until its
	// scripts have run, against a flash of unstyled content (<div
	// style="visibility:hidden"> around all of a Next.js page) or behind a gate that a
	// script opens, shows it to its readers.
	textUnshown
	// textNever is an element never read as text: aria-hidden="true", a control by its
	// role (textControlRoles).
	textNever
)

// textVisibility reports how an element is shown. Never the <body> or the <html> is
// hidden: a page that hides its body until its scripts have run (<body class="hidden">)
// shows it to its readers.
func textVisibility(n *html.Node) int {
	if n.DataAtom == atom.Body || n.DataAtom == atom.Html {
		return textShown
	}
	v := textShown
	for _, a := range n.Attr {
		switch a.Key {
		case "role":
			if textControlRoles[strings.ToLower(strings.TrimSpace(a.Val))] && (n.DataAtom != atom.A || htmlAttr(n, "href") == "") {
				return textNever
			}
		case "aria-hidden":
			if strings.EqualFold(strings.TrimSpace(a.Val), "true") {
				return textNever
			}
		case "hidden":
			if !textStreamedBoundary(n) {
				v = textUnshown
			}
		case "style":
			if textStyleHidden(a.Val) {
				v = textUnshown
			}
		case "class":
			if textClassHidden(a.Val) {
				v = textUnshown
			}
		}
	}
	return v
}

// textStreamedBoundary reports whether n is a part of the page that React's streaming
// server rendering sends late: a <div hidden id="S:0"> at the end of the body, which the
// page's inline script moves into its place (a <template id="B:0">) and shows. It holds
// the content of Next.js's pages whose data loads after their frame: shown to readers.
func textStreamedBoundary(n *html.Node) bool {
	if n.DataAtom != atom.Div {
		return false
	}
	id, ok := strings.CutPrefix(htmlAttr(n, "id"), "S:")
	if !ok || id == "" {
		return false
	}
	for _, r := range id {
		if (r < '0' || r > '9') && (r < 'a' || r > 'z') {
			return false
		}
	}
	return true
}

// textControlRoles are the ARIA roles of a control, whose words are its label, not
// text to read, as a <button>'s or an <input>'s (textSkip): a video player's buttons,
// slider and timer ("Play", "Loaded: 0%", "Fullscreen"), a menu's items, a tooltip. A
// link with such a role stays a link: "Next" to the next part of a guide, an
// accordion's heading; an <a> that links nowhere is the control (XenForo's "Click to
// expand..." under a quote).
var textControlRoles = map[string]bool{
	"button": true, "checkbox": true, "combobox": true, "listbox": true, "menuitem": true,
	"option": true, "progressbar": true, "radio": true, "scrollbar": true, "searchbox": true,
	"slider": true, "spinbutton": true, "switch": true, "textbox": true, "timer": true,
	"tooltip": true,
}

// textClassHidden reports whether a class value hides its element: the class "hidden",
// display:none in Bootstrap and most style sheets of its time (a page's second copy of
// the article for another layout), unless a class shows the element again on some
// screens, as Tailwind's "hidden md:block" does.
func textClassHidden(v string) bool {
	if !strings.Contains(v, "hidden") {
		return false // most values: one scan, no split
	}
	hidden := false
	for c := range strings.FieldsSeq(v) {
		if strings.Contains(c, ":") {
			return false
		}
		hidden = hidden || c == "hidden"
	}
	return hidden
}

// textIsHint reports whether an element says it holds the main content.
func textIsHint(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Main, atom.Article:
		return true
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "role":
			if strings.EqualFold(a.Val, "main") {
				return true
			}
		case "itemprop":
			if strings.Contains(strings.ToLower(a.Val), "articlebody") {
				return true
			}
		}
	}
	return false
}

// textIsPermalink reports whether an element is a permalink mark: Sphinx's
// a.headerlink, or a link within the page whose whole text is a mark such as "¶", "#"
// or "§".
func textIsPermalink(n *html.Node, chars int32) bool {
	if n.DataAtom != atom.A {
		return false
	}
	if textHasClass(n, "headerlink") {
		return true
	}
	if chars > 2 || !strings.HasPrefix(strings.TrimSpace(htmlAttr(n, "href")), "#") {
		return false
	}
	switch strings.TrimSpace(textOf(n, 16)) {
	case "¶", "#", "§", "⁋", "🔗", "":
		return true
	}
	return false
}

// textHasClass reports whether class is one of n's classes.
func textHasClass(n *html.Node, class string) bool {
	for c := range strings.FieldsSeq(htmlAttr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// textKind is what an element's name, role, class and id say it is.
type textKind int

const (
	textContent  textKind = iota // nothing says it is boilerplate
	textMaybe                    // a class or id word that usually marks boilerplate
	textSure                     // navigation, header, footer, sidebar, banners
	textComments                 // readers' comments by a class or id (textCommentWord): sure unless textTree.posts
)

// textBoilerplate says whether an element is, by its name, role, class or id, a part
// of the page around the content: navigation, header, footer, sidebar, comments,
// share bar, cookie banner, advertisement.
func textBoilerplate(n *html.Node) textKind {
	switch n.DataAtom {
	case atom.Nav, atom.Footer:
		return textSure
	case atom.Header:
		// A site's header is links; a header of prose is the lead of an article.
		return textMaybe
	case atom.Noscript:
		// Read with scripting off, as the HTML parser reads it: the article a script
		// would show, or a "turn JavaScript on" notice.
		return textMaybe
	case atom.Aside:
		if !textIsNote(n) {
			return textSure
		}
	case atom.Form:
		if strings.EqualFold(htmlAttr(n, "role"), "search") {
			return textSure
		}
	}
	switch strings.ToLower(strings.TrimSpace(htmlAttr(n, "role"))) {
	case "navigation", "banner", "contentinfo", "search", "dialog", "alertdialog", "menu", "menubar", "toolbar":
		return textSure
	case "complementary":
		if !textIsNote(n) {
			return textSure
		}
	}
	return textNamesOf(htmlAttr(n, "class")).or(textNamesOf(htmlAttr(n, "id"))).kind()
}

// boilerplate is textBoilerplate with the words of each class and id value read once
// for the tree: a page repeats a few class names over most of its nodes ("item",
// "col-md-4"), and reading them again for each node cost a tenth of the main text's CPU.
func (t *textTree) boilerplate(n *html.Node) textKind {
	switch n.DataAtom {
	case atom.Nav, atom.Footer, atom.Header, atom.Noscript, atom.Aside, atom.Form:
		return t.posted(n, textBoilerplate(n))
	}
	if htmlAttr(n, "role") != "" {
		return t.posted(n, textBoilerplate(n))
	}
	return t.posted(n, t.nameOf(n).kind())
}

// posted returns the kind k of n, unless n is named as comments in a thread of posts
// (textTree.posts): then what its other names say.
func (t *textTree) posted(n *html.Node, k textKind) textKind {
	if k == textComments && t.posts {
		return (t.nameOf(n) &^ namesComment).kind()
	}
	return k
}

// nameOf is what n's class and id values say of it.
func (t *textTree) nameOf(n *html.Node) textNames {
	return t.namesOf(htmlAttr(n, "class")).or(t.namesOf(htmlAttr(n, "id")))
}

// namesOf is textNamesOf, kept in t.names.
func (t *textTree) namesOf(v string) textNames {
	if v == "" {
		return 0
	}
	f, ok := t.names[v]
	if !ok {
		if t.names == nil {
			t.names = make(map[string]textNames)
		}
		f = textNamesOf(v)
		t.names[v] = f
	}
	return f
}

// textNames is what the words of a class or id value say of a block.
type textNames uint8

const (
	namesSure    textNames = 1 << iota // a textSureNames or textSurePrefixes word
	namesMaybe                         // a textMaybeNames word
	namesContent                       // a textContentWords word
	namesWeak                          // a textWeakWords or textWeakPrefixes word
	namesEntry                         // a class that is a textEntryClasses name
	namesAuthor                        // a word naming the author's box (textAuthorWord)
	namesComment                       // a word naming readers' comments (textCommentWord)
	namesCaption                       // a class or id naming a picture's caption ("wp-caption-text")
)

func (f textNames) or(g textNames) textNames { return f | g }

// kind gives the verdict of the words of a block's class and id values together: a sure
// word wins, then a class naming the block a post, then a maybe word, then a word of
// the content over a weak word.
func (f textNames) kind() textKind {
	switch {
	case f&namesSure != 0:
		return textSure
	case f&namesComment != 0:
		return textComments
	case f&namesEntry != 0:
		return textContent
	case f&namesMaybe != 0:
		return textMaybe
	case f&namesContent != 0:
		return textContent
	case f&namesWeak != 0:
		return textMaybe
	}
	return textContent
}

// textNamesOf reads one class or id value (none of the names looked for holds a space,
// so the values can be read apart).
func textNamesOf(v string) textNames {
	var f textNames
	for c := range strings.FieldsSeq(strings.ToLower(v)) {
		if textEntryClasses[c] {
			f |= namesEntry
		}
		if textIsTermClass(c) || strings.HasPrefix(c, "overflow") {
			// Not what the block is: a term it was filed under, or how its overflow
			// is clipped ("overflow-hidden", Tailwind's and Bootstrap's).
			continue
		}
		f |= textTokenNames(c)
	}
	return f
}

// textIsTermClass reports whether a class names a term a post was filed under, as
// WordPress's post_class and body_class write them ("tag-cookie-recipes",
// "category-comments"): the words after the prefix are the site's, not what the block is.
func textIsTermClass(c string) bool {
	return strings.HasPrefix(c, "tag-") || strings.HasPrefix(c, "category-")
}

// textTokenNames reads one class (or an id value without spaces).
func textTokenNames(names string) textNames {
	if textSkipTarget(names) {
		return namesContent
	}
	var f textNames
	if textSureIndex.in(names) {
		f |= namesSure
	}
	if textMaybeIndex.in(names) {
		f |= namesMaybe
	}
	if textCaptionName(names) {
		f |= namesCaption
	}
	for w := range strings.FieldsFuncSeq(names, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, p := range textSurePrefixes {
			if strings.HasPrefix(w, p) {
				f |= namesSure
			}
		}
		if textCommentWord(w) {
			f |= namesComment
		}
		if textAuthorWord(w) {
			f |= namesMaybe | namesAuthor
		}
		if textWeakWords[w] {
			f |= namesWeak
		}
		for _, p := range textWeakPrefixes {
			if strings.HasPrefix(w, p) {
				f |= namesWeak
			}
		}
		if textContentWords[w] {
			f |= namesContent
		}
	}
	return f
}

// textIsNote reports whether an <aside> or complementary block is a note of the text
// (a footnote, an admonition) rather than a sidebar of the site.
func textIsNote(n *html.Node) bool {
	names := strings.ToLower(htmlAttr(n, "class") + " " + htmlAttr(n, "id") + " " + htmlAttr(n, "role"))
	for _, s := range []string{"footnote", "endnote", "note", "admonition", "callout", "warning", "tip", "citation"} {
		if strings.Contains(names, s) {
			return true
		}
	}
	return false
}

// textSkipTarget reports whether a class or an id value names the place a skip link
// leads to ("wp--skip-link--target", WordPress's <main> in block themes;
// "skiplink__destination"): the page's content, not the link.
func textSkipTarget(c string) bool {
	return strings.Contains(c, "skip") && (strings.Contains(c, "target") || strings.Contains(c, "destination"))
}

// textSureNames are substrings of class and id values that mark boilerplate whatever
// the block holds.
var textSureNames = []string{"skip-link", "screen-reader", "sr-only", "visually-hidden"}

// textSurePrefixes begin words of class and id values (split at anything but letters
// and digits) that mark boilerplate whatever the block holds.
var textSurePrefixes = []string{
	"cookie", "consent", "gdpr", "outbrain", "taboola", "skiplink", "visuallyhidden",
}

// textCommentNames name readers' comments in class and id values, as words' beginnings
// (textCommentWord) or anywhere in a heading's names (textNamesComments).
var textCommentNames = []string{"comment", "kommentar", "komentar", "comentario", "disqus"}

// textCommentWord reports whether the word w of a class or id value begins with one of
// textCommentNames. A "commentary" block is boilerplate too: Tumblr's readers' notes are
// "with_commentary" and "without_commentary" (a heading so named is not the opening of
// the comments: textNamesComments).
func textCommentWord(w string) bool {
	for _, p := range textCommentNames {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// textCommentary reports whether after, what follows a comment name in a word, makes
// it a commentary or a commentator (an opinion piece, its author), not readers' comments.
func textCommentary(after string) bool {
	return strings.HasPrefix(after, "ary") || strings.HasPrefix(after, "ator")
}

// textMaybeNames are substrings of class and id values that mark boilerplate unless
// the block holds prose.
var textMaybeNames = []string{
	"share", "sharing", "social", "newsletter", "subscribe", "related", "recommend",
	"sidebar", "breadcrumb", "advert", "sponsor", "navbar", "masthead", "site-header",
	"site-footer", "page-footer", "page-header", "author-bio", "post-meta", "entry-meta",
	"article-meta", "byline", "more-stories", "read-more", "readmore", "trending",
	"most-read", "mostread", "most-popular", "signup", "sign-up", "login", "pagination",
	"paywall", "print-only", "popup", "modal", "credit", "copyright",
}

// textAuthorWord reports whether the word w of a class or id value (split at anything
// but letters and digits) names a box about the author, which is boilerplate unless it
// holds prose: "author" or "authors" at the end of a word ("author-box", "post_author",
// "postauthor"; not "authored-by-jane"), or at its start before a box's word
// (textAuthorBoxes: "authorbox", "authorinfo"), or a biography ("bio", "bios",
// "extendedbio").
func textAuthorWord(w string) bool {
	if rest, ok := strings.CutPrefix(w, "author"); ok && rest != "" {
		// Not "authoring", "authority", nor an id made of a heading's or an option's
		// words ("authorltauthorgt").
		for _, b := range textAuthorBoxes {
			if strings.HasPrefix(rest, b) {
				return true
			}
		}
	}
	w = strings.TrimSuffix(w, "s")
	return strings.HasSuffix(w, "author") || strings.HasSuffix(w, "bio")
}

// textAuthorBoxes are the words that, written after "author" in one word, name a box
// about the author ("authorbox", "authorinfo", "authorbio").
var textAuthorBoxes = []string{"box", "info", "bio", "desc", "detail", "wrap", "card", "profile", "about", "block", "area", "section", "container", "panel"}

// textWeakWords are words of class and id values that mark boilerplate unless a word of
// textContentWords is there too.
var textWeakWords = map[string]bool{
	"nav": true, "navigation": true, "menu": true, "header": true, "footer": true,
	"ad": true, "ads": true, "banner": true, "widget": true, "widgets": true,
	"promo": true, "tags": true, "tag": true, "toolbar": true, "pager": true,
	"hidden": true, "hide": true, "toc": true, "aside": true, "meta": true,
	"sidebar": true, "rail": true, "print": true, "topbar": true,
	"breadcrumbs": true, "teaser": true, "teasers": true, "overlay": true, "alert": true,
}

// textWeakPrefixes begin words of class and id values that mark boilerplate unless a
// word of textContentWords is there too: "navheader", "menubar", "footerlinks".
var textWeakPrefixes = []string{"nav", "menu", "footer", "header", "sidebar", "breadcrumb"}

// textEntryClasses are classes that name a block a post or an article. Its other
// classes then only describe it: WordPress's and TypePad's "hentry post author-admin
// category-news", "entry entry-author-jane entry-type-post" are the post, not an author
// box.
var textEntryClasses = map[string]bool{"post": true, "entry": true, "hentry": true, "type-post": true, "article": true}

// textContentWords are words of class and id values that mark the content.
var textContentWords = map[string]bool{
	"article": true, "body": true, "content": true, "main": true, "entry": true,
	"post": true, "text": true, "story": true, "column": true, "blog": true,
}
