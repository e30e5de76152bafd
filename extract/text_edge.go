package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// edgeJunk reports whether the short block at i is one that the edges of an article
// carry and its body does not: a date line (a <time> in it, or a date's words:
// textIsDateLine), a call to action, a byline, a caption that credits the photograph
// over or under the article.
func (t *textTree) edgeJunk(i int32) bool {
	for j := i; j < t.info[i].end; j++ {
		if t.info[j].flags&textGone != 0 {
			j = t.info[j].end - 1
			continue
		}
		if n := t.nodes[j]; n.Type == html.ElementNode && n.DataAtom == atom.Time {
			return true
		}
	}
	s := strings.ToLower(t.visibleText(i, 4*textEdgeMax))
	return textEdgeJunk(s) || t.dated(i) && textIsDateLine(s)
}

// textEdgeJunk reports whether s, the text of a short block or line at an edge of the
// content, lower case, is a byline, a call to action or a post's metadata. It reads the
// last paragraphs' narrower calls (textTailCalls) too, so a phrase is in one list only.
func textEdgeJunk(s string) bool {
	// textEdgeIndex holds textCallsToAction, textPostMeta and textTailCalls, the last
	// paragraphs' narrower calls: s is read once for them all.
	return textIsByline(s) || textEdgeIndex.phrase(s) || strings.HasPrefix(s, "copyright")
}

// dated reports whether the block at i may be read as a date line (textIsDateLine):
// not a heading, a list or a table, whose lines may be dates (a tour's "Chicago, IL June
// 9, 2018", a reference's "Retrieved 10 May 2016", a calendar).
func (t *textTree) dated(i int32) bool {
	switch a := t.nodes[i].DataAtom; {
	case a == atom.Ul, a == atom.Ol, a == atom.Li, a == atom.Dl, a == atom.Table, a == atom.Tr, a == atom.Td, a == atom.Th, textHeadingLevel(a) > 0:
		return false
	}
	return true
}

// textTailMax is the most text, in characters, of a paragraph of prose that ends the
// content and is dropped as a call to action (textTree.tailJunk).
const textTailMax = 300

// tailJunk reports whether the paragraph of prose at i, one of the last of the content,
// asks the reader to subscribe, follow, support or write, or says that all rights are
// reserved: what textTailCalls holds. Its phrases are narrower than textCallsToAction's,
// since the paragraph is prose: "published" or "tags" may end an article, "follow us"
// does not.
func (t *textTree) tailJunk(i int32) bool {
	return textTailJunk(strings.ToLower(t.visibleText(i, 4*textTailMax)))
}

// headJunk reports whether the block at i, at an edge of the content or one of its
// first or last paragraphs of prose, is a disclosure (textDisclosures): its links earn
// a commission, it is old.
func (t *textTree) headJunk(i int32) bool {
	return textHeadIndex.phrase(strings.ToLower(t.visibleText(i, 4*textTailMax)))
}

// textTailJunk reports whether s, lower case, holds one of textTailCalls.
func textTailJunk(s string) bool {
	return textTailIndex.phrase(s) // s read once for them all
}

// textTailCalls are phrases, lower case, of the calls to action that end an article in
// a paragraph of their own.
var textTailCalls = slices.Concat([]string{
	// English
	"subscribe", "newsletter", "follow us", "our app", "support our", "support us", "supporting our",
	"letter to the editor", "we want to hear", "join our", "become a member",
	// German
	"abonnieren", "abonnent", "folgen sie", "unterstützen sie", "unterstütze", "meinung des autors",
	"posteingang", "jetzt registrieren", "spenden sie",
	// Spanish, Portuguese, French, Italian, Polish, Dutch
	"síguenos", "siguenos", "suscríbete", "únete", "hazte miembro", "apóyanos", "nos siga", "abonnez-vous",
	"suivez-nous", "soutenez", "iscriviti", "seguici", "subskrybuj", "wesprzyj", "abonneer", "volg ons",
	// A post's metadata, the print edition's and the agencies' notes
	"this entry was posted", "bookmark the permalink", "abgelegt unter", "appeared in print", "version of this article appeared", "links to weblogs",
	"may not be published, broadcast", "non-commercial use only",
}, textRightsReserved) // and copyright lines

