package optout

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxHTMLHead is how much of an HTML document ParseHTML reads, in bytes: the meta
// elements belong in the head.
const maxHTMLHead = 256 << 10

// HTMLSignals are the opt-out signals of an HTML document's meta elements.
type HTMLSignals struct {
	TDM  TDM  // <meta name="tdm-reservation"> and <meta name="tdm-policy">, Source "meta"
	NoAI NoAI // noai, noimageai in <meta name="robots"> or <meta name="AGENT">
}

// ParseHTML reads the opt-out meta elements of an HTML document's head, in its first
// 256 KiB, for agent (whose product token may name a robots meta element). It stops at
// the body.
func ParseHTML(body []byte, agent string) HTMLSignals {
	if len(body) > maxHTMLHead {
		body = body[:maxHTMLHead]
	}
	var s HTMLSignals
	s.TDM.Source = "meta"
	tok := productToken(agent)
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return s
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch atom.Lookup(name) {
			case atom.Body:
				return s
			case atom.Meta:
			default:
				continue
			}
			var mname, content string
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "name":
					mname = strings.ToLower(strings.TrimSpace(string(v)))
				case "content":
					content = string(v)
				}
			}
			switch {
			case mname == "tdm-reservation":
				if r := reservation(content); r != Unset {
					s.TDM.Reservation = r
				}
			case mname == "tdm-policy":
				s.TDM.Policy = strings.TrimSpace(content)
			case mname == "robots" || tok != "" && mname == strings.ToLower(tok):
				s.NoAI = s.NoAI.Or(directives(content, agent, "meta"))
			}
		}
	}
}
