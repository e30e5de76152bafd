package extract

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"github.com/politecrawl/crawl/extract/lang"
)

// Defaults used when the HTMLOptions field is zero.
const (
	DefaultMaxLinks     = 10000   // distinct link URLs kept per page
	DefaultMaxTextBytes = 1 << 20 // bytes of main text kept per page (1 MiB)
	DefaultMaxHTMLBytes = 2 << 20 // bytes of a body parsed (2 MiB)
)

// htmlMaxAnchorText bounds the anchor text kept per link, in bytes.
const htmlMaxAnchorText = 512

// HTMLOptions tunes HTML. The zero value extracts links, metadata and directives with
// the default limits and no text.
type HTMLOptions struct {
	// Agent is the crawler's product token ("ExampleBot"), or a whole User-Agent value
	// whose leading token is used. <meta name="ExampleBot"> and "examplebot:" lines of
	// X-Robots-Tag apply to it, case-insensitively. Empty means only directives for all
	// robots apply.
	Agent string
	// WithText asks for Page.Text, the page's main text with boilerplate removed.
	WithText bool
	// TextFormat is the form of Page.Text; the zero value is TextPlain.
	TextFormat TextFormat
	// Language asks for Page.Languages, detected from the main text by package lang
	// (about an eighth more CPU than WithText alone); it needs WithText. False: none.
	Language bool
	// MaxTextBytes bounds Page.Text in bytes (cut at a character boundary); zero means
	// DefaultMaxTextBytes.
	MaxTextBytes int
	// MaxLinks bounds len(Page.Links), which holds each URL once: a link to a URL already
	// in Links does not count, so a table of contents with ten thousand links to a few
	// hundred pages (one per #fragment) keeps them all. Links to new URLs past the bound
	// are counted in Page.Skipped["limit"]. Zero means DefaultMaxLinks.
	MaxLinks int
	// MaxHTMLBytes bounds the bytes of the body that are parsed; the rest is not read,
	// so that the time and memory of parsing stay bounded whatever the page. The cut
	// falls before the last tag that starts within the bound. Page.Truncated is then
	// set, and the links the rest holds (its <a>, <area>, <iframe> and <frame> start
	// tags, counted without parsing) are counted in Page.Skipped["truncated"]. Zero
	// means DefaultMaxHTMLBytes.
	MaxHTMLBytes int
	// TokenScan reads the body with one pass of the tokenizer instead of building a
	// tree, for about half the CPU and a fraction of the allocations: for a caller that
	// needs the links and metadata only. It is ignored when WithText is set (the text
	// heuristic needs a tree). In well-formed markup it finds what the tree finds, the
	// same Page; in tag soup that the HTML parser rearranges it may differ in a few
	// links and anchor texts (an <a> inside <select> or a <frame> outside a <frameset>,
	// which the parser drops, is kept; an <a> the parser re-opens is seen once). An
	// HTML element that ends an <svg> or <math> left open (a <div>, a <p>, a <meta>)
	// ends it for the scan too, as for the parser. Page.Fallback stays false. False
	// builds the tree.
	TokenScan bool
	// WithRequisites asks for Page.Requisites, what HTMLRequisites would return for the
	// same page, header and MaxHTMLBytes, found in the same pass of the tokenizer as the
	// links rather than in a pass of its own.
	WithRequisites bool
	// MaxRequisites bounds len(Page.Requisites.Found) as RequisiteOptions.MaxRequisites
	// does; zero means DefaultMaxRequisites.
	MaxRequisites int
}

