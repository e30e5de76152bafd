package extract

import (
	"bytes"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlStrip returns body without what never holds main text or links and makes many
// pages too large for a tree: comments, the contents of <script> and <style>, and
// whole <svg> elements. ok is false when what is left still counts more than max bytes
// (htmlKeptBytes), or the body is not worth the pass. Every other token is copied as it was written,
// so that the tree built from the result holds the same elements, text and links.
func htmlStrip(body []byte, max int) (stripped []byte, ok bool) {
	out := make([]byte, 0, max)
	kept := 0
	z := html.NewTokenizer(bytes.NewReader(body))
	z.SetMaxBuf(0)
	raw := false // inside <script> or <style>: the next text token is their content
	svg := 0     // depth inside <svg>
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return out, len(out) <= max
		case html.CommentToken:
			continue
		case html.TextToken:
			if raw || svg > 0 {
				continue
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case a == atom.Svg && tt == html.StartTagToken:
				svg++
				continue
			case a == atom.Svg && tt == html.EndTagToken && svg > 0:
				svg--
				continue
			case svg > 0:
				continue
			}
			raw = tt == html.StartTagToken && (a == atom.Script || a == atom.Style)
		}
		if svg > 0 {
			continue
		}
		if kept += htmlKeptBytes(tt, z.Raw()); kept > max {
			return nil, false
		}
		out = append(out, z.Raw()...)
	}
}
