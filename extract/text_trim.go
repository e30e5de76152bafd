package extract

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

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
