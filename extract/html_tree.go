package extract

import (
	"bytes"
	"errors"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlTree builds the tree of a decoded HTML document in one pass of the tokenizer, as
// golang.org/x/net/html's parser builds it (HTML, "tree construction") in what the
// main text and htmlFromTree read: <html>, <head> and <body> implied, the end tags a
// browser implies (of <p>, <li>, <dt>, <dd>, headings, table rows and cells,
// <option>), void and raw text elements, <noscript> read as markup (scripting off), SVG
// and MathML in their namespaces with the HTML elements that end them, and quirks mode
// from the doctype. It leaves out comments, and two of the parser's repairs of tag
// soup, which change the text of few pages and the link URLs of none (BENCHMARKS.md):
// the reopening of formatting elements (<a>, <b>) after a block closed them, and the
// moving of what a table holds outside its cells before it (foster parenting); an end
// tag that does not match is ignored, as the parser ignores one that crosses a block. Nodes and attributes come
// from slabs; the htmlRefs of the tree are noted as it is built; and every token is
// handed to req when it is not nil, so that the requisites are found in the same pass.
// The text of <script> and <style> elements, which nothing reads from the tree, is left
// out.
//
// With strip above zero, the tree is that of the body less comments, the text of
// scripts and styles and whole <svg> elements (what htmlStrip, the tests' oracle, takes
// out), and the error is
// errHTMLTooLarge when more than strip bytes of the body are left; the tree of the strip
// bytes read until then is returned with it. The other error is
// errHTMLTooDeep, for elements nested deeper than htmlMaxDepth, as the parser refuses
// them.
func htmlTree(body []byte, req *reqScan, strip int) (*html.Node, *htmlRefs, error) {
	b := htmlBuilder{z: html.NewTokenizer(bytes.NewReader(body)), quirks: true, size: min(max(64, len(body)/256), 4096)}
	b.doc = b.node()
	b.doc.Type = html.DocumentNode
	b.stack = append(b.stack, b.doc)
	first := true
	svg, kept := 0, 0 // with strip: the depth inside <svg>, and the bytes left so far
	pos := 0          // offset in body of the next token
	for {
		if b.rawNext != "" {
			// The text of a script or a style that nobody reads is jumped over: the
			// tokenizer would read it a byte at a time. A new tokenizer starts at the
			// end tag that ends it.
			if end, ok := htmlRawEnd(body[pos:], b.rawNext); ok && end >= htmlSkipRaw {
				pos += end
				b.z = html.NewTokenizer(bytes.NewReader(body[pos:]))
			}
			b.rawNext = ""
		}
		z := b.z
		tt := z.Next()
		if tt == html.ErrorToken {
			return b.doc, &b.refs, nil // io.EOF: the body is in memory, so no other error can occur
		}
		pos += len(z.Raw())
		if strip > 0 {
			if htmlStripped(z, tt, &svg, b.rawText()) {
				continue
			}
			if kept += htmlKeptBytes(tt, z.Raw()); kept > strip {
				return b.doc, &b.refs, errHTMLTooLarge
			}
		}
		lf := b.dropLF
		b.dropLF = false
		blank := false // white space, which the parser reads before the doctype
		switch tt {
		case html.TextToken:
			if b.rawText() && (req == nil || !req.inStyle) {
				continue // the text of a script or a style: nobody reads it from the tree
			}
			text := z.Text()
			blank = first && len(bytes.TrimLeft(text, " \t\n\r\f")) == 0
			if req != nil && req.inStyle {
				req.text(text)
			}
			if lf && len(text) > 0 && text[0] == '\n' {
				text = text[1:]
			}
			if !b.rawText() {
				b.text(text)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name := b.tagName()
			a := atom.Lookup(name)
			// Only the attributes something reads are copied: those htmlTreeKeeps
			// keeps, and all of those the requisites are found in.
			keep := htmlTreeKeeps
			if a == atom.Font || req != nil && req.wants(a, name) {
				keep = nil
			}
			var ok bool
			if b.attrs, ok = htmlTagAttrs(b.attrs[:0], z.Raw(), keep); !ok {
				b.attrs = htmlReadAttrs(b.attrs, z, keep)
			}
			if req != nil {
				req.start(tt == html.StartTagToken, name, a, b.attrs)
			}
			if err := b.start(tt == html.SelfClosingTagToken, name, a); err != nil {
				return nil, nil, err
			}
			if (a == atom.Script || a == atom.Style && (req == nil || !req.inStyle)) && b.rawText() {
				b.rawNext = b.cur().Data // the tokenizer reads its text as script data or raw text
			}
			if b.escapable() && htmlUnended(body, pos, b.cur().Data, b.ends.of(b.cur().DataAtom)) {
				b.z.NextIsNotRawText()
			}
		case html.EndTagToken:
			name := b.tagName()
			a := atom.Lookup(name)
			if req != nil {
				req.end(a)
			}
			b.end(name, a)
		case html.DoctypeToken:
			if first {
				b.quirks = htmlQuirks(string(z.Text()))
			}
		}
		first = first && (tt == html.CommentToken || blank)
	}
}

// htmlMaxDepth is the deepest nesting of elements htmlTree builds, as the HTML parser's.
const htmlMaxDepth = 512

// errHTMLTooDeep stands for a document whose elements nest deeper than htmlMaxDepth.
var errHTMLTooDeep = errors.New("extract: html nested too deep for a tree")

// htmlBuilder is the state of htmlTree.
type htmlBuilder struct {
	z                *html.Tokenizer
	doc, head, body  *html.Node
	html             *html.Node
	stack            []*html.Node // open elements, the document first
	slab             []html.Node  // nodes are taken from it; a new one is made when it is full
	size             int          // nodes in a slab (about a third of what pages have, one for 100 bytes), half as many attributes
	refs             htmlRefs     // of the nodes made so far
	attrSlab         []html.Attribute
	attrs            []html.Attribute // of the start tag being read
	name             []byte           // of the tag being read (tagName)
	quirks           bool             // quirks mode: a <table> does not end a <p>
	dropLF, noscript bool             // drop a newline starting the next text (<pre>); <noscript> open in <head>
	rawNext          string           // "script" or "style" when the next token is a text nobody reads
	ends             htmlEndsSeen     // where the end tags of <title>s and <textarea>s were looked for
}

// htmlSkipRaw is the shortest text of a script or a style, in bytes, that htmlTree
// jumps over: shorter ones cost less to read than a new tokenizer.
const htmlSkipRaw = 256

// htmlRawEnd returns the offset in b, the text of a <script> or <style> element (tag
// "script" or "style") and what follows, of the end tag that ends that text as the
// tokenizer reads it ("</" and tag in any case, then white space, "/" or ">"), len(b)
// when none does. ok is false for a script holding "<!--" before that end tag, whose
// end the escape rules of script data decide.
func htmlRawEnd(b []byte, tag string) (end int, ok bool) {
	for end = 0; ; end += 2 {
		i := bytes.Index(b[end:], []byte("</"))
		if i < 0 {
			end = len(b)
			break
		}
		end += i
		if n := end + 2 + len(tag); n < len(b) && htmlEqualFold(tag, b[end+2:n]) && htmlTagEnd(b[n]) {
			break
		}
	}
	return end, tag != "script" || !bytes.Contains(b[:end], []byte("<!--"))
}

// htmlUnended reports whether body, after offset pos where the start tag of a <title>
// or a <textarea> (tag "title" or "textarea") ends, holds no end tag that ends its text.
// The tokenizer would read all the rest of the document as that element's text, so
// that a page whose </title> was lost (a damaged copy, a cut-off template) would have
// no body; it is read instead as older browsers read it, the element's text ending at
// the next tag. seen keeps the last answer for that tag, which holds for every offset
// up to the end tag found: a page of many <textarea>s that never end is read in linear
// time.
func htmlUnended(body []byte, pos int, tag string, seen *htmlEndSeen) bool {
	if pos < seen.at || pos > seen.end {
		end, _ := htmlRawEnd(body[pos:], tag)
		*seen = htmlEndSeen{at: pos, end: pos + end}
	}
	return seen.end == len(body)
}

// htmlEndSeen is where htmlUnended last looked for an end tag: from offset at, the
// first was at end (the body's length when there was none). The zero value has looked
// nowhere.
type htmlEndSeen struct{ at, end int }

// htmlEndsSeen are htmlUnended's answers for a <title> and for a <textarea>.
type htmlEndsSeen struct{ title, textarea htmlEndSeen }

// of returns the answer kept for the element a, a <title> or a <textarea>.
func (s *htmlEndsSeen) of(a atom.Atom) *htmlEndSeen {
	if a == atom.Title {
		return &s.title
	}
	return &s.textarea
}

// escapable reports whether the current element is a <title> or a <textarea> of
// HTML, whose text the tokenizer reads as escapable raw text.
func (b *htmlBuilder) escapable() bool {
	c := b.cur()
	return c.Namespace == "" && (c.DataAtom == atom.Title || c.DataAtom == atom.Textarea)
}

// endUnended pops a <title> or a <textarea> that a tag finds still open: one whose
// end tag the document lacks (see htmlUnended), as it holds text only.
func (b *htmlBuilder) endUnended() {
	if b.escapable() {
		b.popTo(len(b.stack) - 1)
	}
}

// node returns a new node from the slab.
func (b *htmlBuilder) node() *html.Node {
	if len(b.slab) == cap(b.slab) {
		b.slab = make([]html.Node, 0, b.size)
	}
	b.slab = b.slab[:len(b.slab)+1]
	return &b.slab[len(b.slab)-1]
}

// element returns a new element of a named name in namespace ns with a copy of b.attrs.
func (b *htmlBuilder) element(name []byte, a atom.Atom, ns string) *html.Node {
	n := b.node()
	n.Type, n.DataAtom, n.Namespace = html.ElementNode, a, ns
	if a != 0 {
		n.Data = a.String()
	} else {
		n.Data = string(name)
	}
	if k := len(b.attrs); k > 0 {
		if cap(b.attrSlab)-len(b.attrSlab) < k {
			b.attrSlab = make([]html.Attribute, 0, max(k, b.size/2))
		}
		at := len(b.attrSlab)
		b.attrSlab = append(b.attrSlab, b.attrs...)
		n.Attr = b.attrSlab[at : at+k : at+k]
	}
	b.refs.add(n)
	return n
}

func (b *htmlBuilder) cur() *html.Node { return b.stack[len(b.stack)-1] }

// rawText reports whether the current node is a <script> or a <style>.
func (b *htmlBuilder) rawText() bool {
	c := b.cur()
	return c.Namespace == "" && (c.DataAtom == atom.Script || c.DataAtom == atom.Style)
}

// htmlStripped reports whether the token z has just read, of type tt, is one
// htmlStrip takes out; svg is the depth inside <svg> elements, and raw tells that a
// text token is the text of a script or a style.
func htmlStripped(z *html.Tokenizer, tt html.TokenType, svg *int, raw bool) bool {
	switch tt {
	case html.CommentToken:
		return true
	case html.TextToken:
		return raw || *svg > 0
	case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
		// The tag name is read from the raw token, so that the builder can read it
		// again.
		name := htmlRawTagName(z.Raw())
		if htmlEqualFold("svg", name) {
			switch {
			case tt == html.StartTagToken:
				*svg++
				return true
			case tt == html.EndTagToken && *svg > 0:
				*svg--
				return true
			}
		}
	}
	return *svg > 0
}

// htmlKeptBytes is what a token of the body counts toward htmlTree's strip limit: its
// bytes, a run of white space inside a tag counting as one. The white space between the
// attributes of a tag, which some pages indent over many lines, makes no node; the nodes
// of a body so written weigh what they weigh in the same body written tightly.
func htmlKeptBytes(tt html.TokenType, raw []byte) int {
	if tt != html.StartTagToken && tt != html.SelfClosingTagToken && tt != html.EndTagToken {
		return len(raw)
	}
	n, space := 0, false
	for _, c := range raw {
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		n++
	}
	return n
}

// htmlRawTagName returns the name of the tag raw is, as written.
func htmlRawTagName(raw []byte) []byte {
	raw = bytes.TrimPrefix(bytes.TrimPrefix(raw, []byte("<")), []byte("/"))
	end := 0
	for end < len(raw) && !htmlTagEnd(raw[end]) {
		end++
	}
	return raw[:end]
}

// insert appends n to the current node and, unless void, opens it.
func (b *htmlBuilder) insert(n *html.Node, void bool) error {
	b.cur().AppendChild(n)
	if void {
		return nil
	}
	if len(b.stack) > htmlMaxDepth {
		return errHTMLTooDeep
	}
	b.stack = append(b.stack, n)
	return nil
}

// popTo closes the element at index i of the stack and those above it.
func (b *htmlBuilder) popTo(i int) {
	clear(b.stack[i:])
	b.stack = b.stack[:i]
}

// ensureHTML opens the <html> element if it is not yet.
func (b *htmlBuilder) ensureHTML() {
	if b.html == nil {
		attrs := b.attrs
		b.attrs = nil
		b.html = b.element([]byte("html"), atom.Html, "")
		b.attrs = attrs
		_ = b.insert(b.html, false)
	}
}

// startBody closes the head and opens the body (or frameset, of element a) if it is
// not yet.
func (b *htmlBuilder) startBody(a atom.Atom, attrs bool) {
	if b.body != nil {
		return
	}
	b.ensureHTML()
	b.popTo(2) // the document, <html>
	saved := b.attrs
	if !attrs {
		b.attrs = nil
	}
	b.body = b.element(nil, a, "")
	b.attrs = saved
	_ = b.insert(b.body, false)
}

// text adds a text token to the current node.
func (b *htmlBuilder) text(t []byte) {
	if bytes.IndexByte(t, 0) >= 0 {
		t = bytes.ReplaceAll(t, []byte{0}, nil) // the parser ignores NUL in text
	}
	if len(t) == 0 {
		return
	}
	if b.body == nil {
		switch c := b.cur(); {
		case c.Type == html.DocumentNode || c == b.html || c == b.head:
			// White space before the body makes no node, as in the parser, whether a
			// token of its own or the start of the text that opens the body.
			if t = bytes.TrimLeft(t, " \t\n\r\f"); len(t) == 0 {
				return
			}
			b.startBody(atom.Body, false)
		case b.noscript:
			b.endNoscript()
			b.startBody(atom.Body, false)
		}
	}
	c := b.cur()
	if l := c.LastChild; l != nil && l.Type == html.TextNode {
		l.Data += string(t)
		return
	}
	n := b.node()
	n.Type, n.Data = html.TextNode, string(t)
	b.refs.add(n)
	c.AppendChild(n)
}

// start adds the element of a start tag, named name (a when HTML knows it), with
// attributes b.attrs; selfClosing when written <x/>.
func (b *htmlBuilder) start(selfClosing bool, name []byte, a atom.Atom) error {
	b.endUnended()
	if a == atom.Html {
		b.ensureHTML()
		b.mergeAttrs(b.html)
		return nil
	}
	b.ensureHTML()
	if c := b.cur(); c.Namespace != "" && !htmlIsPoint(c) {
		if !htmlBreaksOut(a, b.attrs) {
			// A foreign element takes the namespace of the element it is in: a <math>
			// inside <svg> is an SVG element, and so is all it holds. The one start
			// tag the HTML rules take instead is <svg> in MathML's <annotation-xml>.
			ns := c.Namespace
			if a == atom.Svg && c.Namespace == "math" && c.DataAtom == atom.AnnotationXml {
				ns = "svg"
			}
			b.z.NextIsNotRawText() // no raw text in foreign content
			return b.insert(b.element(name, a, ns), selfClosing)
		}
		for c := b.cur(); c.Namespace != "" && !htmlIsPoint(c); c = b.cur() {
			b.popTo(len(b.stack) - 1)
		}
	}
	if a == atom.Image {
		a, name = atom.Img, []byte("img")
	}
	if b.body == nil {
		if b.noscript && !htmlIs(a, htmlKindHeadNoscript) {
			b.endNoscript() // anything else in a <noscript> of the head ends it
		}
		switch {
		case a == atom.Head:
			if b.head == nil {
				b.head = b.element(name, a, "")
				return b.insert(b.head, false)
			}
			return nil
		case htmlIs(a, htmlKindHead):
			if b.head == nil {
				attrs := b.attrs
				b.attrs = nil
				b.head = b.element([]byte("head"), atom.Head, "")
				b.attrs = attrs
				_ = b.insert(b.head, false)
			} else if b.cur() == b.html {
				b.stack = append(b.stack, b.head) // after </head>, back into the head
			}
			if a == atom.Noscript {
				b.noscript = true
			}
		case a == atom.Body || a == atom.Frameset:
			b.startBody(a, true)
			return nil
		default:
			b.startBody(atom.Body, false)
			return b.start(selfClosing, name, a)
		}
	}
	switch {
	case a == atom.Body:
		b.mergeAttrs(b.body)
		return nil
	case a == atom.Head || a == atom.Frameset:
		return nil
	case a == atom.Frame && b.cur().DataAtom != atom.Frameset:
		return nil // a <frame> outside a <frameset> is ignored
	case a == atom.Svg || a == atom.Math:
		return b.insert(b.element(name, a, a.String()), selfClosing)
	case htmlIs(a, htmlKindClosesP) || a == atom.Table && !b.quirks:
		b.closeP()
	}
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		if textHeadingLevel(b.cur().DataAtom) > 0 && b.cur().Namespace == "" {
			b.popTo(len(b.stack) - 1)
		}
	case atom.Li:
		b.closeItem(atom.Li, 0)
		b.closeP()
	case atom.Dd, atom.Dt:
		b.closeItem(atom.Dd, atom.Dt)
		b.closeP()
	case atom.Button:
		if i := b.inScope(atom.Button, htmlScopeDefault); i >= 0 {
			b.popTo(i)
		}
	case atom.A:
		// An <a> ends the <a> still open (the parser's adoption agency, without the
		// formatting elements it reopens).
		for i := len(b.stack) - 1; i > 0; i-- {
			n := b.stack[i]
			if n.Namespace == "" && n.DataAtom == atom.A {
				b.popTo(i)
				break
			}
			if n.Namespace == "" && htmlIs(n.DataAtom, htmlKindMarker) {
				break
			}
		}
	case atom.Option:
		if b.cur().DataAtom == atom.Option {
			b.popTo(len(b.stack) - 1)
		}
	case atom.Optgroup:
		for c := b.cur().DataAtom; c == atom.Option || c == atom.Optgroup; c = b.cur().DataAtom {
			b.popTo(len(b.stack) - 1)
		}
	case atom.Rb, atom.Rp, atom.Rt, atom.Rtc:
		for c := b.cur().DataAtom; c == atom.Rb || c == atom.Rp || c == atom.Rt || (c == atom.Rtc && a != atom.Rt && a != atom.Rp); c = b.cur().DataAtom {
			b.popTo(len(b.stack) - 1)
		}
	case atom.Tbody, atom.Thead, atom.Tfoot, atom.Caption, atom.Colgroup:
		i := b.tableContext()
		if i < 0 {
			return nil // outside a table the parser ignores it
		}
		b.popTo(i + 1)
	case atom.Tr:
		return b.row(name, a)
	case atom.Td, atom.Th:
		return b.cell(name, a)
	case atom.Pre, atom.Listing, atom.Textarea:
		b.dropLF = true
	case atom.Noscript:
		b.z.NextIsNotRawText() // scripting off: its content is markup
	}
	return b.insert(b.element(name, a, ""), htmlIs(a, htmlKindVoid))
}

// mergeAttrs gives n the attributes of b.attrs it does not have, as a second <html> or
// <body> start tag does.
func (b *htmlBuilder) mergeAttrs(n *html.Node) {
	for _, at := range b.attrs {
		if _, ok := htmlAttrOf(n.Attr, at.Key); !ok {
			n.Attr = append(n.Attr, at)
		}
	}
}

// closeP closes a <p> in button scope.
func (b *htmlBuilder) closeP() {
	if i := b.inScope(atom.P, htmlScopeButton); i >= 0 {
		b.popTo(i)
	}
}

// closeItem closes an open list item (<li>, or <dd> and <dt>: a and alt) before
// another, unless a block other than <address>, <div> or <p> is open inside it.
func (b *htmlBuilder) closeItem(a, alt atom.Atom) {
	for i := len(b.stack) - 1; i > 0; i-- {
		n := b.stack[i]
		if n.Namespace != "" {
			return
		}
		if n.DataAtom == a || alt != 0 && n.DataAtom == alt {
			b.popTo(i)
			return
		}
		if htmlIs(n.DataAtom, htmlKindSpecial) && n.DataAtom != atom.Address && n.DataAtom != atom.Div && n.DataAtom != atom.P {
			return
		}
	}
}

// tableContext returns the index in the stack of the innermost open <table>, with
// every row section, row and cell inside it, when no other table boundary is between;
// -1 when there is none.
func (b *htmlBuilder) tableContext() int {
	for i := len(b.stack) - 1; i > 0; i-- {
		n := b.stack[i]
		if n.Namespace != "" {
			continue
		}
		switch n.DataAtom {
		case atom.Table:
			return i
		case atom.Html, atom.Template:
			return -1
		}
	}
	return -1
}

// row opens a <tr>: it closes the cell and the row open in the innermost table, and
// opens a <tbody> when the row would be a child of the <table>.
func (b *htmlBuilder) row(name []byte, a atom.Atom) error {
	i := b.tableContext()
	if i < 0 {
		return nil // outside a table the parser ignores it
	}
	for j := len(b.stack) - 1; j > i; j-- {
		switch b.stack[j].DataAtom {
		case atom.Tbody, atom.Thead, atom.Tfoot:
			if b.stack[j].Namespace == "" {
				b.popTo(j + 1)
				return b.insert(b.element(name, a, ""), false)
			}
		}
	}
	b.popTo(i + 1)
	attrs := b.attrs
	b.attrs = nil
	_ = b.insert(b.element([]byte("tbody"), atom.Tbody, ""), false)
	b.attrs = attrs
	return b.insert(b.element(name, a, ""), false)
}

// cell opens a <td> or <th>: it closes the cell open in the innermost table's row, and
// opens the row (and <tbody>) it belongs in when there is none.
func (b *htmlBuilder) cell(name []byte, a atom.Atom) error {
	i := b.tableContext()
	if i < 0 {
		return nil // outside a table the parser ignores it
	}
	for j := len(b.stack) - 1; j > i; j-- {
		if b.stack[j].DataAtom == atom.Tr && b.stack[j].Namespace == "" {
			b.popTo(j + 1)
			return b.insert(b.element(name, a, ""), false)
		}
	}
	attrs := b.attrs
	b.attrs = nil
	if err := b.row([]byte("tr"), atom.Tr); err != nil {
		return err
	}
	b.attrs = attrs
	return b.insert(b.element(name, a, ""), false)
}

// end closes the element of an end tag named name (a when HTML knows it).
func (b *htmlBuilder) end(name []byte, a atom.Atom) {
	if !htmlEqualFold(b.cur().Data, name) {
		b.endUnended()
	}
	// In foreign content, the innermost open element of that name, up to the nearest
	// HTML element.
	for i := len(b.stack) - 1; i > 0 && b.stack[i].Namespace != ""; i-- {
		if htmlEqualFold(b.stack[i].Data, name) {
			b.popTo(i)
			return
		}
	}
	switch a {
	case atom.Html, atom.Body:
		return // what follows stays in the body, as the parser reads it
	case atom.Noscript:
		if b.noscript {
			b.endNoscript()
			return
		}
	case atom.Head:
		if b.body == nil && b.cur() == b.head {
			b.popTo(len(b.stack) - 1)
		}
		return
	case atom.Br:
		b.attrs = b.attrs[:0]
		_ = b.start(false, name, a)
		return
	case atom.P:
		if i := b.inScope(atom.P, htmlScopeButton); i >= 0 {
			b.popTo(i)
		} else if b.body != nil {
			// </p> without a <p>: the parser inserts an empty one.
			b.attrs = b.attrs[:0]
			b.cur().AppendChild(b.element(name, a, ""))
		}
		return
	case atom.Li:
		if i := b.inScope(atom.Li, htmlScopeList); i >= 0 {
			b.popTo(i)
		}
		return
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		for i := len(b.stack) - 1; i > 0; i-- {
			n := b.stack[i]
			if n.Namespace == "" && textHeadingLevel(n.DataAtom) > 0 {
				b.popTo(i)
				return
			}
			if htmlIsBoundary(n, htmlScopeDefault) {
				return
			}
		}
		return
	case atom.Table, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr, atom.Td, atom.Th, atom.Caption, atom.Colgroup:
		if i := b.inScope(a, htmlScopeTable); i >= 0 {
			b.popTo(i)
		}
		return
	}
	if a != 0 && htmlIs(a, htmlKindSpecial) {
		if i := b.inScope(a, htmlScopeDefault); i >= 0 {
			b.popTo(i)
		}
		return
	}
	// Any other end tag closes the innermost element of its name, unless a block is
	// open inside it: a special element, MathML's and SVG's integration points
	// (<mi>, <annotation-xml>, <foreignObject>...) among them: </a> inside <math><mi>
	// is ignored.
	for i := len(b.stack) - 1; i > 0; i-- {
		n := b.stack[i]
		if n.Namespace == "" && n.Data == string(name) {
			b.popTo(i)
			return
		}
		if n.Namespace == "" && htmlIs(n.DataAtom, htmlKindSpecial) || n.Namespace != "" && (htmlIsPoint(n) || n.DataAtom == atom.AnnotationXml) {
			return
		}
	}
}

// endNoscript closes the <noscript> open in the head.
func (b *htmlBuilder) endNoscript() {
	b.noscript = false
	for i := len(b.stack) - 1; i > 0; i-- {
		if b.stack[i].DataAtom == atom.Noscript {
			b.popTo(i)
			return
		}
	}
}

// htmlEqualFold reports whether s and b are equal, ASCII letters compared without case.
func htmlEqualFold(s string, b []byte) bool {
	if len(s) != len(b) {
		return false
	}
	for i := range len(s) {
		c, d := s[i], b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'A' <= d && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// htmlScope names the elements at which a search of the open elements stops.
type htmlScope uint8

const (
	htmlScopeDefault htmlScope = iota // applet, caption, html, table, td, th, marquee, object, template
	htmlScopeList                     // the default, and ol, ul
	htmlScopeButton                   // the default, and button
	htmlScopeTable                    // html, table, template
)

// inScope returns the index in the stack of the innermost open HTML element a, -1
// when there is none or a boundary of scope s is found first.
func (b *htmlBuilder) inScope(a atom.Atom, s htmlScope) int {
	for i := len(b.stack) - 1; i > 0; i-- {
		n := b.stack[i]
		if n.Namespace == "" && n.DataAtom == a {
			return i
		}
		if htmlIsBoundary(n, s) {
			return -1
		}
	}
	return -1
}

// htmlIsBoundary reports whether n ends a search of the open elements in scope s.
func htmlIsBoundary(n *html.Node, s htmlScope) bool {
	if n.Namespace != "" {
		return s != htmlScopeTable && htmlIsPoint(n)
	}
	switch n.DataAtom {
	case atom.Html, atom.Table, atom.Template:
		return true
	case atom.Applet, atom.Caption, atom.Td, atom.Th, atom.Marquee, atom.Object:
		return s != htmlScopeTable
	case atom.Ol, atom.Ul:
		return s == htmlScopeList
	case atom.Button:
		return s == htmlScopeButton
	}
	return false
}

// htmlIsPoint reports whether a foreign element is an HTML integration point or a
// MathML text integration point, whose content is HTML.
func htmlIsPoint(n *html.Node) bool {
	switch n.Namespace {
	case "svg":
		return n.DataAtom == atom.Foreignobject || n.DataAtom == atom.Desc || n.DataAtom == atom.Title || n.Data == "foreignobject"
	case "math":
		switch n.DataAtom {
		case atom.Mi, atom.Mo, atom.Mn, atom.Ms, atom.Mtext:
			return true
		}
	}
	return false
}

// htmlQuirks reports whether a document whose doctype says doctype is read in quirks
// mode, as the HTML parser decides it: the parser reads the doctype before a <p> and
// a <table>, which in quirks mode the <table> does not end.
func htmlQuirks(doctype string) bool {
	doc, err := html.Parse(strings.NewReader("<!DOCTYPE " + doctype + "><p><table>"))
	if err != nil {
		return true
	}
	for n := doc; n != nil; n = n.LastChild {
		if n.DataAtom == atom.P {
			return n.FirstChild != nil
		}
	}
	return true
}

// htmlKind is what htmlTree knows of an element by its name, in bits.
type htmlKind uint8

const (
	htmlKindClosesP      htmlKind = 1 << iota // htmlClosesP
	htmlKindHead                              // htmlHeadElements
	htmlKindHeadNoscript                      // htmlHeadNoscript
	htmlKindMarker                            // htmlMarkers
	htmlKindVoid                              // htmlVoidElements
	htmlKindSpecial                           // htmlSpecial
)

// htmlKinds holds the kinds of the elements the lists below name, by atom, in an
// open-addressed table: a lookup costs a few nanoseconds where a map's costs about
// twenty, and htmlTree makes several for every tag.
var htmlKinds = func() (t [1024]struct {
	a atom.Atom
	k htmlKind
}) {
	for k, list := range map[htmlKind]map[atom.Atom]bool{
		htmlKindClosesP: htmlClosesP, htmlKindHead: htmlHeadElements,
		htmlKindHeadNoscript: htmlHeadNoscript, htmlKindMarker: htmlMarkers,
		htmlKindVoid: htmlVoidElements, htmlKindSpecial: htmlSpecial,
	} {
		for a := range list {
			i := htmlKindSlot(a)
			for t[i].a != 0 && t[i].a != a {
				i = (i + 1) % uint32(len(t))
			}
			t[i].a = a
			t[i].k |= k
		}
	}
	return t
}()

func htmlKindSlot(a atom.Atom) uint32 { return uint32(a) * 0x9E3779B1 >> 22 }

// htmlIs reports whether element a is of kind k.
func htmlIs(a atom.Atom, k htmlKind) bool {
	for i := htmlKindSlot(a); ; i = (i + 1) % uint32(len(htmlKinds)) {
		switch e := &htmlKinds[i]; e.a {
		case a:
			return e.k&k != 0
		case 0:
			return false
		}
	}
}

// tagName returns the name of the tag the tokenizer has just read, in lower case, as
// its TagName returns it but without the copy TagName makes: in b.name, valid until the
// next tag. A name holding NUL, which TagName changes, is read through TagName.
func (b *htmlBuilder) tagName() []byte {
	raw := htmlRawTagName(b.z.Raw())
	if bytes.IndexByte(raw, 0) >= 0 {
		name, _ := b.z.TagName()
		return name
	}
	b.name = b.name[:0]
	for _, c := range raw {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.name = append(b.name, c)
	}
	return b.name
}

// htmlReadAttrs appends to attrs the attributes of the start tag z has just read that
// keep reports true for (all of them when keep is nil), through the tokenizer's
// TagAttr.
func htmlReadAttrs(attrs []html.Attribute, z *html.Tokenizer, keep func(key []byte) bool) []html.Attribute {
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if keep != nil && !keep(k) {
			continue
		}
		key := atom.Lookup(k).String() // no allocation for the names HTML knows
		if key == "" {
			key = string(k)
		}
		attrs = append(attrs, html.Attribute{Key: key, Val: string(v)})
	}
	return attrs
}

// htmlTreeKeeps reports whether htmlTree keeps an attribute named key in its nodes:
// those the main text (hidden, landmarks, class and id names, permalinks, code
// languages, the type of an <input>, the align of a picture's box) and htmlFromTree
// (links, metadata) read. A heuristic that reads another needs it added here.
func htmlTreeKeeps(key []byte) bool {
	switch string(key) {
	case "class", "id", "role", "style", "hidden", "aria-hidden", "itemprop", "lang",
		"href", "src", "rel", "alt", "title", "name", "content", "property", "http-equiv", "type", "align":
		return true
	}
	return false
}

// htmlHeadElements lists the elements that stay in the head when they come before the
// body.
var htmlHeadElements = map[atom.Atom]bool{
	atom.Base: true, atom.Basefont: true, atom.Bgsound: true, atom.Link: true, atom.Meta: true,
	atom.Title: true, atom.Style: true, atom.Script: true, atom.Noscript: true,
	atom.Noframes: true, atom.Template: true,
}

// htmlHeadNoscript lists the elements a <noscript> in the head may hold with scripting
// off; any other ends it and starts the body.
var htmlHeadNoscript = map[atom.Atom]bool{
	atom.Basefont: true, atom.Bgsound: true, atom.Link: true, atom.Meta: true,
	atom.Noframes: true, atom.Style: true,
}

// htmlClosesP lists the elements whose start tag closes an open <p>.
var htmlClosesP = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Center: true, atom.Details: true, atom.Dialog: true, atom.Dir: true, atom.Div: true,
	atom.Dl: true, atom.Fieldset: true, atom.Figcaption: true, atom.Figure: true,
	atom.Footer: true, atom.Header: true, atom.Hgroup: true, atom.Main: true, atom.Menu: true,
	atom.Nav: true, atom.Ol: true, atom.P: true, atom.Search: true, atom.Section: true,
	atom.Summary: true, atom.Ul: true, atom.Pre: true, atom.Listing: true, atom.Form: true,
	atom.Plaintext: true, atom.Hr: true, atom.Xmp: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Dd: true, atom.Dt: true,
	atom.Li: true,
}

// htmlMarkers lists the elements an <a> start tag does not look past for an open <a>.
var htmlMarkers = map[atom.Atom]bool{
	atom.Html: true, atom.Td: true, atom.Th: true, atom.Caption: true, atom.Object: true,
	atom.Applet: true, atom.Marquee: true, atom.Template: true, atom.Table: true,
}

// htmlVoidElements lists the elements that have no content and no end tag.
var htmlVoidElements = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Basefont: true, atom.Bgsound: true, atom.Br: true,
	atom.Col: true, atom.Embed: true, atom.Frame: true, atom.Hr: true, atom.Img: true,
	atom.Input: true, atom.Keygen: true, atom.Link: true, atom.Meta: true, atom.Param: true,
	atom.Source: true, atom.Track: true, atom.Wbr: true,
}