// Page is what an HTML document says about itself and what it points to. Strings are
// valid UTF-8 with white space collapsed, "" when the page has none.
type Page struct {
	Title       string `json:"title,omitempty"`       // the first <title> outside SVG and MathML
	Lang        string `json:"lang,omitempty"`        // <html lang>, else <meta http-equiv="content-language">, else the Content-Language header
	Canonical   string `json:"canonical,omitempty"`   // <link rel="canonical" href> resolved like Links, "" if absent or unusable
	Description string `json:"description,omitempty"` // <meta name="description">, else <meta property="og:description">
	Text        string `json:"text,omitempty"`        // the main text when HTMLOptions.WithText, boilerplate removed, in HTMLOptions.TextFormat (plain: one line per paragraph, heading, list item and table row)
	// SimHash is the SimHash of the main text as plain text (TextSimHash), when
	// HTMLOptions.WithText; 0 when the text has no word.
	SimHash SimHash `json:"simhash,omitempty"`
	Base    string  `json:"base,omitempty"` // the <base href> links resolve against, resolved itself; "" when absent or unusable
	// Languages are the languages of Text when HTMLOptions.Language: that of the
	// script holding most of its letters first, then those of other scripts holding
	// at least a tenth (see lang.DetectAll); nil when Text has no letters.
	Languages []lang.Result `json:"languages,omitempty"`
	// Links are the outgoing links in document order, one per URL (the first link to it;
	// see Link.NoFollow for the others), at most HTMLOptions.MaxLinks.
	Links []Link `json:"links,omitempty"`
	// Robots are the directives of <meta name="robots">, <meta name=AGENT> and the
	// X-Robots-Tag header, merged. Robots.NoFollow means no link of the page may enter
	// the frontier; Links are returned all the same, for the caller to log.
	Robots Directives `json:"robots"`
	// Skipped counts the hrefs not returned in Links, by reason: "fragment"
	// (same-document "#..." in a page without <base href>), "javascript", "mailto",
	// "tel", "data", "scheme" (another non-http scheme), "malformed" (cannot be resolved
	// to an http or https URL), "limit" (a new URL past MaxLinks) and "truncated" (past
	// MaxHTMLBytes, not parsed). Links to a URL already in Links are not counted. nil
	// when nothing was skipped.
	Skipped map[string]int `json:"skipped,omitempty"`
	// Charset is the WHATWG name of the encoding the body was read in, such as "utf-8"
	// or "windows-1252".
	Charset string `json:"charset"`
	// Fallback is true when the document was not built as a tree (elements nested
	// deeper than 512, which the HTML parser refuses, or more than 512 KiB of HTML,
	// whose tree could take 30 times that) and was read by a token scan instead:
	// links, metadata and directives are still found, but the text heuristic has no
	// tree to prefer <main> or <article> by. With text, a body too large for a tree
	// has its main text chosen in the tree of its first 512 KiB (scripts, styles and
	// comments left out) when the text ends there, before comments, say.
	Fallback bool `json:"fallback,omitempty"`
	// Truncated is true when the body was longer than HTMLOptions.MaxHTMLBytes and only
	// its first part was parsed.
	Truncated bool `json:"truncated,omitempty"`
	// Requisites is what the page needs to be shown when HTMLOptions.WithRequisites (see
	// HTMLRequisites), nil otherwise.
	Requisites *Requisites `json:"-"`

	linkAt map[string]int // index in Links by URL, while links are added
}

// Link is one outgoing reference of a page.
type Link struct {
	// URL is absolute, resolved against the page's <base href> or the page URL and
	// normalised as (*URLRules)(nil).Canonical does: no parameter is stripped yet, so
	// pass it through the crawl's URLRules before it reaches the frontier.
	URL string `json:"url"`
	// Tag is the element it came from: "a", "area", "link", "iframe" or "frame".
	Tag string `json:"tag"`
	// Rel holds the lower-case rel values, such as "nofollow", "ugc", "sponsored",
	// "canonical" or "alternate"; nil when there are none.
	Rel []string `json:"rel,omitempty"`
	// Text is the anchor text (for "a": its text, else the alt of an image inside, else
	// its title; for "area": alt), white space collapsed, at most 512 bytes.
	Text string `json:"text,omitempty"`
	// NoFollow reports rel="nofollow" on every link of the page to URL: the page asks
	// that it not be followed. One link to URL without it clears it.
	NoFollow bool `json:"nofollow,omitempty"`
}

