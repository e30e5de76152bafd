package extract

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestHTMLPrefix(t *testing.T) {
	for _, tc := range []struct {
		body       string
		max        int
		prefix     string
		restLinks  int
		wantNoRest bool
	}{
		{"<p>short</p>", 100, "<p>short</p>", 0, true},
		{"<p>exact</p>", 12, "<p>exact</p>", 0, true},
		{"<p>one</p><a href=/x>x</a>", 12, "<p>one</p>", 1, false},                          // cut before the tag that starts within
		{"xxxxxxxxxxxxxxxxxxxx<A HREF=/x>", 8, "xxxxxxxx", 1, false},                        // no '<' in the second half: cut at the bound
		{"<a href=/1>1</a>", 2, "<a", 0, false},                                             // a tag cut in two: its rest is no start tag
		{"<p>aaaa<AREA href=/a><iframe src=/i><frame/><abbr><a\n>", 7, "<p>aaaa", 4, false}, // area, iframe, frame, a; not abbr
		{"<p>aaaa</a><a<ahref>", 7, "<p>aaaa", 0, false},                                    // end tags and other names do not count
	} {
		prefix, rest := htmlPrefix([]byte(tc.body), tc.max)
		if string(prefix) != tc.prefix || (rest == nil) != tc.wantNoRest || htmlCountLinks(rest) != tc.restLinks {
			t.Errorf("htmlPrefix(%q, %d):\n\tgot %q, rest %q with %d links\n\twant %q, %d links",
				tc.body, tc.max, prefix, rest, htmlCountLinks(rest), tc.prefix, tc.restLinks)
		}
	}
}

// TestHTMLTruncated checks that only MaxHTMLBytes of a body are parsed, that the page
// says so, and that the links past the bound are counted as skipped.
func TestHTMLTruncated(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><head><title>t</title></head><body>")
	for i := range 100 {
		fmt.Fprintf(&b, `<p><a href="/p/%d">page %d</a></p>`, i, i)
	}
	cut := b.Len()
	for i := 100; i < 130; i++ {
		fmt.Fprintf(&b, `<p><a href="/p/%d">page %d</a></p>`, i, i)
	}
	body := []byte(b.String())

	p, err := HTML(htmlTestURL, nil, body, HTMLOptions{MaxHTMLBytes: cut + 5})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Truncated || len(p.Links) != 100 || p.Skipped["truncated"] != 30 || p.Title != "t" {
		t.Errorf("got truncated %v, %d links, %d skipped as truncated, title %q; want true, 100, 30, \"t\"",
			p.Truncated, len(p.Links), p.Skipped["truncated"], p.Title)
	}
	p, err = HTML(htmlTestURL, nil, body, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Truncated || len(p.Links) != 130 || p.Skipped["truncated"] != 0 {
		t.Errorf("under the default bound: got truncated %v, %d links, %d skipped as truncated; want false, 130, 0",
			p.Truncated, len(p.Links), p.Skipped["truncated"])
	}
}

// TestCharsetNoCopy checks that a body in UTF-8, or ASCII in an ASCII-compatible
// encoding, is read in place rather than copied.
func TestCharsetNoCopy(t *testing.T) {
	for _, tc := range []struct{ name, body, contentType, charset string }{
		{"utf-8", "<p>caf\u00e9</p>", "text/html; charset=utf-8", "utf-8"},
		{"ascii, no charset", "<p>plain ascii</p>", "text/html", "windows-1252"},
		{"ascii declared latin-1", "<p>plain ascii</p>", "text/html; charset=iso-8859-1", "windows-1252"},
		{"ascii declared shift_jis", "<p>plain ascii</p>", "text/html; charset=shift_jis", "shift_jis"},
	} {
		body := []byte(tc.body)
		out, cs := charsetDecode(body, tc.contentType)
		if cs != tc.charset || string(out) != tc.body || &out[0] != &body[0] {
			t.Errorf("%s: got %q in %s, copied %v; want %q in %s, not copied", tc.name, out, cs, &out[0] != &body[0], tc.body, tc.charset)
		}
	}
	// An encoding in which ASCII bytes mean something else is still decoded.
	body := []byte("\x1b$B$3\x1b(B")
	if out, cs := charsetDecode(body, "text/html; charset=iso-2022-jp"); cs != "iso-2022-jp" || string(out) != "\u3053" {
		t.Errorf("iso-2022-jp: got %q in %s, want %q", out, cs, "\u3053")
	}
}

// TestHTMLMemoryBounded checks that hostile 4 MiB bodies cost HTML a bounded number
// of bytes allocated, whatever their shape: the parse reads MaxHTMLBytes at most, and a
// body too large for a tree of small elements is read by the token scan, its main text
// chosen in the tree of its beginning. The bound is generous, 8 times HTMLMemory's
// estimate of what is held at once with text (228 MiB), since allocation also counts
// short-lived garbage; before the bound, the <br> soup allocated 250 MB and the
// attributes 200 MB (at 10 MiB: 621 and 504 MB).
func TestHTMLMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of megabytes")
	}
	const size = 4 << 20
	for _, tc := range []struct {
		name string
		unit string
	}{
		{"tag soup", "<br>"},
		{"text run", "x"},
		{"links", `<a href="/l">l</a>`},
		{"attributes", "<i a b c d e f g>"},
		{"deep nesting", "<div>"},
	} {
		body := append([]byte("<html><body>"), bytes.Repeat([]byte(tc.unit), size/len(tc.unit))...)
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		opts := HTMLOptions{WithText: true}
		p, err := HTML(htmlTestURL, nil, body, opts)
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		got := int64(m1.TotalAlloc - m0.TotalAlloc)
		bound := 8 * HTMLMemory(int64(len(body)), opts)
		if got > bound || !p.Truncated {
			t.Errorf("%s: allocated %d MB, truncated %v; want at most %d MB, truncated", tc.name, got>>20, p.Truncated, bound>>20)
		}
	}
}

// FuzzHTMLPrefix checks the cut of a body at MaxHTMLBytes: never a panic, the prefix
// within the bound and no shorter than half of it, Truncated exactly when the body is
// longer, and the links past the cut counted, never negative.
func FuzzHTMLPrefix(f *testing.F) {
	f.Add([]byte(`<p>one</p><a href=/x>x</a><AREA href=/y>`), uint16(12))
	f.Add([]byte(`<a href=/1>1</a><a`), uint16(2))
	f.Add([]byte("\xff\xfe<\x00a\x00>\x00"), uint16(3))
	f.Fuzz(func(t *testing.T, body []byte, max16 uint16) {
		maxBytes := int(max16) + 1
		prefix, rest := htmlPrefix(body, maxBytes)
		if len(prefix) > maxBytes || len(body) > maxBytes && len(prefix) < maxBytes/2 {
			t.Fatalf("prefix of %d bytes for a bound of %d", len(prefix), maxBytes)
		}
		if string(prefix)+string(rest) != string(body) || (rest != nil) != (len(body) > maxBytes) {
			t.Fatalf("prefix %q and rest %q do not split %q at %d", prefix, rest, body, maxBytes)
		}
		p, err := HTML(htmlTestURL, nil, body, HTMLOptions{MaxHTMLBytes: maxBytes})
		if err != nil {
			t.Fatalf("HTML: %v", err)
		}
		if p.Truncated != (rest != nil) || p.Skipped["truncated"] != htmlCountLinks(rest) {
			t.Fatalf("truncated %v with %d links skipped; want %v, %d", p.Truncated, p.Skipped["truncated"], rest != nil, htmlCountLinks(rest))
		}
	})
}