// textDisclosures are phrases, lower case, of the notes a site sets over or under an
// article about the article rather than its subject: that its links earn the site a
// commission, and that it is old. The blocks at the edges (textEdgeJunk, and the longer
// ones by textTree.headJunk) and the first and the last two paragraphs of prose go when
// they hold them, not a paragraph between ("I use this soap (both are affiliate
// links)"): "commission" or "affiliate" alone is an article's word.
var textDisclosures = []string{
	"affiliate link", "affiliate links", "affiliate-link", "affiliate-links", "affiliate commission",
	"affiliate commissions", "earn a commission", "earn a small commission", "earn commission",
	"earn commissions", "earn us a commission", "earn us a small commission", "earn an affiliate commission",
	"receive a commission", "receive a small commission", "qualifying purchases", "amazon associate",
	"reader-supported", "paid promotion",
	"this article is more than", "this article is over", "this post is more than", "this post is over",
}

// textCallsToAction are phrases, lower case, of the calls to action that open or close
// an article: to share it, rate it, comment on it, subscribe, read more.
var textCallsToAction = []string{
	// English
	"share this", "share on", "sign up", "read more",
	"related articles", "related posts", "leave a comment", "leave a reply", "comments are closed",
	"you might also like", "recommended for you", "more from", "advertisement", "click here",
	"was this article helpful", "rate this", "donate",
	// German
	"teilen", "anmelden", "lesen sie auch", "mehr zum thema", "weitere artikel",
	"weiterlesen", "kommentieren", "kommentare", "bewerten", "bewertung", "anzeige", "werbung",
	"empfehlungen", "das könnte sie auch interessieren",
	"war der artikel", "hat ihnen",
	// French, Spanish, Italian, Portuguese, Polish, Dutch
	"partager", "abonnez", "lire aussi", "lire la suite", "à lire aussi", "publicité",
	"compartir", "suscribirse", "lee también", "leer más", "publicidad",
	"condividi", "leggi anche", "pubblicità",
	"compartilhe", "assine", "leia também", "publicidade",
	"udostępnij", "czytaj też", "czytaj także", "czytaj więcej", "reklama",
	"delen", "lees ook", "advertentie",
	// Date lines and labels
	"published", "updated", "last modified", "posted on", "tags",
	"veröffentlicht", "aktualisiert", "publiziert", "erstellt am", "zuletzt geändert", "schlagwörter",
	"publié", "mis à jour", "publicado", "actualizado", "pubblicato", "aggiornato", "ultima modifica",
	"opublikowano", "publikacja", "aktualizacja",
	// Photo credits
	"foto:", "fotos:", "bild:", "photo:", "photos:", "©", "quelle:", "istock", "getty images", "symbolbild",
	"credit:", "crédit", "fot.", "imago",
	// More calls to action
	"weitere informationen", "weiterführende informationen", "mehr aus", "kommentarfunktion",
	"thanks for reading", "let us know", "zapraszamy",
	"have your say", "submit a correction", "news tip", "valora esta", "valuta questo", "avalie esta",
	"oceń artykuł", "beoordeel dit", "notez cet",
}