// HTML extracts links, metadata, robots directives and optionally text from an HTML
// document. pageURL is the URL the body was fetched from (after redirects); header is
// the response header (Content-Type, Content-Language and X-Robots-Tag are read; nil is
// allowed); body is the raw, already decompressed response body. HTML parses, never
// fetches.
//
// Bad markup and bad bytes never fail a page: the body is decoded as charsetDecode
// describes, invalid bytes become U+FFFD, and markup is parsed as browsers parse it. The
// only error is a pageURL that is nil or not an absolute http or https URL with a valid
// host (a *URLError with Op "html"), because links could not be resolved against it.
//
// HTML is safe for simultaneous use by multiple goroutines. Its time and memory are
// linear in min(len(body), MaxHTMLBytes); the returned Page shares no memory with body.
// A body in UTF-8 (or ASCII in an ASCII-compatible encoding) is parsed in place, not
// copied.
func HTML(pageURL *url.URL, header http.Header, body []byte, opts HTMLOptions) (*Page, error) {
	if pageURL == nil {
		return nil, canonErr("html", "", ErrRelative)
	}
	base, err := (*URLRules)(nil).canonParse(pageURL.String())
	if err != nil {
		return nil, canonErr("html", pageURL.String(), err)
	}
	if opts.MaxLinks <= 0 {
		opts.MaxLinks = DefaultMaxLinks
	}
	if opts.MaxTextBytes <= 0 {
		opts.MaxTextBytes = DefaultMaxTextBytes
	}
	if opts.MaxHTMLBytes <= 0 {
		opts.MaxHTMLBytes = DefaultMaxHTMLBytes
	}
	body, rest := htmlPrefix(body, opts.MaxHTMLBytes)
	text, cs := charsetDecode(body, header.Get("Content-Type"))
	p := &Page{Charset: cs, Truncated: rest != nil}
	if n := htmlCountLinks(rest); n > 0 {
		p.Skipped = map[string]int{"truncated": n}
	}
	var req *reqScan
	if opts.WithRequisites {
		if opts.MaxRequisites <= 0 {
			opts.MaxRequisites = DefaultMaxRequisites
		}
		p.Requisites = &Requisites{max: opts.MaxRequisites, Charset: cs, Truncated: p.Truncated}
		linkHeader(p.Requisites, &base, header)
		req = &reqScan{}
	}
	if opts.TokenScan && !opts.WithText {
		htmlTokenScan(p, &base, text, opts, req)
		return htmlFinish(p, header, &base, req, opts), nil
	}
	var root *html.Node
	var refs *htmlRefs
	err = errHTMLTooLarge
	withTree := req != nil // the requisites are found with the tree, unless its body is stripped
	switch {
	case len(text) <= htmlMaxTreeBytes:
		root, refs, err = htmlTree(text, req, 0)
	case opts.WithText:
		// Pages of more than 512 KiB are most often inline scripts, styles and SVG:
		// without them, the tree the text needs may fit.
		withTree = false
		root, refs, err = htmlTree(text, nil, htmlMaxTreeBytes)
	}
	if err != nil {
		p.Fallback = true
		if withTree {
			*req = reqScan{} // what the tree's pass found before it failed
		}
		htmlTokenScan(p, &base, text, opts, req)
		if root != nil && opts.WithText {
			// The body is too large for a tree even without its scripts and styles,
			// most often for the comments or the lists that follow the article: the
			// main text is chosen in the tree of its first htmlMaxTreeBytes, and is
			// the page's when it ends there (the token scan's text is all the text of
			// the page).
			textBase := &base
			if p.Base != "" {
				if b, ok := htmlBase(&base, p.Base); ok {
					textBase = &b
				}
			}
			htmlText(p, root, refs.nodes, textBase, opts, true)
		}
	} else {
		htmlFromTree(p, &base, root, refs, opts)
		if req != nil && !withTree {
			htmlScan(&Page{}, &base, text, HTMLOptions{MaxLinks: 1}, htmlSkipText, req)
		}
	}
	return htmlFinish(p, header, &base, req, opts), nil
}

// htmlFinish adds to p what the response header says (X-Robots-Tag, Content-Language)
// and the requisites req found, resolved against page or the document's <base href>,
// and returns p.
func htmlFinish(p *Page, header http.Header, page *canonParts, req *reqScan, opts HTMLOptions) *Page {
	if req != nil {
		req.finish(p.Requisites, page)
	}
	p.Robots = p.Robots.Merge(RobotsTag(header, opts.Agent))
	if p.Lang == "" {
		declared, _, _ := strings.Cut(header.Get("Content-Language"), ",")
		p.Lang = strings.TrimSpace(declared)
	}
	return p
}

// htmlMaxTreeBytes is the largest body, in bytes, parsed into a tree. A tree costs up
// to about 30 times the bytes of markup it is built from (an element of a few bytes,
// such as <br>, takes a node of more than 100); larger bodies are read by the token
// scan, whose memory does not grow with the number of elements.
const htmlMaxTreeBytes = 512 << 10

// errHTMLTooLarge stands for a body not parsed into a tree because of its size.
var errHTMLTooLarge = errors.New("extract: html too large for a tree")

