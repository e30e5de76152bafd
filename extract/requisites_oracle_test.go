package extract

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The requisite scan as it was before it joined the link scan's pass of the tokenizer
// (2026-11-28), kept as the oracle of FuzzHTMLRequisitesOnePass.

// htmlRequisiteScanOld reads the references of a decoded HTML document to what it
// needs, unresolved, in document order, with the href of its first <base> element
// that has one.
func htmlRequisiteScanOld(body []byte) (refs []reqRef, baseHref string, haveBase bool) {
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
			if foreign > 0 && htmlBreakoutOld(z, a, hasAttr) {
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
				if src, ok := attr("data-src"); ok {
					addRef(src, KindImage, from)
				}
				if srcset, ok := attr("data-srcset"); ok {
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
				if srcset, ok := attr("data-srcset"); ok && kind == KindImage {
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

// htmlBreakoutOld reports whether the start tag z has just read, of element a, ends
// foreign content, as the parser says ("tree construction", "parsing tokens in foreign
// content"): the elements htmlBreakouts lists, and <font> with a color, face or size
// attribute, whose attributes it reads then.
func htmlBreakoutOld(z *html.Tokenizer, a atom.Atom, hasAttr bool) bool {
	if a != atom.Font {
		return htmlBreakouts[a]
	}
	for more := hasAttr; more; {
		var k []byte
		k, _, more = z.TagAttr()
		if s := string(k); s == "color" || s == "face" || s == "size" {
			return true
		}
	}
	return false
}

// htmlRequisitesOld is HTMLRequisites as it was, reading the body with
// htmlRequisiteScanOld.
func htmlRequisitesOld(t testing.TB, pageURL *url.URL, header http.Header, body []byte, opts RequisiteOptions) *Requisites {
	t.Helper()
	page, err := reqBase("requisites", pageURL)
	if err != nil {
		t.Fatal(err)
	}
	opts.defaults()
	r := &Requisites{max: opts.MaxRequisites}
	linkHeader(r, &page, header)
	body, rest := htmlPrefix(body, opts.MaxHTMLBytes)
	r.Truncated = rest != nil
	text, cs := charsetDecode(body, header.Get("Content-Type"))
	r.Charset = cs
	refs, baseHref, haveBase := htmlRequisiteScanOld(text)
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
	return r
}

// htmlOnePassCheck compares, for one page, what the one pass finds with what the
// separate passes found: the requisites with the old requisite scan's (when exact is
// set), the links and metadata with those of HTML without requisites, with and
// without text, and HTMLRequisites with HTML's Requisites.
func htmlOnePassCheck(t *testing.T, name string, header http.Header, body []byte, exact bool) {
	t.Helper()
	u := mustURL(t, "https://example.com/dir/page.html")
	header.Set("Link", `</linked.css>; rel=stylesheet`)
	ro := RequisiteOptions{MaxRequisites: 50, MaxHTMLBytes: 1 << 20}
	old := htmlRequisitesOld(t, u, header, body, ro)
	alone, err := HTMLRequisites(u, header, body, ro)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []bool{false, true} {
		opts := HTMLOptions{Agent: "ExampleBot", TokenScan: !text, WithText: text, MaxHTMLBytes: ro.MaxHTMLBytes, MaxLinks: 50}
		want, err := HTML(u, header, body, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.WithRequisites, opts.MaxRequisites = true, ro.MaxRequisites
		got, err := HTML(u, header, body, opts)
		if err != nil {
			t.Fatal(err)
		}
		reqs := got.Requisites
		got.Requisites = nil
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s, text %v: HTML with requisites:\n\tgot  %s\n\twant %s", name, text, g, w)
		}
		g, _ = json.Marshal(reqs)
		w, _ = json.Marshal(alone)
		if string(g) != string(w) {
			t.Errorf("%s, text %v: Page.Requisites:\n\tgot  %s\n\twant %s (HTMLRequisites)", name, text, g, w)
		}
	}
	if g, w := mustJSON(t, alone), mustJSON(t, old); exact && g != w {
		t.Errorf("%s: HTMLRequisites:\n\tgot  %s\n\twant %s (the separate scan)", name, g, w)
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHTMLRequisitesOnePass runs htmlOnePassCheck on the pages of testdata, the sample
// of trafilatura's pages CI keeps, and every *.html of $POLITECRAWL_HTML_PAGES when
// set (trafilatura's tests/eval, say).
func TestHTMLRequisitesOnePass(t *testing.T) {
	var files []string
	for _, dir := range []string{"testdata/html", "testdata/text", "../crawltest/texteval/testdata/trafilatura/eval", os.Getenv("POLITECRAWL_HTML_PAGES")} {
		if dir == "" {
			continue
		}
		f, err := filepath.Glob(filepath.Join(dir, "*.html"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f...)
	}
	if len(files) < 50 {
		t.Fatalf("%d pages", len(files))
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		header := http.Header{}
		if h, err := os.ReadFile(strings.TrimSuffix(f, ".html") + ".header"); err == nil {
			header.Set("Content-Type", strings.TrimSpace(string(h)))
		}
		htmlOnePassCheck(t, f, header, body, true)
	}
}

// FuzzHTMLRequisitesOnePass runs htmlOnePassCheck on arbitrary bodies. The old
// requisite scan read foreign content by a rule of its own (an <svg> ended only by the
// elements that break out of it, no HTML integration points): on bodies with <svg> or
// <math> its requisites may differ, and only the other comparisons are made; so may
// they on bodies with a <title> or <textarea> that never ends (see htmlUnended).
func FuzzHTMLRequisitesOnePass(f *testing.F) {
	for _, b := range htmlFuzzSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte(`<base href="/b/"><img src=a.png srcset="x 1x, y,z 2x"><svg><use xlink:href="s.svg#i"/><style>a{background:url(s.png)}</style></svg><div style="background:url(d.png)">`))
	f.Add([]byte(`<picture><source srcset="a.webp"><video poster=p.jpg><source src=v.mp4><track src=t.vtt></video></picture><link rel="preload icon" as=font href=f>`))
	f.Add([]byte(`<p>` + strings.Repeat("long text ", 200) + `<style>b{background:url(b.png)}</style><a href=/a style="background:url(c.png)">a</a>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		lower := bytes.ToLower(body)
		exact := !bytes.Contains(lower, []byte("svg")) && !bytes.Contains(lower, []byte("math")) && !htmlHasUnended(body, "")
		htmlOnePassCheck(t, "fuzz", http.Header{}, body, exact)
	})
}
