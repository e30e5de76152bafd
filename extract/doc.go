// Package extract finds what a fetched document points to and what it says about
// itself: links, page requisites, metadata, robots directives and main text of HTML
// pages (read with golang.org/x/net/html's tokenizer, in one pass), URLs of sitemaps and
// feeds, and the canonical form every URL takes before it reaches the frontier, with
// the scope rules that keep a crawl where its user wants it.
//
// Everything here parses bytes the caller already has and never fetches: the engine
// does the I/O through robots and politeness, then hands the body over.
//
// # Canonical URLs
//
// [URLRules.Canonical] (or [Canonical] with [DefaultURLRules]) is the one function
// every URL goes through before deduplication; [URLRules.Resolve] resolves an href as a
// browser does and canonicalises the result; [Authority] gives the "scheme://host[:port]"
// key of hosts. Only http and https URLs have a canonical form.
//
// # HTML
//
// [HTML] returns a [Page]: links from a, area, link (canonical, alternate, next, prev),
// iframe and frame elements, resolved against <base href>; title, language, canonical
// URL, description, optionally the main text; and the robots [Directives] of meta tags
// and the X-Robots-Tag header ([RobotsTag] reads the header alone).
//
// # Requisites
//
// What a browser loads to show a document is a requisite, not a link: [HTMLRequisites]
// finds them in HTML (images and srcset candidates, stylesheets, scripts, icons,
// frames, media, objects, SVG references, and the CSS of <style> blocks and style
// attributes), [CSSRequisites] in a stylesheet read in its own encoding (@import,
// @font-face src, url(), image-set()), and [LinkHeaderRequisites] in a Link response
// header (preload, modulepreload, stylesheet). Each [Requisite] has a [Kind], by which
// a caller decides what to fetch. None of them runs scripts.
//
// # Main text
//
// The main text is a reader's text, chosen without needing role="main": navigation,
// headers, footers, sidebars, comments, share bars and cookie banners are marked by
// element, role, class and id; the content is the block whose paragraphs score best by
// length, commas and link density (as readability scores them), with its siblings of
// prose, or every paragraph of prose of the page when no block holds enough of it.
// Paragraphs, headings, list items and table rows become lines, <pre> blocks keep their
// line breaks and indentation, footnotes in <aside> stay, permalink marks ("¶",
// a.headerlink) go. [TextMarkdown] writes the same as Markdown.
//
// # Caveats
//
// Bad input never panics and never fails a page: invalid bytes become U+FFFD, broken
// markup is parsed as browsers parse it, and hrefs that cannot be used are counted in
// Page.Skipped by reason. The tree the main text is chosen in is built from the
// tokens as the HTML parser builds it, less two of its repairs of tag soup (formatting
// elements reopened across blocks, foster parenting): on 884 of trafilatura's
// evaluation pages its main text differed from that of the parser's tree on 4, the URLs
// of its links on none. Links, requisites (HTMLOptions.WithRequisites) and main text
// are all found in one pass of the tokenizer. Documents nested deeper than 512
// elements, which the parser refuses to build, are read by a token scan instead
// (Page.Fallback); a caller that needs no text can ask for that scan on every page
// (HTMLOptions.TokenScan). Functions and methods are safe for simultaneous use by
// multiple goroutines; returned values share no memory with their inputs.
package extract
