package extract

import (
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTMLRequisites returns what an HTML document needs to be shown, found without
// running its scripts: the targets of the Link response header (see
// LinkHeaderRequisites), then in document order
//   - img src and srcset (every candidate) and a lazy loader's data-src and
//     data-srcset, picture's source srcset (and data-srcset), input
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
	var s reqScan
	htmlScan(&Page{}, &page, text, HTMLOptions{MaxLinks: 1}, htmlSkipText, &s)
	s.finish(r, &page)
	return r, nil
}

// reqScan finds, token by token, the references of a decoded HTML document to what it
// needs, unresolved, in document order, with the href of its first <base> element that
// has one. htmlScan feeds it in the same pass of the tokenizer that finds the links.
type reqScan struct {
	refs     []reqRef
	baseHref string
	haveBase bool
	foreign  int         // depth inside <svg> or <math>
	media    []atom.Atom // open <picture>, <video> and <audio> elements, innermost last
	style    []byte      // the text of the <style> element being read
	inStyle  bool
}

// finish resolves what s found against the document's <base href>, else page, and adds
// it to r.
func (s *reqScan) finish(r *Requisites, page *canonParts) {
	base := page
	if s.haveBase {
		if b, ok := htmlBase(page, s.baseHref); ok {
			base = &b
		}
	}
	for _, ref := range s.refs {
		r.add(base, ref.ref, ref.kind, ref.from)
	}
	r.at = nil
}

// wants reports whether s reads the attributes of a start tag of element a, whose name
// as written is name, beside every style attribute.
func (s *reqScan) wants(a atom.Atom, name []byte) bool {
	return htmlRequisiteTags[a] || name2(name) != ""
}

// text reads a text token.
func (s *reqScan) text(b []byte) {
	if s.inStyle {
		s.style = append(s.style, b...)
	}
}

// end reads the end tag of element a.
func (s *reqScan) end(a atom.Atom) {
	switch {
	case a == atom.Style && s.inStyle:
		s.inStyle = false
		cssScan(s.style, s.emitCSS)
		s.style = s.style[:0]
	case a == atom.Svg || a == atom.Math:
		if s.foreign > 0 {
			s.foreign--
		}
	case a == atom.Picture || a == atom.Video || a == atom.Audio:
		if n := len(s.media); n > 0 {
			s.media = s.media[:n-1]
		}
	}
}

func (s *reqScan) emitCSS(ref string, kind Kind) { s.add(ref, kind, "style") }

func (s *reqScan) add(ref string, kind Kind, from string) {
	s.refs = append(s.refs, reqRef{ref, kind, from})
}

func (s *reqScan) addSrcs(srcset string, from string) {
	for u := range srcsetURLs(srcset) {
		s.add(u, KindImage, from)
	}
}

// start reads a start tag (self-closing when !open) of element a, whose name as
// written is name; attrs holds at least its style attribute and, when s.wants it, all
// of them.
func (s *reqScan) start(open bool, name []byte, a atom.Atom, attrs []html.Attribute) {
	if s.foreign > 0 && htmlBreaksOut(a, attrs) {
		s.foreign = 0
	}
	if a == atom.Style && open {
		s.inStyle, s.style = true, s.style[:0]
	}
	if (a == atom.Svg || a == atom.Math) && open {
		s.foreign++
	}
	if (a == atom.Picture || a == atom.Video || a == atom.Audio) && open {
		s.media = append(s.media, a)
	}
	attr := func(key string) (string, bool) { return htmlAttrOf(attrs, key) }
	if st, ok := attr("style"); ok {
		cssScan([]byte(st), s.emitCSS)
	}
	if !htmlRequisiteTags[a] && (s.foreign == 0 || name2(name) == "") {
		return
	}
	if s.foreign > 0 {
		// SVG <image> and <use>; an <image> outside SVG is an <img> to the parser.
		if n := name2(name); n != "" {
			href, ok := attr("href")
			if !ok {
				href, ok = attr("xlink:href")
			}
			if ok {
				s.add(href, KindImage, "svg:"+n)
			}
		}
		return
	}
	from := a.String()
	switch a {
	case atom.Base:
		if href, ok := attr("href"); ok && !s.haveBase {
			s.baseHref, s.haveBase = href, true
		}
	case atom.Img, atom.Image:
		from = "img"
		if src, ok := attr("src"); ok {
			s.add(src, KindImage, from)
		}
		if srcset, ok := attr("srcset"); ok {
			s.addSrcs(srcset, from)
		}
		// A lazy loader's script (lazysizes, many themes' own) moves these into
		// src and srcset as the image nears the viewport.
		if src, ok := attr("data-src"); ok {
			s.add(src, KindImage, from)
		}
		if srcset, ok := attr("data-srcset"); ok {
			s.addSrcs(srcset, from)
		}
	case atom.Source:
		kind := KindImage
		if n := len(s.media); n > 0 && s.media[n-1] == atom.Video {
			kind = KindVideo
		} else if n > 0 && s.media[n-1] == atom.Audio {
			kind = KindAudio
		}
		if src, ok := attr("src"); ok && kind != KindImage {
			s.add(src, kind, from)
		}
		if srcset, ok := attr("srcset"); ok && kind == KindImage {
			s.addSrcs(srcset, from)
		}
		if srcset, ok := attr("data-srcset"); ok && kind == KindImage {
			s.addSrcs(srcset, from)
		}
	case atom.Track:
		kind := KindVideo
		if n := len(s.media); n > 0 && s.media[n-1] == atom.Audio {
			kind = KindAudio
		}
		if src, ok := attr("src"); ok {
			s.add(src, kind, from)
		}
	case atom.Video, atom.Audio:
		kind := KindVideo
		if a == atom.Audio {
			kind = KindAudio
		}
		if src, ok := attr("src"); ok {
			s.add(src, kind, from)
		}
		if poster, ok := attr("poster"); ok && a == atom.Video {
			s.add(poster, KindImage, from)
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
			s.add(href, kind, from)
		}
		if srcset, ok := attr("imagesrcset"); ok && kind == KindImage {
			s.addSrcs(srcset, from)
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
			s.add(src, kind, from)
		}
	case atom.Object:
		if data, ok := attr("data"); ok {
			s.add(data, KindObject, from)
		}
	case atom.Input:
		if typ, _ := attr("type"); strings.EqualFold(strings.TrimSpace(typ), "image") {
			if src, ok := attr("src"); ok {
				s.add(src, KindImage, from)
			}
		}
	case atom.Body, atom.Table, atom.Td, atom.Th:
		if bg, ok := attr("background"); ok {
			s.add(bg, KindImage, from)
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
