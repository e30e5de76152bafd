package extract

import (
	"bytes"
	"mime"
	"net/http"
	"net/url"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// CSSRequisites returns what a stylesheet needs: the URLs of its @import rules (as
// KindStylesheet), of the src descriptors of its @font-face rules (KindFont), and
// of its other url(), src() and image-set() values (KindImage), resolved against
// sheetURL, the URL the stylesheet was fetched from (after redirects), followed by
// what the response's Link header asks to preload (see LinkHeaderRequisites).
// header is the response header (Content-Type and Link are read; nil is allowed);
// body is the raw, already decompressed response body, read in its own encoding
// (see cssDecode). CSSRequisites parses, never fetches.
//
// Bad input never fails: the only error is a sheetURL that is nil or not an
// absolute http or https URL with a valid host (a *URLError with Op "css"). It is
// safe for simultaneous use by multiple goroutines; its time is linear in
// min(len(body), MaxCSSBytes), and the result shares no memory with body.
func CSSRequisites(sheetURL *url.URL, header http.Header, body []byte, opts RequisiteOptions) (*Requisites, error) {
	base, err := reqBase("css", sheetURL)
	if err != nil {
		return nil, err
	}
	opts.defaults()
	r := &Requisites{max: opts.MaxRequisites}
	linkHeader(r, &base, header)
	if len(body) > opts.MaxCSSBytes {
		body, r.Truncated = body[:opts.MaxCSSBytes], true
	}
	text, cs := cssDecode(body, header.Get("Content-Type"), opts.Charset)
	r.Charset = cs
	cssScan(text, func(ref string, kind Kind) { r.add(&base, ref, kind, "css") })
	r.at = nil
	return r, nil
}

// reqBase parses the URL of a document as the base its references resolve against.
func reqBase(op string, u *url.URL) (canonParts, error) {
	if u == nil {
		return canonParts{}, canonErr(op, "", ErrRelative)
	}
	base, err := (*URLRules)(nil).canonParse(u.String())
	if err != nil {
		return canonParts{}, canonErr(op, u.String(), err)
	}
	return base, nil
}

// cssDecode returns a stylesheet as valid UTF-8 together with the WHATWG name of the
// encoding it was read in, chosen as CSS Syntax Level 3 says ("determine the fallback
// encoding"): a byte order mark, else the charset parameter of contentType, else an
// @charset rule at the very start (UTF-16 there meaning UTF-8), else fallback (the
// referring document's encoding), else UTF-8. Bytes invalid in the encoding become
// U+FFFD. A body that is valid UTF-8, or ASCII in an encoding ASCII is a subset of,
// is returned as it is.
func cssDecode(body []byte, contentType, fallback string) ([]byte, string) {
	enc, name := cssEncoding(body, contentType, fallback)
	return decodeAs(body, enc, name)
}

// cssEncoding chooses a stylesheet's encoding (see cssDecode).
func cssEncoding(body []byte, contentType, fallback string) (encoding.Encoding, string) {
	switch {
	case bytes.HasPrefix(body, charsetUTF8BOM):
		return charset.Lookup("utf-8")
	case bytes.HasPrefix(body, []byte{0xFE, 0xFF}):
		return charset.Lookup("utf-16be")
	case bytes.HasPrefix(body, []byte{0xFF, 0xFE}):
		return charset.Lookup("utf-16le")
	}
	if _, params, err := mime.ParseMediaType(contentType); err == nil && params["charset"] != "" {
		if enc, name := charset.Lookup(params["charset"]); enc != nil {
			return enc, name
		}
	}
	if rest, ok := bytes.CutPrefix(body, cssCharsetRule); ok {
		if label, _, ok := bytes.Cut(rest[:min(len(rest), 64)], []byte(`";`)); ok {
			if enc, name := charset.Lookup(string(label)); enc != nil {
				if name == "utf-16be" || name == "utf-16le" {
					return charset.Lookup("utf-8")
				}
				return enc, name
			}
		}
	}
	if enc, name := charset.Lookup(fallback); enc != nil {
		return enc, name
	}
	return charset.Lookup("utf-8")
}

// cssCharsetRule starts an @charset rule, byte for byte as CSS requires it.
var cssCharsetRule = []byte(`@charset "`)