// textPostMeta are phrases, lower case, of a post's own metadata over or under it:
// who posted it when, where it was filed, its permanent link, its trackbacks, its
// copyright ("copyright" itself only opening the block: textTree.edgeJunk).
var textPostMeta = []string{
	// English
	"posted by", "posted at", "posted in", "filed under", "permalink", "trackback",
	"email this", "e-mail this", "send to a friend",
	// German, French, Spanish, Italian, Portuguese, Polish, Dutch
	"gepostet von", "artikel versenden",
	"publié par", "classé dans", "publicado por", "archivado en",
	"pubblicato da", "archiviato in", "tutti i diritti riservati",
	"postado por", "arquivado em", "todos os direitos reservados", "opublikował", "opublikowała",
	"geplaatst door", "geplaatst in", "alle rechten voorbehouden",
	// The way back to the top, and the categories a post was filed under
	"back to top", "zurück nach oben", "retour en haut", "volver arriba", "torna su", "voltar ao topo",
	"do góry", "terug naar boven", "category:", "categories:", "kategorie:", "catégorie:", "categoría:",
	"categoria:", "kategoria:", "categorie:",
}

// visibleText returns the text under the node at i that is shown and not boilerplate,
// white space collapsed, at most max bytes.
func (t *textTree) visibleText(i int32, max int) string {
	tw := textWriter{max: max}
	for j := i; j < t.info[i].end && !tw.full; j++ {
		if t.info[j].flags&(textGone|textPermalink) != 0 {
			j = t.info[j].end - 1
			continue
		}
		if n := t.nodes[j]; n.Type == html.TextNode {
			tw.write(n.Data)
		} else if n.Type == html.ElementNode && textBlock[n.DataAtom] {
			tw.block()
		}
	}
	return tw.String()
}

// textIsByline reports whether s, lower case, is a byline: "By Jane Reporter", "Von
// Heike Buchter", "Par ...", a few words after the word.
func textIsByline(s string) bool {
	for _, by := range []string{"by ", "von ", "par ", "por ", "di ", "door ", "av ", "af ", "autor: ", "author: ", "text: "} {
		if rest, ok := strings.CutPrefix(s, by); ok {
			return len(strings.Fields(rest)) <= 8
		}
	}
	return false
}

// firstText returns the beginning of the first text under the node at i that is shown,
// 40 bytes at most, cut at a character boundary (htmlCut).
func (t *textTree) firstText(i int32) string {
	for j := i; j < t.info[i].end; j++ {
		if t.info[j].flags&(textGone|textPermalink) != 0 {
			j = t.info[j].end - 1
			continue
		}
		if n := t.nodes[j]; n.Type == html.TextNode {
			s := strings.TrimLeft(n.Data, " \t\r\n\f\u00a0")
			return htmlCut(s, 40)
		}
	}
	return ""
}