// HTMLMemory returns about the most bytes HTML holds at once, beside the body itself,
// while reading a body of n bytes with opts: a tree of up to 32 bytes per byte of a body
// of at most 512 KiB, or for a larger body the token scan's buffers (4 bytes per byte
// of the MaxHTMLBytes read) and what it keeps (links and text, 4 MiB), and with
// WithText the tree of that body without scripts, styles and SVG (at most 512 KiB of
// it). A caller that bounds the memory of many pages at once reserves it before calling
// HTML.
func HTMLMemory(n int64, opts HTMLOptions) int64 {
	if opts.MaxHTMLBytes <= 0 {
		opts.MaxHTMLBytes = DefaultMaxHTMLBytes
	}
	n = min(max(n, 0), int64(opts.MaxHTMLBytes))
	if n <= htmlMaxTreeBytes {
		return 32 * n
	}
	if opts.WithText {
		// The tree of the body without scripts, styles and SVG.
		return 4*n + 4<<20 + 33*htmlMaxTreeBytes
	}
	return 4*n + 4<<20
}

// htmlPrefix cuts body to at most maxBytes, before the last '<' within them when
// there is one in their second half (so that no tag is cut in two), and returns the
// prefix and the rest (nil when body is not cut).
func htmlPrefix(body []byte, maxBytes int) (prefix, rest []byte) {
	if len(body) <= maxBytes {
		return body, nil
	}
	cut := maxBytes
	if i := bytes.LastIndexByte(body[:maxBytes], '<'); i >= maxBytes/2 {
		cut = i
	}
	return body[:cut], body[cut:]
}

// htmlCountLinks counts the start tags of <a>, <area>, <iframe> and <frame> in b,
// case-insensitively and without parsing or allocating: the links a part of a page
// left unparsed would have given, about.
func htmlCountLinks(b []byte) int {
	n := 0
	for {
		i := bytes.IndexByte(b, '<')
		if i < 0 {
			return n
		}
		b = b[i+1:]
		name := b[:min(len(b), 7)]
		for _, tag := range htmlLinkTags {
			if len(name) > len(tag) && bytes.EqualFold(name[:len(tag)], tag) && htmlTagEnd(name[len(tag)]) {
				n++
				break
			}
		}
	}
}

var htmlLinkTags = [][]byte{[]byte("a"), []byte("area"), []byte("iframe"), []byte("frame")}

// htmlTagEnd reports whether c ends a tag name.
func htmlTagEnd(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>'
}

// htmlRefs are the nodes of a tree that htmlFromTree reads, in document order: what
// goquery's selectors "base[href]", "meta", "title", "html" and "a[href], area[href],
// link[href], iframe[src], frame[src]" would select.
type htmlRefs struct {
	baseHref     *string // of the first <base> with an href
	title, html  *html.Node
	metas, links []*html.Node
	nodes        int // in the tree
}

// add notes n, the next node of the tree in document order.
func (r *htmlRefs) add(n *html.Node) {
	r.nodes++
	if n.Type != html.ElementNode {
		return
	}
	switch n.Data {
	case "base":
		if v, ok := htmlAttrAny(n, "href"); ok && r.baseHref == nil {
			r.baseHref = &v
		}
	case "meta":
		r.metas = append(r.metas, n)
	case "title":
		if r.title == nil && n.Namespace == "" {
			r.title = n
		}
	case "html":
		if r.html == nil {
			r.html = n
		}
	case "a", "area", "link":
		if _, ok := htmlAttrAny(n, "href"); ok && n.Namespace == "" {
			r.links = append(r.links, n)
		}
	case "iframe", "frame":
		if _, ok := htmlAttrAny(n, "src"); ok && n.Namespace == "" {
			r.links = append(r.links, n)
		}
	}
}

// htmlRefsOf finds the htmlRefs of a tree in one walk.
func htmlRefsOf(root *html.Node) *htmlRefs {
	r := &htmlRefs{}
	stack := []*html.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		r.add(n)
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
	return r
}

