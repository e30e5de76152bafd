package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// textSkip lists elements whose subtree is never main text.
var textSkip = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Frame: true,
	atom.Frameset: true, atom.Object: true, atom.Embed: true, atom.Canvas: true,
	atom.Select: true, atom.Button: true, atom.Textarea: true, atom.Input: true,
	atom.Nav: true, atom.Aside: true, atom.Footer: true, atom.Head: true,
	atom.Title: true, atom.Dialog: true, atom.Rt: true, atom.Rp: true,
}

// textBlock lists elements that start and end a paragraph.
var textBlock = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Blockquote: true, atom.Br: true,
	atom.Caption: true, atom.Dd: true, atom.Details: true, atom.Div: true, atom.Dl: true,
	atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true, atom.Figure: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Header: true, atom.Hr: true, atom.Li: true, atom.Main: true, atom.Ol: true,
	atom.P: true, atom.Pre: true, atom.Section: true, atom.Summary: true, atom.Table: true,
	atom.Td: true, atom.Th: true, atom.Tr: true, atom.Ul: true, atom.Body: true,
}

// textChosen is a document's text tree and the blocks chosen in it as the main text:
// what the plain text and the Markdown text are both written from, so that a page
// wanting both builds the tree and picks the content once.
type textChosen struct {
	t      *textTree
	picked []int32
	stop   int32               // textPick's: where the text ends, 0 when with the blocks
	roots  map[*html.Node]bool // the picked blocks' nodes
	// memo keeps, by index in the tree, what the writer learnt reading blocks' words
	// (textWalker.edgeJunk and tailJunk), for the second of two writes; nil with one.
	memo []textMemo
}

// textChoose builds the text tree of a parsed document of about size nodes and picks
// its main text (the heuristic is described in text_pick.go). open reports whether the
// text runs on to the last node of the tree, which is not boilerplate: in the tree of a
// body's beginning (htmlTree cut at its strip limit), whether it may go on after it,
// rather than ending before the comments that were cut. With twice, c is to be written
// in both formats: the second write reuses what the first read of the blocks' words.
// With unshown, what is not shown until a script shows it is read (textTreeOf). title
// is the page's, which names its article among others (textTree.titled).
func textChoose(doc *html.Node, size int, title string, twice, unshown bool) (c *textChosen, open bool) {
	t := textTreeOf(doc, size, unshown)
	t.title = title
	picked, stop := t.textPick()
	if k, last := len(picked), int32(len(t.nodes)-1); k > 0 {
		open = stop == 0 && t.info[picked[k-1]].end > last && t.info[last].flags&textGone == 0
	}
	c = &textChosen{t: t, picked: picked, stop: stop, roots: make(map[*html.Node]bool, len(picked))}
	for _, i := range picked {
		c.roots[t.nodes[i]] = true
	}
	if twice && len(picked) > 0 {
		c.memo = make([]textMemo, len(t.nodes))
	}
	return c, open
}

// write returns the main text, at most max bytes, in Markdown with md (links resolved
// against base), else plain. A heading that opens the plain text and repeats the
// page's title (Page.Title holds it) is left out, unless nothing follows. It may be
// called once for each format: it leaves c as it was.
func (c *textChosen) write(base *canonParts, title string, max int, md bool) string {
	text, _ := c.writeProse(base, title, max, md)
	return text
}

// writeProse is write, and reports whether the text holds a paragraph of prose.
func (c *textChosen) writeProse(base *canonParts, title string, max int, md bool) (text string, prose bool) {
	t := c.t
	w := textWalker{t: t, out: &textOut{max: max, md: md}, base: base, roots: c.roots, memo: c.memo, title: title, stop: c.stop, picked: c.picked, captions: -1}
	for k, i := range c.picked {
		if k > 0 && w.commentsBetween(c.picked[k-1], i) {
			break
		}
		w.out.brk(2)
		w.root, w.rootText, w.rootProse = i, t.info[i].text, t.info[i].prose+t.info[i].lprose
		w.write(t.nodes[i])
	}
	return w.text(), w.prose[1] > 0
}

// textStyleHidden reports whether an inline style says display:none or
// visibility:hidden.
func textStyleHidden(style string) bool {
	for decl := range strings.SplitSeq(style, ";") {
		k, v, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important"))
		if strings.EqualFold(k, "display") && strings.EqualFold(v, "none") ||
			strings.EqualFold(k, "visibility") && strings.EqualFold(v, "hidden") {
			return true
		}
	}
	return false
}

// textOf returns the text under n (script and style left out), white space collapsed,
// at most max bytes.
func textOf(n *html.Node, max int) string {
	t := textWriter{max: max}
	// The nodes are visited in document order through their links, with no stack to
	// allocate: textOf runs for every link of a page.
	for c := n; c != nil && !t.full; c = htmlNext(n, c, c.Type == html.ElementNode && (c.DataAtom == atom.Script || c.DataAtom == atom.Style || c.DataAtom == atom.Template)) {
		if c.Type == html.TextNode {
			t.write(c.Data)
		}
	}
	return t.String()
}

// htmlNext returns the node after c in document order within the subtree of root, nil
// after the last; with skip, the nodes under c are passed over.
func htmlNext(root, c *html.Node, skip bool) *html.Node {
	if c.FirstChild != nil && !skip {
		return c.FirstChild
	}
	for ; c != root; c = c.Parent {
		if c.NextSibling != nil {
			return c.NextSibling
		}
	}
	return nil
}

// textWriter accumulates text with white space collapsed, up to max bytes. With lines
// set, block() ends a paragraph with "\n"; otherwise a block boundary is a space.
type textWriter struct {
	b       strings.Builder
	max     int
	lines   bool
	space   bool // white space seen since the last character written
	newline bool // a paragraph ended since the last character written
	full    bool // max reached: further writes are dropped
}

// write appends s, collapsing white space.
func (t *textWriter) write(s string) {
	for i := 0; i < len(s) && !t.full; {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if unicode.IsSpace(r) {
			t.space = true
			continue
		}
		sep := 0
		if t.b.Len() > 0 && (t.space || t.newline) {
			sep = 1
		}
		if t.b.Len()+sep+size > t.max {
			t.full = true
			return
		}
		if sep == 1 {
			if t.newline && t.lines {
				t.b.WriteByte('\n')
			} else {
				t.b.WriteByte(' ')
			}
		}
		t.space, t.newline = false, false
		if size == 1 {
			t.b.WriteByte(byte(r))
		} else {
			t.b.WriteString(s[i-size : i])
		}
	}
}

// block marks a paragraph boundary.
func (t *textWriter) block() { t.newline = true }

// String returns the text written so far.
func (t *textWriter) String() string { return t.b.String() }
