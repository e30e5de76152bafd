package extract

import (
	"fmt"
	"strings"
)

// Kind is what a page requisite is to the browser that loads it. The zero value
// is KindOther.
type Kind uint8

// The kinds of requisite, by what the browser does with them.
const (
	KindOther      Kind = iota // fetched for the page, of no known kind (<link rel=preload as=fetch>)
	KindStylesheet             // <link rel=stylesheet>, @import
	KindScript                 // <script src>, <link rel=modulepreload>
	KindImage                  // <img>, srcset, poster, CSS url() and image-set(), SVG <image>
	KindFont                   // @font-face src, <link rel=preload as=font>
	KindIcon                   // <link rel=icon>, apple-touch-icon
	KindFrame                  // <iframe src>, <frame src>: a document in the page
	KindObject                 // <object data>, <embed src>
	KindAudio                  // <audio src>, its <source> and <track>
	KindVideo                  // <video src>, its <source> and <track>
	KindManifest               // <link rel=manifest>
	numKinds
)

var kindNames = [numKinds]string{
	KindOther: "other", KindStylesheet: "stylesheet", KindScript: "script", KindImage: "image",
	KindFont: "font", KindIcon: "icon", KindFrame: "frame", KindObject: "object",
	KindAudio: "audio", KindVideo: "video", KindManifest: "manifest",
}

// Kinds returns every kind, in the order of their values.
func Kinds() []Kind {
	ks := make([]Kind, numKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

// String returns the kind's name: "stylesheet", "script", "image", "font", "icon",
// "frame", "object", "audio", "video", "manifest" or "other".
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind returns the kind named s (as String writes it, case-insensitively), or
// an error naming the kinds there are.
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if strings.EqualFold(strings.TrimSpace(s), name) {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("extract: unknown requisite kind %q (known: %s)", s, strings.Join(kindNames[:], ", "))
}

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// MaxImportNesting bounds a chain of stylesheets imported by stylesheets, which
// the crawler and its capture report follow at the hop of the stylesheet heading
// the chain: an @import costs no hop, since the browser loads the whole chain to
// apply that stylesheet (the Python manual's pydoctheme.css imports default.css,
// which imports classic.css, which imports basic.css: three deep).
const MaxImportNesting = 8

// Requisite is a resource a browser loads to show a document (an image, a
// stylesheet, a font, a script, a frame), found without running scripts.
type Requisite struct {
	// URL is absolute, resolved as a browser resolves it (against <base href> in
	// HTML, against the stylesheet's URL in CSS, against the response's URL in a
	// Link header) and normalised as (*URLRules)(nil).Canonical does. Fetch it as
	// it is: a replay tool looks up the URL the browser asks for, so no parameter
	// may be stripped.
	URL string `json:"url"`
	// Kind is what the browser does with it.
	Kind Kind `json:"kind"`
	// From is where it was found: the element ("img", "link", "source", …), "style"
	// (a <style> block or a style attribute), "css" (a stylesheet) or "link-header"
	// (a Link response header).
	From string `json:"from"`
}

// DefaultMaxRequisites is the number of distinct requisite URLs kept per document
// when RequisiteOptions.MaxRequisites is zero.
const DefaultMaxRequisites = 2000

// DefaultMaxCSSBytes is the number of bytes of a stylesheet read when
// RequisiteOptions.MaxCSSBytes is zero (2 MiB).
const DefaultMaxCSSBytes = 2 << 20

// RequisiteOptions tunes HTMLRequisites and CSSRequisites. The zero value uses the
// defaults.
type RequisiteOptions struct {
	// MaxRequisites bounds len(Requisites.Found); requisites to new URLs past it are
	// counted in Requisites.Skipped["limit"]. Zero means DefaultMaxRequisites.
	MaxRequisites int
	// MaxHTMLBytes bounds the bytes of an HTML body read, as HTMLOptions.MaxHTMLBytes
	// does; zero means DefaultMaxHTMLBytes.
	MaxHTMLBytes int
	// MaxCSSBytes bounds the bytes of a stylesheet read; zero means
	// DefaultMaxCSSBytes.
	MaxCSSBytes int
	// Charset is the WHATWG name of the encoding of the document that referred to a
	// stylesheet, which CSSRequisites uses when neither the stylesheet nor its
	// response says its own (CSS Syntax, "determine the fallback encoding"); "" means
	// UTF-8.
	Charset string
}

func (o *RequisiteOptions) defaults() {
	if o.MaxRequisites <= 0 {
		o.MaxRequisites = DefaultMaxRequisites
	}
	if o.MaxHTMLBytes <= 0 {
		o.MaxHTMLBytes = DefaultMaxHTMLBytes
	}
	if o.MaxCSSBytes <= 0 {
		o.MaxCSSBytes = DefaultMaxCSSBytes
	}
}

// Requisites is what a document needs to be shown.
type Requisites struct {
	// Found holds the requisites in document order, one per URL (the first mention
	// gives its kind, unless that was KindOther and a later one says more), at most
	// RequisiteOptions.MaxRequisites. Those of the Link header come first.
	Found []Requisite `json:"found,omitempty"`
	// Skipped counts the references not in Found, by reason: "data" (a data: URL,
	// which needs no fetch), "empty", "fragment" (#id in the same document),
	// "javascript", "scheme" (another scheme than http and https), "malformed" and
	// "limit" (a new URL past MaxRequisites). nil when nothing was skipped.
	Skipped map[string]int `json:"skipped,omitempty"`
	// Charset is the WHATWG name of the encoding the document was read in.
	Charset string `json:"charset"`
	// Truncated is true when only the first part of the body was read (see
	// RequisiteOptions).
	Truncated bool `json:"truncated,omitempty"`

	at  map[string]int // index in Found by URL
	max int
}

// reqRef is a reference found in a document, not resolved yet.
type reqRef struct {
	ref  string
	kind Kind
	from string
}

// add resolves ref against base and records it, or counts why not.
func (r *Requisites) add(base *canonParts, ref string, kind Kind, from string) {
	u, reason := reqResolve(base, ref)
	if reason != "" {
		r.skip(reason)
		return
	}
	if i, dup := r.at[u]; dup {
		if r.Found[i].Kind == KindOther {
			r.Found[i].Kind = kind
		}
		return
	}
	if len(r.Found) >= r.max {
		r.skip("limit")
		return
	}
	if r.at == nil {
		r.at = make(map[string]int)
	}
	r.at[u] = len(r.Found)
	r.Found = append(r.Found, Requisite{URL: u, Kind: kind, From: from})
}

func (r *Requisites) skip(reason string) {
	if r.Skipped == nil {
		r.Skipped = make(map[string]int)
	}
	r.Skipped[reason]++
}

// reqResolve resolves a reference against base, or says why it is nothing to
// fetch. Unlike a link, an empty reference is not the base document (an <img
// src=""> loads nothing) and a fragment alone is in the same document whatever
// <base href> says (an SVG <use href="#icon">).
func reqResolve(base *canonParts, ref string) (u, reason string) {
	ref = canonClean(ref)
	switch {
	case ref == "":
		return "", "empty"
	case ref[0] == '#':
		return "", "fragment"
	}
	return htmlResolve(base, ref, false)
}
