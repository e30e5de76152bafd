package extract

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/politecrawl/crawl/extract/lang"
)

// htmlTokenScan fills p from a document with one pass of the tokenizer, which keeps no
// tree and so has no depth limit: for a document that html.Parse refused (nesting
// deeper than 512 elements) or one whose caller asked for HTMLOptions.TokenScan. It finds what htmlFromTree finds, with two approximations: main text is the
// text of the whole body less the subtrees textSkip and <header> name (no <main> or
// <article> preference), and element nesting is tracked by start and end tags only.
func htmlTokenScan(p *Page, page *canonParts, body []byte, opts HTMLOptions, req *reqScan) {
	htmlScan(p, page, body, opts, htmlSkipText, req)
}

// htmlScan is htmlTokenScan jumping over the runs of text of skipText bytes or more
// that it has no use for (see htmlSkipText); it fills p the same whatever skipText.
// When req is not nil, every token is also handed to req, so that the requisites are
// found in the same pass.
func htmlScan(p *Page, page *canonParts, body []byte, opts HTMLOptions, skipText int, req *reqScan) {
	type rawLink struct{ tag, href, rel, text string }
	var (
		links    []rawLink
		baseHref string
		haveBase bool
		agent    = robotsMetaToken(opts.Agent)
		text     = textWriter{max: opts.MaxTextBytes, lines: true}
		anchor   *textWriter // text of the <a> being read
		anchorAt = -1        // index in links of that <a>
		alt      string      // alt of the first <img> with one in that <a>
		title    string      // title attribute of that <a>
		hidden   = 0         // depth inside <script>, <style> or <template>, whose text is no anchor text
		skip     = 0         // depth inside elements whose text is not main text
		foreign  = 0         // depth inside <svg> or <math>
		// points are the HTML integration points open (an SVG <foreignObject>, <desc>
		// or <title>, a MathML <mi>, <mo>, <mn>, <ms> or <mtext>), each with the depth
		// of foreign content it interrupts: their content is HTML again, whose links
		// count, as the parser reads it, but whose text is not main text.
		points   []htmlPoint
		inTitle  = false
		seenHTML = false
		attrs    []html.Attribute // of the start tag being read, when htmlScanAttrs lists it
		ends     htmlEndsSeen     // where the end tags of <title>s and <textarea>s were looked for
	)
	inStyle := func() bool { return req != nil && req.inStyle }
	// reads reports whether the link scan reads the text at this point: the title, an
	// anchor's text, or main text.
	reads := func() bool {
		return inTitle || anchor != nil || opts.WithText && skip == 0 && foreign == 0 && len(points) == 0
	}
	// endAnchor gives the <a> being read its text, as htmlAnchorText does for the tree:
	// its text, else the alt of an image in it, else its title.
	endAnchor := func() {
		if anchor != nil {
			links[anchorAt].text = htmlAnchorFallback(anchor.String(), alt, title)
		}
		anchor, anchorAt, alt, title = nil, -1, "", ""
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	pos := 0         // offset in body of the next token
	rawNext := false // the next token is the content of a raw text element
	for {
		// The tokenizer reads text a byte at a time. A long run of text that nobody
		// reads, in the data state, is jumped over: a new tokenizer starts at the
		// next '<', where the text would have ended or gone on as text.
		if !rawNext && !reads() && !inStyle() {
			run := bytes.IndexByte(body[pos:], '<')
			if run < 0 {
				run = len(body) - pos
			}
			if run >= skipText {
				pos += run
				z = html.NewTokenizer(bytes.NewReader(body[pos:]))
			}
		}
		tt := z.Next()
		pos += len(z.Raw())
		rawNext = false
		if tt == html.ErrorToken {
			break // io.EOF: the body is in memory, so no other error can occur
		}
		switch tt {
		case html.TextToken:
			if !reads() && !inStyle() {
				continue // text nobody reads is not copied
			}
			raw := z.Text() // which can be read only once
			if inStyle() {
				req.text(raw)
			}
			if !reads() {
				continue
			}
			data := string(raw)
			if inTitle {
				if p.Title == "" {
					p.Title = htmlCollapse(data)
				}
				continue
			}
			if anchor != nil && hidden == 0 {
				anchor.write(data)
			}
			if opts.WithText && skip == 0 && foreign == 0 && len(points) == 0 {
				text.write(data)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			rawNext = htmlRawText[a]
			inTitle = false // a tag ends a <title> whose end tag is missing (see htmlUnended)
			// Attributes are copied only for the elements read below (and style
			// attributes when looking for requisites), so that markup of many small
			// elements costs no allocation per element.
			attrs = attrs[:0]
			all := htmlScanAttrs[a] || a == atom.Font || a == atom.Img && anchor != nil && alt == "" || req != nil && req.wants(a, name)
			for more := hasAttr; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				if all || req != nil && string(k) == "style" {
					attrs = append(attrs, html.Attribute{Key: string(k), Val: string(v)})
				}
			}
			if req != nil {
				req.start(tt == html.StartTagToken, name, a, attrs)
			}
			if a == atom.Svg || a == atom.Math {
				if tt == html.StartTagToken {
					foreign++
				}
				continue
			}
			if foreign > 0 && htmlBreaksOut(a, attrs) {
				// An HTML element ends the foreign content it is in, as the parser
				// reads it (an <svg> left open, then a <div>): it pops the elements
				// up to the nearest HTML one or integration point and reads the tag
				// as HTML.
				foreign = 0
			}
			if foreign > 0 {
				// As the parser does: no raw text in foreign content (an SVG <title>).
				z.NextIsNotRawText()
				rawNext = false
				if tt == html.StartTagToken && htmlPoints[a] {
					points = append(points, htmlPoint{a, foreign})
					foreign = 0
				}
				continue
			}
			if a == atom.Noscript {
				// Scripting is off, as for the tree: its content is markup.
				z.NextIsNotRawText()
				rawNext = false
			}
			// An element whose end tag the document lacks ends at the next tag, as
			// htmlTree reads it: it is not counted as open.
			unended := (a == atom.Title || a == atom.Textarea) && htmlUnended(body, pos, a.String(), ends.of(a))
			if unended {
				z.NextIsNotRawText()
				rawNext = false
			}
			if tt == html.StartTagToken && (a == atom.Script || a == atom.Style || a == atom.Template) {
				hidden++
			}
			attr := func(key string) (string, bool) { return htmlAttrOf(attrs, key) }
			switch a {
			case atom.Html:
				if !seenHTML {
					seenHTML = true
					if lang, _ := attr("lang"); strings.TrimSpace(lang) != "" {
						p.Lang = strings.TrimSpace(lang)
					}
				}
			case atom.Base:
				if href, ok := attr("href"); ok && !haveBase {
					baseHref, haveBase = href, true
				}
			case atom.Title:
				inTitle = tt == html.StartTagToken
			case atom.Meta:
				name, _ := attr("name")
				property, _ := attr("property")
				equiv, _ := attr("http-equiv")
				content, _ := attr("content")
				htmlMeta(p, agent, name, property, equiv, content)
			case atom.A, atom.Area, atom.Link, atom.Iframe, atom.Frame:
				key := "href"
				if a == atom.Iframe || a == atom.Frame {
					key = "src"
				}
				href, ok := attr(key)
				if a == atom.A {
					endAnchor() // an <a> closes the previous one
				}
				if !ok {
					break
				}
				rel, _ := attr("rel")
				l := rawLink{tag: a.String(), href: href, rel: rel}
				switch a {
				case atom.Area:
					alt, _ := attr("alt")
					l.text = htmlCut(htmlCollapse(alt), htmlMaxAnchorText)
				case atom.A:
					// A self-closing <a/> opens an element all the same, as the
					// parser reads it.
					anchor, anchorAt = &textWriter{max: htmlMaxAnchorText}, len(links)
					title, _ = attr("title")
				}
				links = append(links, l)
			case atom.Img:
				if anchor != nil && alt == "" {
					alt, _ = attr("alt")
				}
			}
			if tt == html.StartTagToken && (textSkip[a] || a == atom.Header) && !htmlVoid[a] && !unended {
				skip++
			}
			if opts.WithText && textBlock[a] {
				text.block()
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			inTitle = false
			if req != nil {
				req.end(a)
			}
			if n := len(points); n > 0 && foreign == 0 && points[n-1].tag == a {
				foreign = points[n-1].foreign
				points = points[:n-1]
				continue
			}
			switch {
			case a == atom.Svg || a == atom.Math:
				if foreign > 0 {
					foreign--
				}
			case foreign > 0:
			case a == atom.A:
				endAnchor()
			}
			if foreign == 0 && (a == atom.Script || a == atom.Style || a == atom.Template) && hidden > 0 {
				hidden--
			}
			if foreign == 0 && (textSkip[a] || a == atom.Header) && !htmlVoid[a] && skip > 0 {
				skip--
			}
			if opts.WithText && textBlock[a] {
				text.block()
			}
		}
	}
	endAnchor()
	base := page
	if haveBase {
		if b, ok := htmlBase(page, baseHref); ok {
			p.Base, base = b.String(), &b
		}
	}
	for _, l := range links {
		htmlAddLink(p, base, l.tag, l.href, l.rel, l.text, opts.MaxLinks)
	}
	if opts.WithText {
		p.Text = text.String()
		p.SimHash = TextSimHash(p.Text)
		if opts.Language {
			p.Languages = lang.DetectAll(p.Text)
		}
	}
}

// htmlSkipText is the shortest run of text, in bytes, that htmlTokenScan jumps over
// when it has no use for it: shorter runs cost less to read than a new tokenizer.
const htmlSkipText = 1 << 10

// htmlRawText lists the elements whose start tag (self-closing or not) makes the
// tokenizer read what follows as raw text, up to their end tag.
var htmlRawText = map[atom.Atom]bool{
	atom.Iframe: true, atom.Noembed: true, atom.Noframes: true, atom.Noscript: true,
	atom.Plaintext: true, atom.Script: true, atom.Style: true, atom.Textarea: true,
	atom.Title: true, atom.Xmp: true,
}

// htmlPoint is an HTML integration point open in foreign content: its element and the
// depth of foreign content around it.
type htmlPoint struct {
	tag     atom.Atom
	foreign int
}

// htmlPoints lists the elements of SVG and MathML whose content is HTML (HTML, "tree
// construction", HTML and MathML text integration points).
var htmlPoints = map[atom.Atom]bool{
	atom.Foreignobject: true, atom.Desc: true, atom.Title: true,
	atom.Mi: true, atom.Mo: true, atom.Mn: true, atom.Ms: true, atom.Mtext: true,
}

// htmlBreaksOut reports whether a start tag of element a with attributes attrs ends
// foreign content, as the parser says ("tree construction", "parsing tokens in foreign
// content"): the elements htmlBreakouts lists, and <font> with a color, face or size
// attribute.
func htmlBreaksOut(a atom.Atom, attrs []html.Attribute) bool {
	if a != atom.Font {
		return htmlBreakouts[a]
	}
	for _, at := range attrs {
		if at.Key == "color" || at.Key == "face" || at.Key == "size" {
			return true
		}
	}
	return false
}

// htmlAttrOf returns the value of the first attribute in attrs named key; ok is false
// when there is none.
func htmlAttrOf(attrs []html.Attribute, key string) (string, bool) {
	for _, at := range attrs {
		if at.Key == key {
			return at.Val, true
		}
	}
	return "", false
}

// htmlBreakouts lists the HTML elements whose start tag ends foreign content.
var htmlBreakouts = map[atom.Atom]bool{
	atom.B: true, atom.Big: true, atom.Blockquote: true, atom.Body: true, atom.Br: true,
	atom.Center: true, atom.Code: true, atom.Dd: true, atom.Div: true, atom.Dl: true,
	atom.Dt: true, atom.Em: true, atom.Embed: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Head: true,
	atom.Hr: true, atom.I: true, atom.Img: true, atom.Li: true, atom.Listing: true,
	atom.Menu: true, atom.Meta: true, atom.Nobr: true, atom.Ol: true, atom.P: true,
	atom.Pre: true, atom.Ruby: true, atom.S: true, atom.Small: true, atom.Span: true,
	atom.Strong: true, atom.Strike: true, atom.Sub: true, atom.Sup: true, atom.Table: true,
	atom.Tt: true, atom.U: true, atom.Ul: true, atom.Var: true,
}

// htmlScanAttrs lists the elements whose attributes htmlTokenScan reads.
var htmlScanAttrs = map[atom.Atom]bool{
	atom.Html: true, atom.Base: true, atom.Meta: true, atom.A: true, atom.Area: true,
	atom.Link: true, atom.Iframe: true, atom.Frame: true,
}

// htmlVoid lists elements that have no end tag, so they never open a skipped subtree.
var htmlVoid = map[atom.Atom]bool{
	atom.Input: true, atom.Embed: true, atom.Frame: true, atom.Br: true, atom.Hr: true,
	atom.Img: true, atom.Meta: true, atom.Link: true, atom.Base: true,
}
