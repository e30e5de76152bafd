package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCSSRequisites checks that CSSRequisites never panics and stays within its
// limits, that what it finds are canonical http(s) URLs of the kinds a stylesheet
// has, and two properties of the scanner on text: a rule put before a stylesheet
// changes nothing it finds, and without escapes each reference it finds is written
// in the text as it is.
func FuzzCSSRequisites(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "css", "*.css"))
	for _, in := range inputs {
		b, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`@import url(x.css);@font-face{src:url(f.woff2)}a{b:image-set("i.png" 1x)}`))
	f.Add([]byte("\xff\xfe@\x00i\x00m\x00p\x00o\x00r\x00t\x00 \x00'\x00a\x00'\x00"))
	f.Fuzz(func(t *testing.T, body []byte) {
		opts := RequisiteOptions{MaxRequisites: 20, MaxCSSBytes: 1 << 14}
		r, err := CSSRequisites(mustURL(t, "https://example.com/css/s.css"), nil, body, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Found) > opts.MaxRequisites {
			t.Fatalf("%d requisites, limit %d", len(r.Found), opts.MaxRequisites)
		}
		seen := map[string]bool{}
		for _, q := range r.Found {
			if q.Kind != KindImage && q.Kind != KindFont && q.Kind != KindStylesheet {
				t.Errorf("%s: kind %v", q.URL, q.Kind)
			}
			if c, err := Canonical(q.URL); err != nil || c != q.URL {
				t.Errorf("%q is not canonical: %q, %v", q.URL, c, err)
			}
			if seen[q.URL] {
				t.Errorf("%q found twice", q.URL)
			}
			seen[q.URL] = true
		}

		if !utf8.Valid(body) {
			return
		}
		scan := func(s []byte) []reqRef {
			var refs []reqRef
			cssScan(s, func(ref string, kind Kind) { refs = append(refs, reqRef{ref: ref, kind: kind}) })
			return refs
		}
		refs := scan(body)
		if again := scan(append([]byte("x { background: red }\n"), body...)); !equalRefs(refs, again) {
			t.Errorf("a rule before the stylesheet changed what it finds:\n\t%v\n\t%v", refs, again)
		}
		if !bytes.ContainsRune(body, '\\') {
			for _, ref := range refs {
				if !strings.Contains(string(body), ref.ref) {
					t.Errorf("found %q, which the text does not hold", ref.ref)
				}
			}
		}
	})
}

func equalRefs(a, b []reqRef) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
