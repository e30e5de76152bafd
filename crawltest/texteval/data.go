package texteval

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// Page is one page of a set: its HTML, its URL and what it is scored against.
type Page struct {
	Name    string   // file name, without directory
	URL     string   // the page's URL, "" when the set does not give one
	HTML    []byte   // the page as fetched
	Truth   string   // the article body (benchmark set)
	With    []string // snippets the text must contain (trafilatura's set)
	Without []string // snippets the text must not contain (trafilatura's set)
}

// LoadBenchmark reads a checkout of scrapinghub/article-extraction-benchmark:
// ground-truth.json and html/ID.html.gz.
func LoadBenchmark(dir string) ([]Page, error) {
	var truth map[string]struct {
		Body string `json:"articleBody"`
		URL  string `json:"url"`
	}
	if err := readJSON(filepath.Join(dir, "ground-truth.json"), &truth); err != nil {
		return nil, err
	}
	var pages []Page
	for id, t := range truth {
		b, err := readGzip(filepath.Join(dir, "html", id+".html.gz"))
		if err != nil {
			return nil, err
		}
		pages = append(pages, Page{Name: id + ".html", URL: t.URL, HTML: b, Truth: t.Body})
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].Name < pages[j].Name })
	return pages, nil
}

// LoadTrafilatura reads trafilatura's evaluation set: the JSON file that maps each URL
// to its file and snippets (tests/evaldata.json) and the directory of pages
// (tests/eval). Entries whose file is missing are skipped, as trafilatura's own
// evaluation skips them.
func LoadTrafilatura(jsonPath, dir string) ([]Page, error) {
	var data map[string]struct {
		File    string   `json:"file"`
		With    []string `json:"with"`
		Without []string `json:"without"`
	}
	if err := readJSON(jsonPath, &data); err != nil {
		return nil, err
	}
	var pages []Page
	for u, d := range data {
		b, err := os.ReadFile(filepath.Join(dir, d.File))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		pages = append(pages, Page{Name: d.File, URL: u, HTML: b, With: d.With, Without: d.Without})
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].Name < pages[j].Name })
	return pages, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func readGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !strings.HasSuffix(path, ".gz") {
		return io.ReadAll(f)
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return io.ReadAll(z)
}

