package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// commentsBegin reports whether the readers' comments begin at the element n, after a
// paragraph of prose: at their heading (commentsStart), an anchor named for them
// (textCommentsAnchor) or a line that heads them (commentsLine).
func (w *textWalker) commentsBegin(n *html.Node) bool {
	switch {
	case textHeadingLevel(n.DataAtom) > 0:
		return w.commentsStart(n)
	case n.DataAtom == atom.A:
		return textCommentsAnchor(n)
	}
	return w.commentsLine(n)
}

// afterProse reports whether what was written holds the article's prose, after which
// readers' comments may begin (commentsBegin): a paragraph of prose, or textArticleMin
// bytes of text where the article is runs of text between <br>s in a <span> or a
// table's cell, which are no paragraph until their block ends (2008's news sites): an
// anchor named for the comments at the top (a "jump to comments" target) ends nothing.
func (w *textWalker) afterProse() bool {
	return w.prose[1] > 0 || len(w.out.b) >= textArticleMin
}

// commentsBetween reports whether the readers' comments begin between the chosen
// blocks before and next, after a paragraph of prose: at an anchor named for them, a
// heading or a line that heads them (commentsBegin) that neither holds, where a page
// sets its comments beside the article's paragraphs as blocks of their shape (the
// Telegraph's <p class="story"> for each paragraph and each comment) or as the next
// of the chosen blocks. Never in a thread of posts (textTree.posts).
func (w *textWalker) commentsBetween(before, next int32) bool {
	t := w.t
	if !w.afterProse() || t.posts {
		return false
	}
	for j := t.info[before].end; j < next; j++ {
		in := &t.info[j]
		if in.flags&textGone != 0 {
			j = in.end - 1
			continue
		}
		if in.end <= next && t.nodes[j].Type == html.ElementNode && w.commentsBegin(t.nodes[j]) {
			return true
		}
	}
	return false
}

// commentsStart reports whether the heading n, after a paragraph of prose, opens the
// readers' comments that a page holds inside its content, as blogs do: by its text
// ("Comments", "12 Kommentare", "717 Responses to ...", "Leave a Reply"), or by its
// class or id when that names comments ("<h2 id="comments">").
func (w *textWalker) commentsStart(n *html.Node) bool {
	if textThreadGoesOn(n) {
		return false
	}
	if textNamesComments(htmlAttr(n, "id")) || textNamesComments(htmlAttr(n, "class")) {
		return true
	}
	i, ok := w.t.at[n]
	return ok && w.t.info[i].text <= 200 && textIsCommentsHeading(w.t.visibleText(i, 400))
}

// commentsLine reports whether n, a line of its own in a paragraph, a <div> or bold
// between line breaks, says that readers' comments follow as a heading would ("Comments:",
// "Post Comments", "12 Responses"), where a page sets the heading in bold rather than
// in <h2>.
func (w *textWalker) commentsLine(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Dt, atom.B, atom.Strong:
	default:
		return false
	}
	i, ok := w.t.at[n]
	if !ok || w.t.info[i].text > 40 || w.t.info[i].link > 0 || (n.DataAtom == atom.B || n.DataAtom == atom.Strong) && !textAloneOnLine(n) {
		return false
	}
	// A sentence is not a heading ("No reply." in a story's dialogue), nor is a count of
	// replies to one post ("Reply 9", a forum's button).
	s := strings.TrimSpace(w.t.visibleText(i, 100))
	if strings.HasSuffix(s, ".") || !textIsCommentsHeading(s) {
		return false
	}
	words := textWords(s)
	for len(words) > 0 && textIsCount(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	return len(words) != 1 || textCommentWords[words[0]]
}

// textCommentsAnchor reports whether n is an anchor that marks where readers' comments
// begin: an <a> with no link and no text whose name or id names them (<a
// name="commentSection"></a>, the target of an article's "Comments" link), which pages
// put before their comments where they give them no heading.
func textCommentsAnchor(n *html.Node) bool {
	if n.DataAtom != atom.A || n.FirstChild != nil && strings.TrimSpace(textOf(n, 64)) != "" {
		return false
	}
	var named bool
	for _, a := range n.Attr {
		switch a.Key {
		case "href":
			return false
		case "name", "id":
			named = named || textNamesComments(a.Val)
		}
	}
	return named
}

// textNamesComments reports whether a class or id value names comments: not a
// commentary or a commentator, which an opinion piece's headings may be named for.
func textNamesComments(v string) bool {
	v = strings.ToLower(v)
	for _, s := range textCommentNames {
		for rest := v; ; {
			_, after, found := strings.Cut(rest, s)
			if !found {
				break
			}
			if !textCommentary(after) {
				return true
			}
			rest = after
		}
	}
	return false
}

// textIsCommentsHeading reports whether s is the heading of readers' comments: a word
// for them, with a count before or after it ("7 comments", "Comments (0)", "One
// response"), and the title of the article after "to" or "on" ("717 Responses to
// ..."); or a call to write one ("Leave a Reply", "Schreibe einen Kommentar").
func textIsCommentsHeading(s string) bool {
	words := textWords(s)
	counted := false
	for len(words) > 0 && textIsCount(words[0]) {
		words, counted = words[1:], true
	}
	for len(words) > 0 && textIsCount(words[len(words)-1]) {
		words, counted = words[:len(words)-1], true
	}
	if len(words) == 0 {
		return false
	}
	if plural, ok := textCommentWords[words[0]]; ok && (plural || counted) {
		return len(words) == 1 || len(words) > 2 && textCommentsOn[words[1]]
	}
	phrase := strings.Join(words, " ")
	for _, p := range textCommentCalls {
		if phrase == p {
			return true
		}
	}
	return false
}

// textIsCount reports whether a word counts comments: a number, "one", "no".
func textIsCount(w string) bool {
	switch w {
	case "one", "no", "keine", "ein", "un", "une", "uno":
		return true
	}
	return strings.Trim(w, "0123456789") == ""
}

// textCommentWords name readers' comments in a heading: true for a plural, false for a
// singular, which is a heading of comments only with a count ("1 Comment"; an article's
// "Comment" is its own).
var textCommentWords = map[string]bool{
	"comments": true, "responses": true, "replies": true, "reactions": true,
	"kommentare": true, "leserkommentare": true, "commentaires": true,
	"comentarios": true, "comentários": true, "commenti": true, "komentarze": true, "reacties": true,
	"comment": false, "response": false, "reply": false, "kommentar": false, "commentaire": false,
	"comentario": false, "comentário": false, "commento": false, "komentarz": false, "reactie": false,
}

// textCommentsOn are the words after textCommentWords that lead to the article's
// title: "Responses to", "Comments on", "Kommentare zu".
var textCommentsOn = map[string]bool{"to": true, "on": true, "for": true, "zu": true, "sur": true, "a": true, "en": true, "do": true}

// textCommentCalls are headings, in words, that call on readers to comment.
var textCommentCalls = []string{
	"leave a reply", "leave a comment", "post a comment", "add a comment", "add comment", "reader comments",
	"post comments", "post your comment", "post your comments", "add your comment", "add your comments",
	"schreibe einen kommentar", "kommentar schreiben", "deja un comentario", "laisser un commentaire",
	"lascia un commento", "deixe um comentário", "dodaj komentarz",
}
