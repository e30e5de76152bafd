package crawltest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
)

// RequisiteSites returns a site whose pages need what a browser loads to show
// them, for tests of page requisites: assets.test's front page uses a stylesheet
// that @imports another (which imports a third, with a url() image of its own: an
// @import costs no hop) and sets a url() background image and a web font (font, a
// TrueType or WOFF file, served as /fonts/body.ttf), srcset and <picture> images,
// a script that inserts an element (<p id="inserted">), an iframe with a stylesheet, a Link: preload
// header, an image on another host (cdn.test), an image robots.txt disallows
// (/private/secret.png, marked Disallowed) and a video; /manual.html is an XHTML
// page beginning with <?xml, served as text/html, with its own stylesheet; and
// /page2.html uses the front page's stylesheet and image again. Both hosts serve a
// /favicon.ico, which only the front page's own icon link does not stand in for on
// /page2.html and /manual.html (they name none). The images are
// real PNG files of the sizes their names give. The sites are new on every call.
//
// With requisites on (hop limit 2, audio and video off) a crawler fetches
// [RequisiteURLs]; never /private/secret.png, /media/clip.mp4 (a video) or
// /img/deep.png (three steps from a page: the frame's stylesheet names it).
func RequisiteSites(font []byte) []Site {
	img := func(w, h int) *Page {
		return &Page{ContentType: "image/png", Body: string(pngImage(w, h))}
	}
	return []Site{
		{
			Host:   "assets.test",
			Robots: &Robots{Body: "User-agent: *\nDisallow: /private/\n"},
			Icon:   true,
			Pages: map[string]*Page{
				"/": {
					Body: `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Assets</title>
<link rel="stylesheet" href="/css/site.css">
<link rel="icon" href="/favicon.png">
</head><body>
<h1 class="hero">Assets</h1>
<p id="styled">Styled by base.css, imported by site.css.</p>
<p><img id="photo" src="/img/photo.png" srcset="/img/photo-2x.png 2x" alt="photo"></p>
<picture><source srcset="/img/wide.png" media="(min-width: 4000px)"><img id="narrow" src="/img/narrow.png" alt="narrow"></picture>
<p><img id="cdn" src="http://cdn.test/logo.png" alt="logo"> <img id="secret" src="/private/secret.png" alt="secret"></p>
<iframe id="frame" src="/frame.html" width="300" height="100"></iframe>
<video src="/media/clip.mp4" poster="/img/poster.png" width="64" height="48"></video>
<p><a href="/page2.html">Page 2</a> <a href="/manual.html">The manual</a></p>
<script src="/js/app.js"></script>
</body></html>
`,
					Header: map[string]string{"Link": `</css/preload.css>; rel=preload; as=style`},
					Links:  []string{"/page2.html", "/manual.html"},
				},
				"/page2.html": {
					Body: `<!DOCTYPE html>
<html><head><title>Page 2</title><link rel="stylesheet" href="/css/site.css"></head>
<body><p id="styled">Page 2</p><img id="photo" src="/img/photo.png" alt="photo"><p><a href="/">Home</a></p></body></html>
`,
					Links: []string{"/"},
				},
				"/manual.html": {
					Body: `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html xmlns="http://www.w3.org/1999/xhtml"><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8" /><title>The manual</title><link rel="stylesheet" type="text/css" href="/css/manual.css" /></head><body><div class="chapter"><h2 class="title">Chapter&#160;1.&#160;Introduction</h2><p>Back to <a href="/">the front page</a>.</p></div></body></html>
`,
					Links: []string{"/"},
				},
				"/frame.html": {
					Body: `<!DOCTYPE html>
<html><head><title>Frame</title><link rel="stylesheet" href="/css/frame.css"></head><body><p id="inframe">Content of the frame</p><img id="frameimg" src="/img/frame.png" alt="frame"></body></html>
`,
				},
				"/css/site.css": {
					ContentType: "text/css",
					Body: `@import "base.css";
@font-face { font-family: "Body"; src: url(/fonts/body.ttf) format("truetype"); }
body { font-family: "Body", serif; }
.hero { background: #eef url(../img/bg.png) repeat-x; }
`,
				},
				"/css/base.css": {
					ContentType: "text/css",
					Body:        "@import url(theme.css);\n#styled { color: rgb(1, 2, 3); font-weight: bold }\n",
				},
				"/css/theme.css": {
					ContentType: "text/css",
					Body:        ".hero:after { content: \"\"; display: inline-block; width: 12px; height: 12px; background: url(../img/theme.png) }\n",
				},
				"/css/frame.css":   {ContentType: "text/css", Body: "#inframe { color: rgb(10, 11, 12) }\n.never { background: url(/img/deep.png) }\n"},
				"/css/preload.css": {ContentType: "text/css", Body: ".preloaded { color: rgb(4, 5, 6) }\n"},
				"/css/manual.css":  {ContentType: "text/css", Body: "h2.title { color: rgb(7, 8, 9) }\n"},
				"/js/app.js": {
					ContentType: "text/javascript",
					Body: `var p = document.createElement("p");
p.id = "inserted";
p.textContent = "Inserted by app.js";
document.body.appendChild(p);
`,
				},
				"/fonts/body.ttf":     {ContentType: "font/ttf", Body: string(font)},
				"/favicon.png":        img(16, 16),
				"/img/photo.png":      img(40, 30),
				"/img/photo-2x.png":   img(80, 60),
				"/img/wide.png":       img(60, 20),
				"/img/narrow.png":     img(20, 60),
				"/img/bg.png":         img(8, 8),
				"/img/poster.png":     img(64, 48),
				"/img/frame.png":      img(30, 30),
				"/img/theme.png":      img(12, 12),
				"/img/deep.png":       img(5, 5),
				"/private/secret.png": {ContentType: "image/png", Body: string(pngImage(7, 7)), Disallowed: true},
				"/media/clip.mp4":     {ContentType: "video/mp4", Body: "\x00\x00\x00\x18ftypmp42"},
			},
		},
		{
			Host:   "cdn.test",
			Robots: &Robots{Body: "User-agent: *\nAllow: /\n"},
			Icon:   true,
			Pages: map[string]*Page{
				"/":         {Body: "<!DOCTYPE html><title>cdn</title>"},
				"/logo.png": {ContentType: "image/png", Body: string(pngImage(50, 25))},
			},
		},
	}
}