// LoadReference reads the output of .ci/readability.js: one JSON object a line, {"file":
// path, "text": text}, and returns the texts by file base name.
func LoadReference(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	texts := make(map[string]string)
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r struct {
			File string `json:"file"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		texts[filepath.Base(r.File)] = r.Text
	}
	return texts, nil
}

// LoadReadability reads Readability.js's test pages (a checkout's test/test-pages):
// each directory's source.html, scored against the text of its expected.html (every
// text node, joined by spaces), which is Readability.js's own output for the page.
func LoadReadability(dir string) ([]Page, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var pages []Page
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, e.Name(), "source.html"))
		if err != nil {
			return nil, err
		}
		exp, err := os.ReadFile(filepath.Join(dir, e.Name(), "expected.html"))
		if err != nil {
			return nil, err
		}
		pages = append(pages, Page{Name: e.Name(), URL: "http://fakehost/test/page.html", HTML: src, Truth: htmlText(exp)})
	}
	return pages, nil
}

// htmlText returns every text node of an HTML document, unescaped, joined by spaces.
func htmlText(b []byte) string {
	var sb strings.Builder
	z := html.NewTokenizer(bytes.NewReader(b))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return sb.String()
		case html.TextToken:
			sb.Write(z.Text())
			sb.WriteByte(' ')
		}
	}
}

// newsMinWords is the fewest words of truth a page of the news set has: one with fewer is
// a photo post, a video page or a day's pictures rather than an article (55 of Dragnet's
// pages, none of GN1's), where a caption or a licence line kept beside a truth of a few
// words would weigh as much as a whole article missed.
const newsMinWords = 50

// LoadNews reads the news set that newsset.sh builds: NAME.html, the page as fetched, and
// beside it its truth, NAME.annotated for L3S-GN1's pages (the text of the blocks its
// assessors labelled full text, <span class="x-nc-sel2">) or NAME.corrected for Dragnet's
// (the article part of the text its annotator copied: what precedes the line that
// starts its comments); urls.tsv gives the pages' URLs. Pages whose truth has fewer than
// newsMinWords words are left out, and those whose HTML does not hold their truth (less
// than half of its shingles are among those of the page's text: two of Dragnet's, whose
// text was copied from another page or from one that scripts filled).
func LoadNews(dir string) ([]Page, error) {
	return loadDir(dir, func(name string) (string, error) {
		if t, err := os.ReadFile(filepath.Join(dir, name+".annotated")); err == nil {
			return labelledText(t, "x-nc-sel2"), nil
		}
		t, err := os.ReadFile(filepath.Join(dir, name+".corrected"))
		if err != nil {
			return "", fmt.Errorf("no truth beside it: %w", err)
		}
		return dragnetArticle(plainText(t)), nil
	})
}

// loadDir reads a set of pages in dir, each NAME.html beside its truth, which truth
// returns for NAME, and urls.tsv, which maps names to URLs. Pages whose truth has fewer
// than newsMinWords words are left out, and those whose HTML does not hold their truth
// (less than half of its shingles are among those of the page's text).
func loadDir(dir string, truth func(name string) (string, error)) ([]Page, error) {
	urls := make(map[string]string)
	b, err := os.ReadFile(filepath.Join(dir, "urls.tsv"))
	if err != nil {
		return nil, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if name, u, ok := strings.Cut(line, "\t"); ok {
			urls[name] = u
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil {
		return nil, err
	}
	var pages []Page
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".html")
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		t, err := truth(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if len(Tokens(t)) < newsMinWords || covered(t, htmlText(src)) < 0.5 {
			continue
		}
		pages = append(pages, Page{Name: name + ".html", URL: urls[name], HTML: src, Truth: t})
	}
	return pages, nil
}

// covered is the share of truth's shingles (as a multiset) that text has.
func covered(truth, text string) float64 {
	t, p := shingles(truth), shingles(text)
	var n, in int
	for k, tn := range t {
		n += tn
		in += min(tn, p[k])
	}
	if n == 0 {
		return 0
	}
	return float64(in) / float64(n)
}

// plainText decodes a text file of Dragnet's: UTF-8, UTF-16 after a byte order mark
// (5 files), or else windows-1252 (38 files).
func plainText(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xff, 0xfe}), bytes.HasPrefix(b, []byte{0xfe, 0xff}):
		b, _ = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder().Bytes(b)
	case !utf8.Valid(b):
		b, _ = charmap.Windows1252.NewDecoder().Bytes(b)
	}
	return string(b)
}

// dragnetArticle returns the article part of a Dragnet text file: what precedes the line
// that starts its comments, "!@#$%^&*()  COMMENTS" as most write it, and as 36 of the
// files write it, with one space or three, a tab, a carriage return, or a character of
// the keys left out or doubled ("!@ $%^&*()", "@#$%^&*()", "!@#$%^&**()").
func dragnetArticle(s string) string {
	for at := 0; at < len(s); {
		line, _, _ := strings.Cut(s[at:], "\n")
		if l := strings.TrimSpace(line); strings.HasSuffix(l, "COMMENTS") && strings.Contains(l, "$%^&*") {
			return s[:at]
		}
		at += len(line) + 1
	}
	return s
}

// labelledText returns the text inside the <span> elements of an annotated document whose
// class list holds class (and inside any element nested in one), joined by spaces.
func labelledText(b []byte, class string) string {
	var sb strings.Builder
	var spans []bool // open <span>s, true when it or a span around it is labelled
	in := func() bool { return len(spans) > 0 && spans[len(spans)-1] }
	z := html.NewTokenizer(bytes.NewReader(b))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return sb.String()
		case html.TextToken:
			if in() {
				sb.Write(z.Text())
				sb.WriteByte(' ')
			}
		case html.StartTagToken, html.EndTagToken:
			name, attr := z.TagName()
			if string(name) != "span" {
				continue
			}
			if tt == html.EndTagToken {
				if len(spans) > 0 {
					spans = spans[:len(spans)-1]
				}
				continue
			}
			labelled := in()
			for attr {
				var k, v []byte
				k, v, attr = z.TagAttr()
				if string(k) == "class" && slices.Contains(strings.Fields(string(v)), class) {
					labelled = true
				}
			}
			spans = append(spans, labelled)
		}
	}
}

// LoadModern reads the modern set that modernset.sh builds: NAME.html, the page as
// fetched, and beside it NAME.labelled, the same page with its annotators' __label
// attributes, whose elements labelled main are the truth (the article body: not the
// headline, byline, date, captions or comments); urls.tsv gives the pages' URLs. Pages
// are left out as LoadNews leaves them out: a truth of fewer than newsMinWords words (a
// site's home page), or one the page's HTML does not hold.
func LoadModern(dir string) ([]Page, error) {
	return loadDir(dir, func(name string) (string, error) {
		l, err := os.ReadFile(filepath.Join(dir, name+".labelled"))
		if err != nil {
			return "", fmt.Errorf("no truth beside it: %w", err)
		}
		return labelText(l, "main")
	})
}

// labelText returns the text of the elements of b whose nearest labelled ancestor (or
// themselves) has __label="label" (the annotators' value, trimmed: a few carry a space),
// as a browser lays it out: text nodes joined as they stand, a line break at each block
// element, no script, style or template text. b is decoded as a browser would (its
// <meta> charset, else UTF-8).
func labelText(b []byte, label string) (string, error) {
	enc, _, _ := charset.DetermineEncoding(b, "text/html")
	doc, err := html.Parse(enc.NewDecoder().Reader(bytes.NewReader(b)))
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	var walk func(n *html.Node, in bool)
	walk = func(n *html.Node, in bool) {
		switch n.Type {
		case html.TextNode:
			if in {
				sb.WriteString(n.Data)
			}
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Template, atom.Noscript:
				return
			}
			for _, a := range n.Attr {
				if a.Key == "__label" {
					in = strings.TrimSpace(a.Val) == label
				}
			}
		}
		block := n.Type == html.ElementNode && labelBlocks[n.DataAtom]
		if block && in {
			sb.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, in)
		}
		if block && in {
			sb.WriteByte('\n')
		}
	}
	walk(doc, false)
	return sb.String(), nil
}

// labelBlocks are the elements labelText breaks lines at.
var labelBlocks = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Br: true,
	atom.Dd: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Figcaption: true,
	atom.Figure: true, atom.Footer: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true, atom.Hr: true, atom.Li: true,
	atom.Main: true, atom.Nav: true, atom.Ol: true, atom.P: true, atom.Pre: true,
	atom.Section: true, atom.Table: true, atom.Td: true, atom.Th: true, atom.Tr: true, atom.Ul: true,
}

// LoadWCXB reads the WCXB set built by wcxbset.sh in dir: each NAME.html beside
// NAME.truth, its main text. Pages with fewer than newsMinWords words of truth, or
// whose HTML holds less than half of it (as LoadNews), are left out.
func LoadWCXB(dir string) ([]Page, error) {
	return loadDir(dir, func(name string) (string, error) {
		t, err := os.ReadFile(filepath.Join(dir, name+".truth"))
		if err != nil {
			return "", fmt.Errorf("no truth beside it: %w", err)
		}
		return string(t), nil
	})
}
