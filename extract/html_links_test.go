package extract

import (
	"fmt"
	"strings"
	"testing"
)

// TestHTMLLinkResolution checks how hrefs that are empty or only a fragment resolve,
// with and without <base href> (issue 12, defect 4), on both parsers.
func TestHTMLLinkResolution(t *testing.T) {
	const page = "https://example.com/dir/page.html?id=7"
	tests := []struct {
		name, head, href string
		want             string // "" means no link
		skipped          string // the Skipped reason when want is ""
	}{
		{"empty under base", `<base href="/other/">`, ``, "https://example.com/other/", ""},
		{"blank under base", `<base href="/other/">`, "  \t", "https://example.com/other/", ""},
		{"empty under absolute base", `<base href="https://cdn.example.org/x/y.html?v=1">`, ``, "https://cdn.example.org/x/y.html?v=1", ""},
		{"fragment under base", `<base href="/other/">`, `#top`, "https://example.com/other/", ""},
		{"empty without base", ``, ``, page, ""},
		{"fragment without base", ``, `#top`, "", "fragment"},
		{"empty under unusable base", `<base href="http://[bad">`, ``, page, ""},
		{"relative under base", `<base href="/other/">`, `x.html#a`, "https://example.com/other/x.html", ""},
	}
	for _, tt := range tests {
		body := "<html><head>" + tt.head + "</head><body><a href=\"" + tt.href + "\">a</a></body></html>"
		for _, parser := range []string{"tree", "tokens"} {
			t.Run(tt.name+"/"+parser, func(t *testing.T) {
				p := htmlParse(t, page, body, parser, HTMLOptions{})
				var got string
				if len(p.Links) == 1 {
					got = p.Links[0].URL
				} else if len(p.Links) > 1 {
					t.Fatalf("HTML(%q): %d links: %+v", body, len(p.Links), p.Links)
				}
				if got != tt.want {
					t.Errorf("HTML(%q) link:\n\tgot  %q\n\twant %q", body, got, tt.want)
				}
				if tt.skipped != "" && p.Skipped[tt.skipped] != 1 {
					t.Errorf("HTML(%q) Skipped = %v, want %s: 1", body, p.Skipped, tt.skipped)
				}
				if tt.want != "" && len(p.Skipped) != 0 {
					t.Errorf("HTML(%q) Skipped = %v, want none", body, p.Skipped)
				}
			})
		}
	}
}

// TestHTMLLinkLimitCountsDistinctURLs checks that MaxLinks bounds distinct URLs: links
// that differ only in their fragment do not use it up (issue 12, defect 3).
func TestHTMLLinkLimitCountsDistinctURLs(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><body>")
	for page := range 5 {
		for frag := range 40 {
			fmt.Fprintf(&b, `<a href="/p%d.html#s%d">s</a>`, page, frag)
		}
	}
	// A sixth and seventh URL: one is past the bound.
	b.WriteString(`<a href="/p5.html">5</a><a href="/p6.html">6</a></body></html>`)
	for _, parser := range []string{"tree", "tokens"} {
		t.Run(parser, func(t *testing.T) {
			p := htmlParse(t, "https://example.com/", b.String(), parser, HTMLOptions{MaxLinks: 6})
			var got []string
			for _, l := range p.Links {
				got = append(got, l.URL)
			}
			want := []string{"https://example.com/p0.html", "https://example.com/p1.html", "https://example.com/p2.html",
				"https://example.com/p3.html", "https://example.com/p4.html", "https://example.com/p5.html"}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("links:\n\tgot  %q\n\twant %q", got, want)
			}
			if p.Skipped["limit"] != 1 {
				t.Errorf("Skipped = %v, want limit: 1", p.Skipped)
			}
		})
	}
}

// TestHTMLLinkNoFollowMerged checks that a URL linked both with and without
// rel="nofollow" is kept once and is followable.
func TestHTMLLinkNoFollowMerged(t *testing.T) {
	tests := []struct {
		body         string
		wantNoFollow bool
	}{
		{`<a rel="nofollow" href="/x#1">1</a><a href="/x#2">2</a>`, false},
		{`<a href="/x">1</a><a rel="nofollow" href="/x">2</a>`, false},
		{`<a rel="nofollow" href="/x">1</a><a rel="nofollow ugc" href="/x#b">2</a>`, true},
	}
	for _, tt := range tests {
		p := htmlParse(t, "https://example.com/", tt.body, "tree", HTMLOptions{})
		if len(p.Links) != 1 || p.Links[0].NoFollow != tt.wantNoFollow {
			t.Errorf("HTML(%q) links = %+v, want one with NoFollow %v", tt.body, p.Links, tt.wantNoFollow)
		}
	}
}

// htmlParse runs HTML on body ("tree"), or the token scan HTML falls back to
// ("tokens").
func htmlParse(t *testing.T, pageURL, body, parser string, opts HTMLOptions) *Page {
	t.Helper()
	if parser == "tree" {
		p, err := HTML(mustParse(pageURL), nil, []byte(body), opts)
		if err != nil {
			t.Fatalf("HTML: %v", err)
		}
		return p
	}
	if opts.MaxLinks <= 0 {
		opts.MaxLinks = DefaultMaxLinks
	}
	opts.MaxTextBytes = DefaultMaxTextBytes
	base, err := (*URLRules)(nil).canonParse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	p := &Page{}
	htmlTokenScan(p, &base, []byte(body), opts, nil)
	return p
}