// htmlFromTree fills p from a tree and its htmlRefs.
func htmlFromTree(p *Page, page *canonParts, root *html.Node, refs *htmlRefs, opts HTMLOptions) {
	baseHref, titleNode, htmlNode, metas, links := refs.baseHref, refs.title, refs.html, refs.metas, refs.links
	base := page
	if baseHref != nil {
		if b, ok := htmlBase(page, *baseHref); ok {
			p.Base, base = b.String(), &b
		}
	}
	agent := robotsMetaToken(opts.Agent)
	for _, n := range metas {
		content, _ := htmlAttrAny(n, "content")
		name, _ := htmlAttrAny(n, "name")
		property, _ := htmlAttrAny(n, "property")
		equiv, _ := htmlAttrAny(n, "http-equiv")
		htmlMeta(p, agent, name, property, equiv, content)
	}
	if titleNode != nil {
		p.Title = htmlCollapse(htmlNodeText(titleNode))
	}
	if htmlNode != nil {
		if v, ok := htmlAttrAny(htmlNode, "lang"); ok && strings.TrimSpace(v) != "" {
			p.Lang = strings.TrimSpace(v)
		}
	}
	for _, n := range links {
		tag := n.Data
		attr := "href"
		if tag == "iframe" || tag == "frame" {
			attr = "src"
		}
		href, _ := htmlAttrAny(n, attr)
		rel, _ := htmlAttrAny(n, "rel")
		var text string
		switch tag {
		case "a":
			text = htmlAnchorText(n)
		case "area":
			alt, _ := htmlAttrAny(n, "alt")
			text = htmlCut(htmlCollapse(alt), htmlMaxAnchorText)
		}
		htmlAddLink(p, base, tag, href, rel, text, opts.MaxLinks)
	}
	if opts.WithText {
		htmlText(p, root, refs.nodes, base, opts, false)
	}
}

// htmlText sets p's main text, its SimHash and its languages from a tree of about size
// nodes, p.Title being set. With cut, the tree is that of the body's beginning, and p is
// left as it is when the text may go on after it.
func htmlText(p *Page, root *html.Node, size int, base *canonParts, opts HTMLOptions, cut bool) {
	md := opts.TextFormat == TextMarkdown
	c, open := textChoose(root, size, p.Title, md, false)
	if cut && open {
		return
	}
	// The plain text is wanted in any format, for SimHash and the languages; Markdown
	// is written from the same tree and the same blocks.
	plain := c.write(base, p.Title, opts.MaxTextBytes, false)
	if plain == "" && c.t.unshown {
		// All the page's text waits for a script to show it (textUnshown): it is read
		// as its readers see it once shown, when it holds prose (a cart's or a gate's
		// hidden lines are not the content of a page that has none).
		shown, open := textChoose(root, size, p.Title, md, true)
		if cut && open {
			return
		}
		if text, prose := shown.writeProse(base, p.Title, opts.MaxTextBytes, false); prose {
			c, plain = shown, text
		}
	}
	baseline := false
	if plain == "" || len(plain) < textBaselineShort && textProseChars(plain) == 0 {
		// Neither reading found a text, or only short lines without prose where the
		// page's paragraphs hold an article's: the paragraphs are the text.
		if b := textBaseline(root, opts.MaxTextBytes); plain == "" || textProseChars(b) >= textArticleMin {
			plain, baseline = b, true
		}
	}
	p.Text = plain
	switch {
	case baseline && opts.TextFormat == TextMarkdown:
		// The baseline's lines as Markdown paragraphs.
		p.Text = htmlCut(strings.ReplaceAll(plain, "\n", "\n\n"), opts.MaxTextBytes)
	case opts.TextFormat == TextMarkdown:
		p.Text = c.write(base, p.Title, opts.MaxTextBytes, true)
	}
	p.SimHash = TextSimHash(plain)
	p.Languages = nil
	if opts.Language {
		p.Languages = lang.DetectAll(plain)
	}
}

// htmlBase resolves a <base href> against the page; ok is false when it is unusable.
func htmlBase(page *canonParts, href string) (canonParts, bool) {
	s, err := (*URLRules)(nil).canonResolve(page, href)
	if err != nil {
		return canonParts{}, false
	}
	b, err := (*URLRules)(nil).canonParse(s)
	return b, err == nil
}

// htmlMeta applies one <meta> element to p.
func htmlMeta(p *Page, agent, name, property, equiv, content string) {
	name = strings.ToLower(strings.TrimSpace(name))
	switch {
	case name == "robots" || (agent != "" && name == agent):
		p.Robots = p.Robots.Merge(robotsMetaContent(content))
	case name == "description":
		if p.Description == "" {
			p.Description = htmlCollapse(content)
		}
	case strings.EqualFold(strings.TrimSpace(property), "og:description"):
		if p.Description == "" {
			p.Description = htmlCollapse(content)
		}
	case strings.EqualFold(strings.TrimSpace(equiv), "content-language"):
		if p.Lang == "" {
			lang, _, _ := strings.Cut(content, ",")
			p.Lang = strings.TrimSpace(lang)
		}
	}
}

