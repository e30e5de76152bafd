package extract

import (
	"bufio"
	"encoding/xml"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html/charset"
)

// smMaxField is the most text kept for one field of an entry, in bytes; a longer
// location is skipped as "too-long", a longer date or number as unreadable.
const smMaxField = 4 << 10

// smParser holds the state of one Sitemap call.
type smParser struct {
	res       *SitemapResult
	opts      SitemapOptions
	self      smOrigin // the sitemap's own URL
	robots    smOrigin // opts.RobotsURL, when hasRobots
	hasRobots bool
	base      *url.URL // for feeds' relative links; nil if sitemapURL is unparsable
	kept      int      // entries kept: URLs plus child sitemaps
}

// smEntry collects the fields of one url, sitemap, item or entry element.
type smEntry struct {
	loc, lastmod, changefreq, priority     string
	hasLastmod, hasChangefreq, hasPriority bool
	locTooLong                             bool   // the location's text passed smMaxField
	guid                                   string // RSS guid, a fallback for a missing link
}

// parseXML reads a urlset, sitemapindex, RSS or Atom document as a stream of raw
// tokens (no namespace translation: local names only). encoding/xml in non-strict
// mode expands only the predefined entities and leaves any other reference as
// text, so DTD entity blocks are inert.
func (p *smParser) parseXML(in *bufio.Reader) error {
	d := xml.NewDecoder(in)
	d.Strict = false
	d.CharsetReader = smCharsetReader
	var (
		depth      int    // elements open, the root being 1
		entryDepth int    // depth of the open entry element; 0 when none
		field      string // local name of the entry's child whose text is collected
		text       []byte
		over       bool // the field's text passed smMaxField
		e          smEntry
	)
	for {
		tok, err := d.RawToken()
		if err != nil {
			if err == io.EOF && p.res.Format == "" {
				return ErrNotSitemap
			}
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			name := t.Name.Local
			if p.res.Format == "" {
				switch name {
				case "urlset", "sitemapindex":
					p.res.Format = name
				case "rss", "RDF":
					p.res.Format = "rss"
				case "feed":
					p.res.Format = "atom"
				default:
					return ErrNotSitemap
				}
				continue
			}
			if entryDepth == 0 {
				if p.isEntry(name, depth) {
					entryDepth, e = depth, smEntry{}
				}
				continue
			}
			if depth != entryDepth+1 {
				continue
			}
			field, text, over = name, text[:0], false
			switch {
			case p.res.Format == "atom" && name == "link":
				field = "" // Atom links are attributes, not text
				if e.loc == "" {
					e.loc = smAtomLink(t.Attr)
				}
			case p.res.Format == "rss" && name == "guid":
				if smAttr(t.Attr, "isPermaLink") == "false" {
					field = ""
				}
			}
		case xml.EndElement:
			if entryDepth != 0 {
				switch depth {
				case entryDepth + 1:
					if field != "" {
						p.setField(&e, field, string(text), over)
						field = ""
					}
				case entryDepth:
					p.finish(&e)
					entryDepth = 0
				}
			}
			if depth > 0 {
				depth--
			}
		case xml.CharData:
			if field != "" && depth == entryDepth+1 && !over {
				if len(text)+len(t) > smMaxField {
					over = true
				} else {
					text = append(text, t...)
				}
			}
		}
	}
}

// isEntry reports whether an element named name at depth starts an entry of the
// document's format.
func (p *smParser) isEntry(name string, depth int) bool {
	switch p.res.Format {
	case "urlset":
		return name == "url" && depth == 2
	case "sitemapindex":
		return name == "sitemap" && depth == 2
	case "rss":
		return name == "item" && depth >= 2
	case "atom":
		return name == "entry" && depth >= 2
	}
	return false
}

// setField stores the text of an entry's child element. over reports text cut at
// smMaxField: a location is then too long, any other value unreadable.
func (p *smParser) setField(e *smEntry, name, text string, over bool) {
	if over {
		text = "\x00" // no date, frequency or number
	}
	switch name {
	case "loc":
		if p.res.Format == "urlset" || p.res.Format == "sitemapindex" {
			e.loc, e.locTooLong = text, over
		}
	case "link":
		if p.res.Format == "rss" && e.loc == "" {
			e.loc, e.locTooLong = text, over
		}
	case "guid":
		if p.res.Format == "rss" {
			e.guid = text
		}
	case "lastmod", "pubDate", "date", "updated", "modified", "published", "issued":
		// The first date wins, except that an Atom updated/modified beats published.
		if !e.hasLastmod || name == "updated" || name == "modified" {
			e.lastmod, e.hasLastmod = text, true
		}
	case "changefreq":
		e.changefreq, e.hasChangefreq = text, true
	case "priority":
		e.priority, e.hasPriority = text, true
	}
}

// finish checks a complete entry and adds it to the result or counts why not.
func (p *smParser) finish(e *smEntry) {
	if p.kept >= p.opts.MaxURLs {
		p.res.Skipped[SkipLimit]++
		return
	}
	feed := p.res.Format == "rss" || p.res.Format == "atom"
	if p.res.Format == "sitemapindex" {
		if p.opts.Depth+1 > MaxSitemapDepth {
			p.res.Skipped[SkipDepth]++
			return
		}
		loc, ok := p.loc(e.loc, e.locTooLong, false)
		if !ok {
			return
		}
		p.res.Sitemaps = append(p.res.Sitemaps, loc)
		p.kept++
		return
	}
	raw, tooLong := e.loc, e.locTooLong
	if feed && !tooLong && strings.TrimSpace(raw) == "" && smIsHTTP(strings.TrimSpace(e.guid)) {
		raw = e.guid
	}
	loc, ok := p.loc(raw, tooLong, feed)
	if !ok {
		return
	}
	u := SitemapURL{Loc: loc, Priority: -1}
	if e.hasLastmod {
		if t, ok := smParseTime(strings.TrimSpace(e.lastmod)); ok {
			u.LastMod = t
		} else {
			p.res.Skipped[SkipBadLastMod]++
		}
	}
	if e.hasChangefreq {
		if f, ok := smChangeFreq(e.changefreq); ok {
			u.ChangeFreq = f
		} else {
			p.res.Skipped[SkipBadChangeFreq]++
		}
	}
	if e.hasPriority {
		if v, ok := smPriority(e.priority); ok {
			u.Priority = v
		} else {
			p.res.Skipped[SkipBadPriority]++
		}
	}
	p.res.URLs = append(p.res.URLs, u)
	p.kept++
}

// smCharsetReader gives encoding/xml a decoder for the encoding an XML declaration
// names. The document began with a one-byte '<', so it is ASCII-compatible: a
// declared UTF-16 is a lie and is ignored, as is a label nobody knows (read as
// UTF-8).
func smCharsetReader(label string, input io.Reader) (io.Reader, error) {
	l := strings.ToLower(strings.TrimSpace(label))
	if strings.HasPrefix(l, "utf-16") || strings.HasPrefix(l, "utf16") || l == "utf-8" || l == "utf8" {
		return input, nil
	}
	r, err := charset.NewReaderLabel(label, input)
	if err != nil {
		return input, nil
	}
	return r, nil
}

// smAttr returns the value of the attribute with local name name, or "".
func smAttr(attrs []xml.Attr, name string) string {
	for _, a := range attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
