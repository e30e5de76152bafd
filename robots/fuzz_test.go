package robots

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temoto/robotstxt"
)

// FuzzParse checks that Parse never panics, that answers are deterministic, that a URL
// and its normalised form get the same answer, and that a decision agrees with its rule.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/corpus/*.txt")
	for i, file := range files {
		if body, err := os.ReadFile(file); err == nil && i%3 == 0 {
			f.Add(body, "ExampleBot", "/private/x?q=1")
		}
	}
	f.Add([]byte("user-agent: *\ndisallow: /a*b$\nallow: /%7E\n"), "bot", "/~x")
	f.Add([]byte("\xEF\xBB\xBFuser agent:bot\rdisalow /caf\xC3\xA9\r\n"), "bot/1", "/caf%c3%a9")
	f.Add([]byte("user-agent: *\ncrawl-delay: 1e9\nrequest-rate: 9/99h\nvisit-time: 2359-0000\ncontent-signal: a=b,=,c\n"), "x", "%zz")
	f.Fuzz(func(t *testing.T, body []byte, agent, rawURL string) {
		r := Parse(body)
		d := r.Match(agent, rawURL)
		if d2 := Parse(body).Match(agent, rawURL); d.Allowed != d2.Allowed || (d.Rule == nil) != (d2.Rule == nil) {
			t.Fatalf("Match not deterministic: %v then %v", d, d2)
		}
		if got := r.Allowed(agent, rawURL); got != d.Allowed {
			t.Fatalf("Allowed = %v, Match = %v", got, d)
		}
		if d.Rule != nil && (d.Rule.Allow != d.Allowed || d.Reason != ByRule || d.Rule.Line < 1) {
			t.Fatalf("decision %+v disagrees with its rule", d)
		}
		p := requestPath(rawURL)
		norm := string(appendNormalized(nil, p))
		if string(appendNormalized(nil, norm)) != norm {
			t.Fatalf("normalising %q is not idempotent", p)
		}
		if needsNormalize(p) != (norm != p) {
			t.Fatalf("needsNormalize(%q) = %v, but its normal form is %q", p, needsNormalize(p), norm)
		}
		a, b := r.Allowed(agent, "http://example.com"+p), r.Allowed(agent, "http://example.com"+norm)
		if a != b {
			t.Fatalf("path %q allowed %v, its normal form %q allowed %v", p, a, norm, b)
		}
		g := r.Group(agent)
		if g.CrawlDelay < 0 || g.RequestRate.Interval() < 0 {
			t.Fatalf("negative delay in %+v", g)
		}
		for _, v := range g.VisitTimes {
			if v.Start < 0 || v.Start >= 1440 || v.End < 0 || v.End >= 1440 {
				t.Fatalf("visit time out of range: %+v", v)
			}
		}
		for _, s := range r.Sitemaps() {
			if !isAbsURL(s) {
				t.Fatalf("relative sitemap %q", s)
			}
		}
	})
}

// genRobots builds a robots.txt body and paths from fuzz bytes, in a small alphabet that
// keeps clear of temoto's documented departures most of the time.
func genRobots(data []byte) (body string, paths []string) {
	pos := 0
	next := func() byte {
		if pos >= len(data) {
			return 0
		}
		pos++
		return data[pos-1]
	}
	agents := []string{"*", "ab", "ba", "Bot"}
	pattern := func(alphabet string) string {
		var sb strings.Builder
		if alphabet[0] == '*' && next()%5 == 0 {
			sb.WriteByte('*')
		} else {
			sb.WriteByte('/')
		}
		for n := int(next() % 6); n > 0; n-- {
			sb.WriteByte(alphabet[int(next())%len(alphabet)])
		}
		return sb.String()
	}
	var sb strings.Builder
	nlines := int(next()%24) + 1
	for i := 0; i < nlines; i++ {
		switch next() % 7 {
		case 0, 1:
			sb.WriteString("user-agent: " + agents[next()%4] + "\n")
		case 2, 3:
			sb.WriteString("disallow: " + pattern("*/ab.") + "\n")
		case 4:
			p := pattern("*/ab.")
			if next()%3 == 0 {
				p += "$"
			}
			sb.WriteString("allow: " + p + "\n")
		case 5:
			sb.WriteString("\n")
		case 6:
			sb.WriteString("sitemap: https://example.com/s.xml\n")
		}
	}
	for n := int(next()%6) + 1; n > 0; n-- {
		paths = append(paths, pattern("/ab.?"))
	}
	return sb.String(), paths
}

// FuzzDifferential compares this package with temoto on generated files: every
// disagreement must be one of the documented departures.
func FuzzDifferential(f *testing.F) {
	f.Add([]byte("\x05\x00\x01\x02\x03\x04\x05\x06\x07"))
	f.Add([]byte("\x10\x00\x00\x02\x01\x02\x03\x04\x02\x02\x04\x01\x04\x00\x03\x01\x01"))
	f.Add([]byte("user-agent: a\nallow: /a\ndisallow: /*b$\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		body, paths := genRobots(data)
		ours := Parse([]byte(body))
		theirs, err := robotstxt.FromString(body)
		for _, agent := range []string{"ab", "BA", "bot", "other"} {
			for _, p := range paths {
				got := ours.Allowed(agent, "http://example.com"+p)
				if err == nil && got == theirs.TestAgent(p, agent) {
					continue
				}
				c := &diffCase{body: []byte(body), ours: ours, theirs: theirs, theirsErr: err, agent: agent, path: p}
				if len(explain(c)) == 0 {
					t.Fatalf("agent %q, path %q: ours %v (%v), temoto %v (err %v), no departure explains it\nrobots.txt:\n%s",
						agent, p, got, ours.Match(agent, p), !got, err, body)
				}
			}
		}
	})
}