// textIsReadAlso reports whether s begins as a pointer to another article does:
// "Lesen Sie auch", "Read more", "See also".
func textIsReadAlso(s string) bool {
	if s == "" {
		return false
	}
	s = strings.ToLower(s)
	for _, p := range textReadAlso {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// textReadAlso are the openings, lower case, of pointers to another article.
var textReadAlso = []string{
	"lesen sie auch", "lesen sie mehr", "lesen sie hier", "mehr zum thema", "auch interessant",
	"das könnte sie auch interessieren", "read more", "read also", "related:", "see also", "more:",
	"lire aussi", "à lire aussi", "lea también", "lee también", "leer más", "leggi anche",
	"czytaj też", "czytaj także", "zobacz też", "lees ook",
}

// textTrimTail returns s without the lines that end it and are junk at the edge of the
// content (textEdgeJunk), three at most, one after the other from the end: the lines a
// paragraph of <br>-separated lines ends with ("...the Telegraph said.<br><br>Copyright
// 2008 by UPI"), which are not blocks of their own. A line too long for the edges
// (textEdgeMax) stops it.
func textTrimTail(s string) string {
	for range 3 {
		body := strings.TrimRight(s, " \t\n")
		at := strings.LastIndexByte(body, '\n')
		line := body[at+1:]
		if at < 0 || line == "" {
			return s
		}
		n, _ := textCount(line)
		l := strings.ToLower(strings.TrimSpace(line))
		if n > textTailMax || n > textEdgeMax && !textTailJunk(l) || n <= textEdgeMax && !textEdgeJunk(l) {
			return s
		}
		s = body[:at+1]
	}
	return s
}

// textEndAtNotice returns s cut before the first line that is a notice ending an
// article (textEndNotice) with prose before it (textIsProseLine) and little or none
// after: the publisher's copyright notice with less than half as much prose after it
// as before, the links to print, mail, bookmark or share the article, or a heading of
// other stories, with none. What follows
// such a notice is the page's, not the article's: other stories' headlines and teasers
// (prose too), a shop's boxes, the publisher's address. A notice with as much prose
// after it is inside the article (a photograph's "© 2008" credit between its
// paragraphs). In a text holding a code block (code), where a program's output may
// print its copyright, a copyright notice too needs no prose after it.
func textEndAtNotice(s string, code bool) string {
	total := 0 // the characters of the lines of prose
	for at := 0; at < len(s); {
		line, end := textLineAt(s, at)
		// A notice that is a sentence ("Copyright © 2007 Reed Business Information...
		// All rights reserved.") is no prose.
		if n, _ := textCount(line); textIsProseLine(line, n) && (n > textEdgeMax || textEndNotice(strings.ToLower(line)) == noticeNone) {
			total += int(n)
		}
		at = end + 1
	}
	before := 0
	for at := 0; at < len(s) && total > 0; {
		line, end := textLineAt(s, at)
		n, _ := textCount(line)
		kind := noticeNone
		if n > 0 && n <= textEdgeMax && (before > 0 || textIsProseLine(line, n)) {
			kind = textEndNotice(strings.ToLower(line))
		}
		after := total - before
		switch {
		case kind == noticeNone:
			if textIsProseLine(line, n) {
				before += int(n)
			}
		case before == 0:
		case kind == noticeEnd && after == 0, kind == noticeOpener && (after == 0 || !code && 2*after < before):
			return s[:at]
		}
		at = end + 1
	}
	return s
}

// textLineAt returns the line of s that begins at at, its white space trimmed, and
// where it ends (the '\n' after it, or len(s)).
func textLineAt(s string, at int) (string, int) {
	end := strings.IndexByte(s[at:], '\n')
	if end < 0 {
		end = len(s)
	} else {
		end += at
	}
	return strings.TrimSpace(s[at:end]), end
}

// textIsProseLine reports whether line, of n characters (textCount), is a line of
// prose: 80 characters or more ending a sentence, perhaps inside a quotation or
// parentheses.
func textIsProseLine(line string, n int32) bool {
	if n < 80 {
		return false
	}
	r, size := utf8.DecodeLastRuneInString(line)
	switch r {
	case '"', '\'', ')', '”', '’', '»':
		r, _ = utf8.DecodeLastRuneInString(line[:len(line)-size])
	}
	return r == '.' || r == '!' || r == '?'
}

// Kinds of the notices that end an article (textEndNotice).
const (
	noticeNone   = iota
	noticeEnd    // a link to print, mail or bookmark it, a line that holds a copyright: no prose after it
	noticeOpener // a line that opens with a copyright and a year: less than half the prose after it
)

// textEndNotice says whether s, a short line, lower case, is a notice that ends an
// article: the links that print, mail, bookmark or share it, opening the line ("Print
// this story", "Printer friendly page", "E-mail this to a friend", "Bookmark/Search
// this post with:", "Like this story? Spread the news"), a heading of other stories
// ("Top Stories", "More from SewCanShe:"), or a copyright notice ("© 2008 AFP", "Copyright 2008 The Patriot
// Ledger", "All rights reserved" in the languages of textTailCalls). A line opening
// with "©", "(c)" or "Copyright" and a year, not a picture's credit (textPictureWords),
// is the publisher's own (noticeOpener); one that holds "©" and a year elsewhere may be
// a caption's credit ("Lee Elder, 1975. | © Getty Images").
func textEndNotice(s string) int {
	s = strings.TrimLeft(s, "#>*-[ \t") // a Markdown line's marks
	for _, p := range textEndTools {
		if rest, ok := strings.CutPrefix(s, p); ok {
			// A word of its own: "Bookmark/Search this post", not "bookmarks.el".
			if r, _ := utf8.DecodeRuneInString(rest); !unicode.IsLetter(r) {
				return noticeEnd
			}
		}
	}
	opens := strings.HasPrefix(s, "©") || strings.HasPrefix(s, "(c)") || strings.HasPrefix(s, "copyright")
	if opens && textHasYear(s) && !textPictureIndex.in(s) {
		return noticeOpener
	}
	if (opens || strings.Contains(s, "©")) && textHasYear(s) {
		return noticeEnd
	}
	for _, p := range textRightsReserved {
		if strings.Contains(s, p) {
			return noticeEnd
		}
	}
	return noticeNone
}

// textPictureWords are words, lower case, of a picture's credit.
var textPictureWords = []string{"photo", "foto", "image", "picture", "bild", "getty", "istock", "shutterstock", "imago", "alamy"}

// textEndTools are the openings, lower case, of the links under an article that print,
// mail, bookmark, recommend or share it, and of the headings of other stories after it
// or the links to them ("Also In The News", "Previous story: ...").
var textEndTools = []string{
	"print this", "printer friendly", "printer-friendly", "print email", "e-mail this", "email this", "bookmark", "recommend this",
	"share this", "share on", "share:", "spread the news", "like this story", "like this article", "teilen", "compartir",
	"more from", "more stories", "more news", "other news", "latest news", "top stories", "most read", "most popular", "most viewed",
	"also in the news", "in other news", "previous story", "next story",
}

// textRightsReserved is "All rights reserved", lower case, in the languages of
// textTailCalls: a copyright line, in the last paragraphs' calls (textTailCalls) and in
// the notices that end an article (textEndNotice).
var textRightsReserved = []string{
	"all rights reserved", "alle rechte vorbehalten", "tous droits réservés", "todos los derechos reservados",
	"tutti i diritti riservati", "riproduzione riservata", "todos os direitos reservados", "wszelkie prawa zastrzeżone",
	"alle rechten voorbehouden",
}

// textHasYear reports whether s holds a year of 1900-2099 as a number of its own.
func textHasYear(s string) bool {
	for k := 0; k+4 <= len(s); k++ {
		if (s[k] == '1' && s[k+1] == '9' || s[k] == '2' && s[k+1] == '0') && textIsDigit(s[k+2]) && textIsDigit(s[k+3]) &&
			(k == 0 || !textIsDigit(s[k-1])) && (k+4 == len(s) || !textIsDigit(s[k+4])) {
			return true
		}
	}
	return false
}

// textIsDigit reports whether c is an ASCII digit.
func textIsDigit(c byte) bool { return '0' <= c && c <= '9' }

// textIsDateLine reports whether s, lower case, is a date line: a date or a time with
// at most a few words beside it ("Associated Press - January 14, 2008 4:44 AM ET",
// "Last Update: 1/14 7:52 pm", "Sat, 29 Dec 2007 17:50:54", "3. August 2015"). A date
// is a month's name, a time (12:35), or numbers joined by "/", "." or "-" one of which
// is a year, or three joined by "/" (not a version, 1.2.3); the words beside it, not
// a weekday, "am" or a time zone (textDateWords), are at most four and fewer than its
// own.
func textIsDateLine(s string) bool {
	dated := false
	words, other := 0, 0
	run := 0         // how many numbers in a row are joined by sep
	var sep byte     // what joins them
	yearRun := false // one of them is a year
	long := false    // one of them is neither a year nor of two digits (a phone number)
	prevNum := false // the word before is a number
	for k := 0; k < len(s); {
		r, n := utf8.DecodeRuneInString(s[k:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			k += n
			continue
		}
		start := k
		for k < len(s) {
			r, n := utf8.DecodeRuneInString(s[k:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			k += n
		}
		w := s[start:k]
		words++
		num, year := textDateNumber(w)
		// join is the one byte between this word and a number before it, 0 if none.
		var join byte
		if prevNum && start >= 2 && textIsWordByte(s[start-2]) {
			join = s[start-1]
		}
		switch {
		case num && join == ':':
			dated = true
		case num && (join == '/' || join == '.' || join == '-') && (run == 1 || join == sep) && (year || len(w) <= 2) && !long:
			run++
			sep = join
			yearRun = yearRun || year
			if yearRun || run >= 3 && sep == '/' {
				dated = true
			}
		case num:
			run, sep, yearRun = 1, 0, year
			// A phone number's parts stay out of any date, 158-23-2012.
			long = !year && len(w) > 2 || long && (join == '/' || join == '.' || join == '-')
		case textMonths[w]:
			dated = true
		case !textDateWords[w]:
			other++
		}
		if !num {
			run = 0
		}
		prevNum = num
	}
	return dated && other <= 4 && other*2 < words
}

// textIsWordByte reports whether the byte c is part of a word (a letter or a digit
// of ASCII, or a byte of a longer UTF-8 character).
func textIsWordByte(c byte) bool {
	return c >= utf8.RuneSelf || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// textDateNumber reports whether the word w is a number of a date or a time: digits,
// perhaps with an ordinal's or the clock's ending ("9th", "4pm", "12h"); year, whether
// it is four digits of the years 1900-2099.
func textDateNumber(w string) (num, year bool) {
	d := 0
	for d < len(w) && '0' <= w[d] && w[d] <= '9' {
		d++
	}
	if d == 0 {
		return false, false
	}
	switch w[d:] {
	case "", "st", "nd", "rd", "th", "am", "pm", "h", "e", "er":
	default:
		return false, false
	}
	return true, d == 4 && (w[:2] == "19" || w[:2] == "20")
}

// textMonths are the names of the months, and their usual abbreviations, in the eight
// languages of the phrase lists, lower case ("may" and "mar" too: a date line's other
// words are few).
var textMonths = textSet(
	"january february march april may june july august september october november december " +
		"jan feb mar apr jun jul aug sep sept oct nov dec " +
		"januar jänner februar märz mai juni juli oktober dezember mär okt dez " +
		"janvier février mars avril juin juillet août septembre octobre novembre décembre janv févr avr juil déc " +
		"enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre ene abr ago dic " +
		"gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre gen giu lug ott " +
		"janeiro fevereiro março maio junho julho setembro outubro dezembro fev " +
		"styczeń stycznia luty lutego marzec marca kwiecień kwietnia maj maja czerwiec czerwca lipiec lipca " +
		"sierpień sierpnia wrzesień września październik października listopad listopada grudzień grudnia " +
		"januari februari maart mei augustus")

// textDateWords are words that a date line holds beside its date: weekdays, the
// clock's and the time zones' words, in the eight languages, lower case.
var textDateWords = textSet(
	"monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun " +
		"montag dienstag mittwoch donnerstag freitag samstag sonntag mo di mi do fr sa so " +
		"lundi mardi mercredi jeudi vendredi samedi dimanche " +
		"lunes martes miércoles jueves viernes sábado domingo " +
		"lunedì martedì mercoledì giovedì venerdì sabato domenica " +
		"segunda terça quarta quinta sexta feira " +
		"poniedziałek wtorek środa czwartek piątek sobota niedziela " +
		"maandag dinsdag woensdag donderdag vrijdag zaterdag zondag " +
		"am pm a m p uhr h et est edt ct cst cdt mt mst mdt pt pst pdt gmt utc bst cet cest mez mesz ist")

// textSet returns the words of s, separated by spaces, as a set.
func textSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
