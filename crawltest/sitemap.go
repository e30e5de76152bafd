package crawltest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// maxLocs bounds the entries read from one sitemap, as the sitemaps protocol
// does (50,000 per file).
const maxLocs = 50000

// maxLocLen bounds one <loc> value, as the sitemaps protocol does.
const maxLocLen = 2048

// sitemapLocs returns the <loc> values of a sitemap (a <urlset> or a
// <sitemapindex>) in document order, trimmed, at most maxLocs of them, and
// whether the root element is a sitemapindex. It reads no more than body and
// fails on malformed XML, returning what it read before the error.
func sitemapLocs(body []byte) (locs []string, index bool, err error) {
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = false
	depth := 0
	inLoc := false
	var loc strings.Builder
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			if depth != 0 {
				return locs, index, errors.New("crawltest: sitemap: unexpected end of document")
			}
			return locs, index, nil
		}
		if err != nil {
			return locs, index, errors.New("crawltest: sitemap: " + err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				index = t.Name.Local == "sitemapindex"
			}
			depth++
			if t.Name.Local == "loc" && depth == 3 {
				inLoc = true
				loc.Reset()
			}
		case xml.EndElement:
			if depth == 0 {
				return locs, index, errors.New("crawltest: sitemap: unbalanced end element")
			}
			depth--
			if inLoc && t.Name.Local == "loc" {
				inLoc = false
				if s := strings.TrimSpace(loc.String()); s != "" && len(s) <= maxLocLen {
					locs = append(locs, s)
					if len(locs) == maxLocs {
						return locs, index, nil
					}
				}
			}
		case xml.CharData:
			if inLoc && loc.Len() <= maxLocLen {
				loc.Write(t)
			}
		}
	}
}
