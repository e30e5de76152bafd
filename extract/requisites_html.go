package extract

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTMLRequisites returns what an HTML document needs to be shown, found without
// running its scripts: the targets of the Link response header (see
// LinkHeaderRequisites), then in document order
//   - img src and srcset (every candidate), picture's source srcset, input
//     type=image src, video poster, and the background attribute of body, table,
//     td and th (KindImage);
//   - link rel=stylesheet (KindStylesheet), rel=icon and apple-touch-icon
//     (KindIcon), rel=manifest (KindManifest), rel=preload (by its "as", with its
//     imagesrcset) and rel=modulepreload (KindScript);
//   - script src (KindScript), iframe and frame src (KindFrame), object data and
//     embed src (KindObject);
//   - video and audio src, and the src of their source and track elements
//     (KindVideo, KindAudio);
//   - SVG image and use href or xlink:href (KindImage);
//   - what the CSS of <style> blocks and style attributes refers to (see
//     CSSRequisites);
//
// resolved against the document's <base href>, or pageURL, the URL it was fetched
// from (after redirects). header is the response header (Content-Type and Link are
// read; nil is allowed); body is the raw, already decompressed response body,
// decoded as HTML does. HTMLRequisites parses, never fetches.
//
// Bad input never fails: the only error is a pageURL that is nil or not an absolute
// http or https URL with a valid host (a *URLError with Op "requisites"). It is safe
// for simultaneous use by multiple goroutines; it reads the body in one pass of the
// tokenizer, keeps no tree, and its time is linear in min(len(body), MaxHTMLBytes);
// the result shares no memory with body.
func HTMLRequisites(pageURL *url.URL, header http.Header, body []byte, opts RequisiteOptions) (*Requisites, error) {
	page, err := reqBase("requisites", pageURL)
	if err != nil {
		return nil, err
	}
	opts.defaults()
	r := &Requisites{max: opts.MaxRequisites}
	linkHeader(r, &page, header)
	body, rest := htmlPrefix(body, opts.MaxHTMLBytes)
	r.Truncated = rest != nil
	text, cs := charsetDecode(body, header.Get("Content-Type"))
	r.Charset = cs
	refs, baseHref, haveBase := htmlRequisiteScan(text)
	base := &page
	if haveBase {
		if b, ok := htmlBase(&page, baseHref); ok {
			base = &b
		}
	}
	for _, ref := range refs {
		r.add(base, ref.ref, ref.kind, ref.from)
	}
	r.at = nil
	return r, nil
}

