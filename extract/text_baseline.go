package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// textBaselineMin is the text, in bytes, that the paragraphs textBaseline finds must
// hold to be a page's text.
const textBaselineMin = 100

// textBaselineShort is the longest text, in bytes, without a line of prose that the
// heuristic's choice may be and textBaseline's paragraphs still replace it.
const textBaselineShort = 300

// textBaselineSkip lists the elements whose subtree textBaseline never reads: what no
// reader sees as text. A <noscript> is read, its content being what a reader without
// scripts sees.
var textBaselineSkip = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Template: true, atom.Head: true,
	atom.Title: true, atom.Svg: true, atom.Math: true, atom.Select: true,
	atom.Textarea: true, atom.Button: true, atom.Iframe: true, atom.Object: true,
}

// textBaseline is the main text of a page in which the heuristic found none, every
// block being boilerplate or none holding text, or found only a few short lines where
// the page's paragraphs hold an article's prose (a page whose content sits in blocks
// named for something else, such as an <aside>): the text of its paragraphs,
// preformatted blocks and quotations in document order, each once, as trafilatura's
// baseline reads a page, a line for each (a line of a <pre> for each of its lines, its
// indentation collapsed); nothing when they hold less than textBaselineMin bytes. A
// reader of such a page sees its text somewhere, and an empty text would lose the page.
func textBaseline(doc *html.Node, max int) string {
	w := textWriter{max: max, lines: true}
	seen := make(map[string]bool)
	size := 0 // of the text found, whatever max
	var paragraphs func(n *html.Node)
	paragraphs = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c.Namespace != "" || textBaselineSkip[c.DataAtom] {
				continue
			}
			switch c.DataAtom {
			case atom.P, atom.Blockquote:
				if s := htmlCollapse(htmlNodeText(c)); s != "" && !seen[s] {
					seen[s] = true
					size += len(s)
					w.write(s)
					w.block()
				}
			case atom.Pre:
				for line := range strings.Lines(htmlNodeText(c)) {
					if line = strings.TrimRight(line, " \t\r\n"); strings.TrimSpace(line) != "" {
						size += len(line)
						w.write(line)
						w.block()
					}
				}
			default:
				paragraphs(c)
			}
		}
	}
	paragraphs(doc)
	if size < textBaselineMin {
		return ""
	}
	return w.String()
}

// textProseChars returns the characters of the lines of prose of a text (textIsProseLine).
func textProseChars(s string) int {
	total := 0
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if n, _ := textCount(line); textIsProseLine(line, n) {
			total += int(n)
		}
	}
	return total
}
