package crawltest

import (
	"bytes"
	"compress/gzip"
	"strings"
)

// filler is the text generated pages are padded with.
const filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod " +
	"tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis " +
	"nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis " +
	"aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat " +
	"nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui " +
	"officia deserunt mollit anim id est laborum.\n"

// renderPage writes the page's body: Body as is, or generated HTML with its
// links, deterministic for a given site, path and page.
// renderBomb returns the gzip-compressed body of a Bomb page.
func renderBomb(s *site, path string, p *Page) []byte {
	var head bytes.Buffer
	plain := *p
	plain.Size, plain.Body = 0, ""
	renderPage(&head, s, path, &plain)
	const tail = "</body></html>\n"
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.DefaultCompression)
	zw.Write(bytes.TrimSuffix(head.Bytes(), []byte(tail))) //nolint:errcheck // writes to a bytes.Buffer do not fail
	zw.Write([]byte("<p>"))                                //nolint:errcheck // as above
	// Mostly "x", with a "y" at pseudo-random places about every 300 bytes, so that
	// gzip gets about 100 to 1 and not the 1,000 to 1 of a constant run: a bomb whose
	// ratio stays under a client's ratio cap, so that only its size caps stop it.
	xs := bytes.Repeat([]byte("x"), 64<<10)
	state := uint32(2463534242)
	for i := range xs {
		state ^= state << 13
		state ^= state >> 17
		state ^= state << 5
		if state%300 == 0 {
			xs[i] = 'y'
		}
	}
	for n := p.Bomb; n > 0; n -= len(xs) {
		zw.Write(xs[:min(n, len(xs))]) //nolint:errcheck // as above
	}
	zw.Write([]byte("</p>\n" + tail)) //nolint:errcheck // as above
	zw.Close()                        //nolint:errcheck // as above
	return out.Bytes()
}

func renderPage(buf *bytes.Buffer, s *site, path string, p *Page) {
	if p.Body != "" {
		buf.WriteString(p.Body)
		return
	}
	buf.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>")
	escape(buf, s.host+path)
	buf.WriteString("</title>\n")
	if p.MetaNoFollow {
		buf.WriteString("<meta name=\"robots\" content=\"nofollow\">\n")
	}
	buf.WriteString("</head>\n<body>\n<h1>")
	escape(buf, s.host+path)
	buf.WriteString("</h1>\n<ul>\n")
	for _, l := range p.Links {
		buf.WriteString("<li><a href=\"")
		escape(buf, l)
		buf.WriteString("\">")
		escape(buf, l)
		buf.WriteString("</a></li>\n")
	}
	for _, l := range p.NoFollowLinks {
		buf.WriteString("<li><a rel=\"nofollow\" href=\"")
		escape(buf, l)
		buf.WriteString("\">")
		escape(buf, l)
		buf.WriteString("</a></li>\n")
	}
	buf.WriteString("</ul>\n")
	const tail = "</body></html>\n"
	if pad := p.Size - buf.Len() - len(tail) - len("<p></p>\n"); pad > 0 {
		buf.WriteString("<p>")
		for pad > 0 {
			n := min(pad, len(filler))
			buf.WriteString(filler[:n])
			pad -= n
		}
		buf.WriteString("</p>\n")
	}
	buf.WriteString(tail)
}

// renderSitemap writes a sitemap's XML, uncompressed: Body as is, or a
// <sitemapindex> or <urlset> of its Links.
func (f *Farm) renderSitemap(buf *bytes.Buffer, s *site, path string, p *Page) {
	if p.Body != "" {
		buf.WriteString(p.Body)
		return
	}
	locs := make([]string, 0, len(p.Links))
	index := len(p.Links) > 0
	for _, l := range p.Links {
		h, tp, ok := resolve(s.host, path, l)
		if !ok {
			locs = append(locs, l)
			index = false
			continue
		}
		locs = append(locs, urlKey(h, tp))
		if t := f.hosts[h]; t == nil || t.pages[tp] == nil || !t.pages[tp].Sitemap {
			index = false
		}
	}
	buf.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	outer, inner := "urlset", "url"
	if index {
		outer, inner = "sitemapindex", "sitemap"
	}
	buf.WriteString("<" + outer + " xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	for _, l := range locs {
		buf.WriteString("  <" + inner + "><loc>")
		escape(buf, l)
		buf.WriteString("</loc></" + inner + ">\n")
	}
	buf.WriteString("</" + outer + ">\n")
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&#34;", "'", "&#39;")

// escape writes s HTML- and XML-escaped.
func escape(buf *bytes.Buffer, s string) {
	if !strings.ContainsAny(s, "&<>\"'") {
		buf.WriteString(s)
		return
	}
	escaper.WriteString(buf, s) //nolint:errcheck // writes to a bytes.Buffer do not fail
}
