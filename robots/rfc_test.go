package robots

import "testing"

// check is one question asked of a robots.txt body.
type check struct {
	agent, url string
	want       bool
}

func runChecks(t *testing.T, body string, checks []check) {
	t.Helper()
	r := Parse([]byte(body))
	for _, c := range checks {
		if got := r.Allowed(c.agent, c.url); got != c.want {
			t.Errorf("Allowed(%q, %q):\n\tgot %v (%v)\n\twant %v\nrobots.txt:\n%s",
				c.agent, c.url, got, r.Match(c.agent, c.url), c.want, body)
		}
	}
}

// TestRFC9309Example51 is the example of RFC 9309 §5.1.
func TestRFC9309Example51(t *testing.T) {
	const body = `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
`
	runChecks(t, body, []check{
		{"foobot", "https://www.example.com/example/page.html", true},
		{"foobot", "https://www.example.com/example/allowed.gif", true},
		{"foobot", "https://www.example.com/example/disallowed.gif", false},
		{"foobot", "https://www.example.com/", false},
		{"foobot", "https://www.example.com/publications/", false},
		{"FooBot/1.0", "https://www.example.com/example/page.html", true},
		{"barbot", "https://www.example.com/example/page.html", false},
		{"bazbot", "https://www.example.com/example/page.html", false},
		{"barbot", "https://www.example.com/example/disallowed.gif", true},
		{"bazbot", "https://www.example.com/example/", true},
		{"quxbot", "https://www.example.com/example/page.html", true},
		{"quxbot", "https://www.example.com/a.gif", true},
		{"otherbot", "https://www.example.com/a.gif", false},
		{"otherbot", "https://www.example.com/a.gif?x", true},
		{"otherbot", "https://www.example.com/example/", false},
		{"otherbot", "https://www.example.com/example/x", false},
		{"otherbot", "https://www.example.com/publications/", true},
		{"otherbot", "https://www.example.com/", true},
	})
}

// TestRFC9309Example52 is the longest-match example of RFC 9309 §5.2.
func TestRFC9309Example52(t *testing.T) {
	const body = `User-Agent: foobot
Allow: /example/page/
Disallow: /example/page/disallowed.gif
`
	runChecks(t, body, []check{
		{"foobot", "https://www.example.com/example/page/", true},
		{"foobot", "https://www.example.com/example/page/x.gif", true},
		{"foobot", "https://www.example.com/example/page/disallowed.gif", false},
		{"foobot", "https://www.example.com/example/page/disallowed.gif?x=1", false},
	})
}

// TestRFC9309Encoding is the table of RFC 9309 §2.2.2: a pattern written in any of the
// forms of a row matches a URL written in any of them, and no URL of another row.
func TestRFC9309Encoding(t *testing.T) {
	rows := [][]string{
		{"/foo/bar?baz=quz"},
		// Row 2 of the RFC's table encodes ":" and "/" in the query. RFC 3986 §2.2
		// makes an encoded reserved character differ from the literal one, and this
		// package keeps them apart (DEPARTURES.md, "our readings"): each form matches
		// itself, with any case of hex digits.
		{"/foo/bar?baz=https://foo.bar"},
		{"/foo/bar?baz=https%3A%2F%2Ffoo.bar", "/foo/bar?baz=https%3a%2f%2ffoo.bar"},
		{"/foo/bar/ツ", "/foo/bar/%E3%83%84", "/foo/bar/%e3%83%84"},
		{"/foo/bar/%62%61%7A", "/foo/bar/baz", "/foo/bar/%62az"},
	}
	for i, row := range rows {
		for _, pattern := range row {
			r := Parse([]byte("user-agent: *\ndisallow: " + pattern + "$\n"))
			for j, other := range rows {
				for _, u := range other {
					got := r.Allowed("bot", "https://example.com"+u)
					if want := i != j; got != want {
						t.Errorf("pattern %q, URL %q:\n\tgot %v\n\twant %v", pattern, u, got, want)
					}
				}
			}
		}
	}
}

// TestRFC9309Special is §2.2.3: "#", "$" and "*", and their percent-encoded literals.
func TestRFC9309Special(t *testing.T) {
	runChecks(t, `user-agent: *
disallow: /      # comment in line
# comment on its own line
allow: /this/path/exactly$
allow: /this/*/exactly
allow: /path/file-with-a-%2A.html
allow: /path/foo-%24
`, []check{
		{"bot", "/this/path/exactly", true},
		{"bot", "/this/path/exactly/", true}, // also matches /this/*/exactly
		{"bot", "/this/path/exactly?x", true},
		{"bot", "/this/a/b/exactly", true},
		{"bot", "/this/a/b/exactly/more", true},
		{"bot", "/this/exactly", false},
		{"bot", "/this/path/exact", false},
		{"bot", "https://www.example.com/path/file-with-a-*.html", true},
		{"bot", "https://www.example.com/path/file-with-a-%2A.html", true},
		{"bot", "https://www.example.com/path/file-with-a-x.html", false},
		{"bot", "https://www.example.com/path/foo-$", true},
		{"bot", "https://www.example.com/path/foo-x", false},
		{"bot", "/robots.txt", true},
	})
	runChecks(t, "user-agent: *\ndisallow: /\nallow: /exactly$\n", []check{
		{"bot", "/exactly", true},
		{"bot", "/exactly/", false},
		{"bot", "/exactly?q", false},
		{"bot", "/exactly#frag", true},
	})
}
