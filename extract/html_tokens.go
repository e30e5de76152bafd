package extract

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlTokenScan fills p from a document that html.Parse refused (nesting deeper than
// 512 elements) with one pass of the tokenizer, which keeps no tree and so has no depth
// limit. It finds what htmlFromTree finds, with two approximations: main text is the
// text of the whole body less the subtrees textSkip and <header> name (no <main> or
// <article> preference), and element nesting is tracked by start and end tags only.
func htmlTokenScan(p *Page, page *canonParts, body []byte, opts HTMLOptions) {
	type rawLink struct{ tag, href, rel, text string }
	var (
		links    []rawLink
		baseHref string
		haveBase bool
		agent    = robotsMetaToken(opts.Agent)
		text     = textWriter{max: opts.MaxTextBytes, lines: true}
		anchor   *textWriter // text of the <a> being read
		anchorAt = -1        // index in links of that <a>
		skip     = 0         // depth inside elements whose text is not main text
		foreign  = 0         // depth inside <svg> or <math>
		inTitle  = false
		seenHTML = false
		attrs    []html.Attribute // of the start tag being read, when htmlScanAttrs lists it
	)
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break // io.EOF: the body is in memory, so no other error can occur
		}
		switch tt {
		case html.TextToken:
			if !inTitle && anchor == nil && (!opts.WithText || skip > 0 || foreign > 0) {
				continue // text nobody reads is not copied
			}
			data := string(z.Text())
			if inTitle {
				if p.Title == "" {
					p.Title = htmlCollapse(data)
				}
				continue
			}
			if anchor != nil {
				anchor.write(data)
			}
			if opts.WithText && skip == 0 && foreign == 0 {
				text.write(data)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Svg || a == atom.Math {
				if tt == html.StartTagToken {
					foreign++
				}
				continue
			}
			if foreign > 0 {
				continue
			}
			// Attributes are copied only for the elements read below, so that markup
			// of many small elements costs no allocation per element.
			attrs = attrs[:0]
			if hasAttr && htmlScanAttrs[a] {
				for more := true; more; {
					var k, v []byte
					k, v, more = z.TagAttr()
					attrs = append(attrs, html.Attribute{Key: string(k), Val: string(v)})
				}
			}
			attr := func(key string) (string, bool) {
				for _, at := range attrs {
					if at.Key == key {
						return at.Val, true
					}
				}
				return "", false
			}
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
					anchor, anchorAt = nil, -1 // an <a> closes the previous one
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
					if tt == html.StartTagToken {
						anchor, anchorAt = &textWriter{max: htmlMaxAnchorText}, len(links)
					}
				}
				links = append(links, l)
			}
			if tt == html.StartTagToken && (textSkip[a] || a == atom.Header) && !htmlVoid[a] {
				skip++
			}
			if opts.WithText && textBlock[a] {
				text.block()
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case a == atom.Svg || a == atom.Math:
				if foreign > 0 {
					foreign--
				}
			case foreign > 0:
			case a == atom.Title:
				inTitle = false
			case a == atom.A:
				if anchor != nil {
					links[anchorAt].text = anchor.String()
				}
				anchor, anchorAt = nil, -1
			}
			if foreign == 0 && (textSkip[a] || a == atom.Header) && !htmlVoid[a] && skip > 0 {
				skip--
			}
			if opts.WithText && textBlock[a] {
				text.block()
			}
		}
	}
	if anchor != nil {
		links[anchorAt].text = anchor.String()
	}
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
	}
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