// htmlRequisiteScan reads the references of a decoded HTML document to what it
// needs, unresolved, in document order, with the href of its first <base> element
// that has one.
func htmlRequisiteScan(body []byte) (refs []reqRef, baseHref string, haveBase bool) {
	var (
		z       = html.NewTokenizer(bytes.NewReader(body))
		foreign = 0         // depth inside <svg> or <math>
		media   []atom.Atom // open <picture>, <video> and <audio> elements, innermost last
		style   []byte      // the text of the <style> element being read
		inStyle = false
		attrs   []html.Attribute
		emitCSS = func(ref string, kind Kind) { refs = append(refs, reqRef{ref, kind, "style"}) }
		addRef  = func(ref string, kind Kind, from string) { refs = append(refs, reqRef{ref, kind, from}) }
		addSrcs = func(srcset string, from string) {
			for u := range srcsetURLs(srcset) {
				addRef(u, KindImage, from)
			}
		}
	)
	attr := func(key string) (string, bool) {
		for _, a := range attrs {
			if a.Key == key {
				return a.Val, true
			}
		}
		return "", false
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return refs, baseHref, haveBase
		case html.TextToken:
			if inStyle {
				style = append(style, z.Text()...)
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case a == atom.Style && inStyle:
				inStyle = false
				cssScan(style, emitCSS)
				style = style[:0]
			case a == atom.Svg || a == atom.Math:
				if foreign > 0 {
					foreign--
				}
			case a == atom.Picture || a == atom.Video || a == atom.Audio:
				if n := len(media); n > 0 {
					media = media[:n-1]
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if foreign > 0 && htmlBreakout(z, a, hasAttr) {
				foreign = 0
			}
			if foreign > 0 {
				z.NextIsNotRawText() // no raw text in foreign content, as the parser reads it
			} else if a == atom.Noscript {
				z.NextIsNotRawText() // scripting off: its content is markup
			}
			if a == atom.Style && tt == html.StartTagToken {
				inStyle, style = true, style[:0]
			}
			if (a == atom.Svg || a == atom.Math) && tt == html.StartTagToken {
				foreign++
			}
			if (a == atom.Picture || a == atom.Video || a == atom.Audio) && tt == html.StartTagToken {
				media = append(media, a)
			}
			// Attributes are copied only when the element or one of them is read
			// below, so that markup of many small elements costs no allocation.
			attrs = attrs[:0]
			want := htmlRequisiteTags[a] || foreign > 0 && (name2(name) == "image" || name2(name) == "use")
			for more := hasAttr; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				if want || string(k) == "style" {
					attrs = append(attrs, html.Attribute{Key: string(k), Val: string(v)})
				}
			}
			if s, ok := attr("style"); ok {
				cssScan([]byte(s), emitCSS)
			}
			if !want {
				continue
			}
			if foreign > 0 {
				// SVG <image> and <use>; an <image> outside SVG is an <img> to the parser.
				if n := name2(name); n != "" {
					href, ok := attr("href")
					if !ok {
						href, ok = attr("xlink:href")
					}
					if ok {
						addRef(href, KindImage, "svg:"+n)
					}
				}
				continue
			}
			from := a.String()
			switch a {
			case atom.Base:
				if href, ok := attr("href"); ok && !haveBase {
					baseHref, haveBase = href, true
				}
			case atom.Img, atom.Image:
				from = "img"
				if src, ok := attr("src"); ok {
					addRef(src, KindImage, from)
				}
				if srcset, ok := attr("srcset"); ok {
					addSrcs(srcset, from)
				}
			case atom.Source:
				kind := KindImage
				if n := len(media); n > 0 && media[n-1] == atom.Video {
					kind = KindVideo
				} else if n > 0 && media[n-1] == atom.Audio {
					kind = KindAudio
				}
				if src, ok := attr("src"); ok && kind != KindImage {
					addRef(src, kind, from)
				}
				if srcset, ok := attr("srcset"); ok && kind == KindImage {
					addSrcs(srcset, from)
				}
			case atom.Track:
				kind := KindVideo
				if n := len(media); n > 0 && media[n-1] == atom.Audio {
					kind = KindAudio
				}
				if src, ok := attr("src"); ok {
					addRef(src, kind, from)
				}
			case atom.Video, atom.Audio:
				kind := KindVideo
				if a == atom.Audio {
					kind = KindAudio
				}
				if src, ok := attr("src"); ok {
					addRef(src, kind, from)
				}
				if poster, ok := attr("poster"); ok && a == atom.Video {
					addRef(poster, KindImage, from)
				}
			case atom.Link:
				rel, _ := attr("rel")
				as, _ := attr("as")
				href, ok := attr("href")
				kind, wanted := htmlLinkKind(rel, as)
				if !wanted {
					break
				}
				if ok {
					addRef(href, kind, from)
				}
				if srcset, ok := attr("imagesrcset"); ok && kind == KindImage {
					addSrcs(srcset, from)
				}
			case atom.Script, atom.Iframe, atom.Frame, atom.Embed:
				kind := KindFrame
				switch a {
				case atom.Script:
					kind = KindScript
				case atom.Embed:
					kind = KindObject
				}
				if src, ok := attr("src"); ok {
					addRef(src, kind, from)
				}
			case atom.Object:
				if data, ok := attr("data"); ok {
					addRef(data, KindObject, from)
				}
			case atom.Input:
				if typ, _ := attr("type"); strings.EqualFold(strings.TrimSpace(typ), "image") {
					if src, ok := attr("src"); ok {
						addRef(src, KindImage, from)
					}
				}
			case atom.Body, atom.Table, atom.Td, atom.Th:
				if bg, ok := attr("background"); ok {
					addRef(bg, KindImage, from)
				}
			}
		}
	}
}

// name2 returns a tag name as a string without allocating for the two SVG names
// htmlRequisiteScan looks for.
func name2(b []byte) string {
	switch string(b) {
	case "image":
		return "image"
	case "use":
		return "use"
	}
	return ""
}

// htmlRequisiteTags lists the HTML elements whose attributes htmlRequisiteScan reads.
var htmlRequisiteTags = map[atom.Atom]bool{
	atom.Base: true, atom.Img: true, atom.Image: true, atom.Source: true, atom.Track: true,
	atom.Video: true, atom.Audio: true, atom.Link: true, atom.Script: true, atom.Iframe: true,
	atom.Frame: true, atom.Embed: true, atom.Object: true, atom.Input: true, atom.Body: true,
	atom.Table: true, atom.Td: true, atom.Th: true,
}

// htmlLinkKind returns the kind of requisite a <link> element of the rel values rel
// loads, with as the value of its "as" attribute; ok is false for a <link> that
// loads nothing a page needs (canonical, alternate, next, prefetch, …).
func htmlLinkKind(rel, as string) (kind Kind, ok bool) {
	if kind, ok := linkRelKind(rel, as); ok {
		return kind, true
	}
	for r := range strings.FieldsSeq(strings.ToLower(rel)) {
		switch r {
		case "icon", "apple-touch-icon", "apple-touch-icon-precomposed", "mask-icon":
			return KindIcon, true
		case "manifest":
			return KindManifest, true
		}
	}
	return 0, false
}