// htmlSpecial lists the HTML elements of the parser's "special" category: an end tag
// of another element does not close what is open outside them.
var htmlSpecial = map[atom.Atom]bool{
	atom.Address: true, atom.Applet: true, atom.Area: true, atom.Article: true, atom.Aside: true,
	atom.Base: true, atom.Basefont: true, atom.Bgsound: true, atom.Blockquote: true,
	atom.Body: true, atom.Br: true, atom.Button: true, atom.Caption: true, atom.Center: true,
	atom.Col: true, atom.Colgroup: true, atom.Dd: true, atom.Details: true, atom.Dir: true,
	atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Embed: true, atom.Fieldset: true,
	atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Form: true,
	atom.Frame: true, atom.Frameset: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Head: true, atom.Header: true,
	atom.Hgroup: true, atom.Hr: true, atom.Html: true, atom.Iframe: true, atom.Img: true,
	atom.Input: true, atom.Keygen: true, atom.Li: true, atom.Link: true, atom.Listing: true,
	atom.Main: true, atom.Marquee: true, atom.Menu: true, atom.Meta: true, atom.Nav: true,
	atom.Noembed: true, atom.Noframes: true, atom.Noscript: true, atom.Object: true,
	atom.Ol: true, atom.P: true, atom.Param: true, atom.Plaintext: true, atom.Pre: true,
	atom.Script: true, atom.Search: true, atom.Section: true, atom.Select: true,
	atom.Source: true, atom.Style: true, atom.Summary: true, atom.Table: true,
	atom.Tbody: true, atom.Td: true, atom.Template: true, atom.Textarea: true,
	atom.Tfoot: true, atom.Th: true, atom.Thead: true, atom.Title: true, atom.Tr: true,
	atom.Track: true, atom.Ul: true, atom.Wbr: true, atom.Xmp: true,
}