// htmlFollowRels are the rel values for which a <link> element is a link to crawl.
var htmlFollowRels = map[string]bool{"canonical": true, "alternate": true, "next": true, "prev": true}

// htmlAddLink resolves and records one link, or counts why it was skipped.
func htmlAddLink(p *Page, base *canonParts, tag, href, rel, text string, maxLinks int) {
	rels := strings.Fields(strings.ToLower(rel))
	if tag == "link" {
		wanted := false
		for _, r := range rels {
			wanted = wanted || htmlFollowRels[r]
		}
		if !wanted {
			return // stylesheets, icons, preloads: not links to crawl
		}
	}
	u, reason := htmlResolve(base, href, p.Base != "")
	if reason != "" {
		htmlSkip(p, reason)
		return
	}
	nofollow := false
	for _, r := range rels {
		if r == "canonical" && tag == "link" && p.Canonical == "" {
			p.Canonical = u
		}
		nofollow = nofollow || r == "nofollow"
	}
	if i, dup := p.linkAt[u]; dup {
		// The same URL again (another #fragment, say): it does not count toward the
		// bound, and a followable link makes the URL followable.
		p.Links[i].NoFollow = p.Links[i].NoFollow && nofollow
		return
	}
	if len(p.Links) >= maxLinks {
		htmlSkip(p, "limit")
		return
	}
	if len(rels) == 0 {
		rels = nil
	}
	if p.linkAt == nil {
		p.linkAt = make(map[string]int)
	}
	p.linkAt[u] = len(p.Links)
	p.Links = append(p.Links, Link{URL: u, Tag: tag, Rel: rels, Text: text, NoFollow: nofollow})
}

func htmlSkip(p *Page, reason string) {
	if p.Skipped == nil {
		p.Skipped = make(map[string]int)
	}
	p.Skipped[reason]++
}

// htmlResolve resolves href against base, or says why it is not a link to crawl.
// hasBase reports that base comes from a <base href> rather than being the page's URL.
// An empty href means base itself, as browsers read it (HTML, "follow the hyperlink":
// the URL parser resolves "" to the base URL): with <base href> that is another
// document, without it the page itself. A fragment alone ("#top") is a link within the
// page, skipped, unless a <base href> sends it to the base URL.
func htmlResolve(base *canonParts, href string, hasBase bool) (u, reason string) {
	ref := canonClean(href)
	if ref != "" && ref[0] == '#' && !hasBase {
		return "", "fragment"
	}
	if scheme, _, ok := canonSplitScheme(ref); ok {
		switch s := strings.ToLower(scheme); s {
		case "http", "https":
		case "javascript", "mailto", "tel", "data":
			return "", s
		default:
			return "", "scheme"
		}
	}
	u, err := (*URLRules)(nil).canonResolve(base, ref)
	if err != nil {
		return "", "malformed"
	}
	return u, ""
}

// htmlAnchorText returns the text of an <a> element, else the alt of an image in it,
// else its title attribute.
func htmlAnchorText(n *html.Node) string {
	if t := textOf(n, htmlMaxAnchorText); t != "" {
		return t
	}
	var alt string
	for c := n; c != nil && alt == ""; c = htmlNext(n, c, false) {
		if c.Type == html.ElementNode && c.Data == "img" {
			alt = htmlAttr(c, "alt")
		}
	}
	return htmlAnchorFallback("", alt, htmlAttr(n, "title"))
}

// htmlAnchorFallback returns the text of an <a> element: its text when there is some,
// else the alt of its first image that has one, else its title attribute.
func htmlAnchorFallback(text, alt, title string) string {
	if text != "" {
		return text
	}
	if alt == "" {
		alt = title
	}
	return htmlCut(htmlCollapse(alt), htmlMaxAnchorText)
}

// htmlAttrAny returns the value of n's first attribute named key, whatever its
// namespace, as goquery's Attr does; ok is false when there is none.
func htmlAttrAny(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// htmlNodeText returns the text of the text nodes under n, as goquery's Text does.
func htmlNodeText(n *html.Node) string {
	var b strings.Builder
	stack := []*html.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
	return b.String()
}

func htmlAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// htmlCollapse trims s and collapses each run of white space to one space.
func htmlCollapse(s string) string {
	var t textWriter
	t.max = len(s)
	t.write(s)
	return t.String()
}

// htmlCut cuts s to at most n bytes at a character boundary; nothing for n below 1.
func htmlCut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