// RequisiteURLs are the requisites of [RequisiteSites] a crawler fetches with
// requisites on (hop limit 2, audio and video off), each once.
var RequisiteURLs = []string{
	"http://assets.test/css/site.css", "http://assets.test/css/base.css",
	"http://assets.test/css/preload.css", "http://assets.test/css/manual.css",
	"http://assets.test/js/app.js", "http://assets.test/fonts/body.ttf",
	"http://assets.test/favicon.png", "http://assets.test/img/photo.png",
	"http://assets.test/img/photo-2x.png", "http://assets.test/img/wide.png",
	"http://assets.test/img/narrow.png", "http://assets.test/img/bg.png",
	"http://assets.test/img/poster.png", "http://assets.test/img/frame.png",
	"http://assets.test/frame.html", "http://cdn.test/logo.png",
	"http://assets.test/css/theme.css", "http://assets.test/img/theme.png",
	"http://assets.test/css/frame.css",
	"http://assets.test/favicon.ico", "http://cdn.test/favicon.ico",
}

// icon returns a site's /favicon.ico: an ICO file holding one 16×16 PNG image.
func icon() *Page {
	return &Page{ContentType: "image/x-icon", Body: string(icoImage(pngImage(16, 16), 16, 16))}
}

// icoImage returns an ICO file holding one image, the PNG file p of w×h pixels
// (w and h below 256).
func icoImage(p []byte, w, h int) []byte {
	b := []byte{0, 0, 1, 0, 1, 0} // reserved, type 1 (icon), 1 image
	b = append(b, byte(w), byte(h), 0, 0, 1, 0, 32, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
	b = binary.LittleEndian.AppendUint32(b, 6+16)
	return append(b, p...)
}

// pngImage returns a PNG file of w×h pixels.
func pngImage(w, h int) []byte {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, color.RGBA{uint8(40 + 4*x), uint8(80 + 3*y), 160, 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, m)
	return b.Bytes()
}

// RequisiteFarm returns hosts documentation-like sites of pages pages each, for
// benchmarks of page requisites. Each page links to the next and to its site's
// front page, and needs its site's stylesheet (which @imports a second one and
// names a background image and a web font), its script, an image of its own with a
// 2x srcset candidate, the logo of the shared host cdn.test, and an image that
// robots.txt disallows (marked Disallowed); each site serves a /favicon.ico, which
// no page names. Per site, then: 6 shared requisites (the icon among them), 2 per
// page, the disallowed one never to fetch; and cdn.test's logo once for all.
// The sites are new on every call; a site's pages are named /, /p1.html, ….
func RequisiteFarm(hosts, pages int) []Site {
	sites := make([]Site, 0, hosts+1)
	img := string(pngImage(24, 16))
	img2x := string(pngImage(48, 32))
	for h := range hosts {
		host := fmt.Sprintf("docs%d.test", h)
		ps := map[string]*Page{
			"/static/site.css": {ContentType: "text/css", Body: `@import "base.css";
@font-face { font-family: "Body"; src: url(font.woff2) format("woff2"); }
body { font-family: "Body", serif; background: url(bg.png) repeat-x; }
`},
			"/static/base.css":    {ContentType: "text/css", Body: "h1 { color: rgb(1, 2, 3) }\n"},
			"/static/bg.png":      {ContentType: "image/png", Body: img},
			"/static/font.woff2":  {ContentType: "font/woff2", Body: "wOF2 the bytes of a font"},
			"/static/app.js":      {ContentType: "text/javascript", Body: "document.body.dataset.ready = 1;\n"},
			"/private/banner.png": {ContentType: "image/png", Body: img, Disallowed: true},
		}
		name := func(i int) string {
			if i == 0 {
				return "/"
			}
			return fmt.Sprintf("/p%d.html", i)
		}
		for i := range pages {
			links := []string{"/"}
			if i+1 < pages {
				links = append(links, name(i+1))
			}
			var b strings.Builder
			fmt.Fprintf(&b, `<!DOCTYPE html><html><head><title>%s page %d</title><link rel="stylesheet" href="/static/site.css"><script src="/static/app.js" defer></script></head><body><h1>Page %d</h1>`, host, i, i)
			fmt.Fprintf(&b, `<p><img src="/img/p%d.png" srcset="/img/p%d-2x.png 2x" alt="figure %d"> <img src="http://cdn.test/logo.png" alt="logo"> <img src="/private/banner.png" alt="banner"></p>`, i, i, i)
			for _, l := range links {
				fmt.Fprintf(&b, `<p><a href="%s">%s</a></p>`, l, l)
			}
			b.WriteString("</body></html>\n")
			ps[name(i)] = &Page{Body: b.String(), Links: links}
			ps[fmt.Sprintf("/img/p%d.png", i)] = &Page{ContentType: "image/png", Body: img}
			ps[fmt.Sprintf("/img/p%d-2x.png", i)] = &Page{ContentType: "image/png", Body: img2x}
		}
		sites = append(sites, Site{Host: host, Robots: &Robots{Body: "User-agent: *\nDisallow: /private/\n"}, Pages: ps, Icon: true})
	}
	sites = append(sites, Site{
		Host:   "cdn.test",
		Robots: &Robots{Body: "User-agent: *\nAllow: /\n"},
		Pages:  map[string]*Page{"/logo.png": {ContentType: "image/png", Body: string(pngImage(50, 25))}},
		Seed:   "/logo.png",
	})
	return sites
}
