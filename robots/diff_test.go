package robots

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/temoto/robotstxt"
)

// diffAgents are the agents every corpus file is asked about.
var diffAgents = []string{
	"Googlebot", "Googlebot-News", "Googlebot-Image", "Bingbot", "ExampleBot",
	"examplebot/1.0 (+https://example.com/bot)", "Example", "OtherBot", "GPTBot", "CCBot",
	"politecrawl", "TypoBot", "QuietBot", "SlowBot", "Yandex", "Slurp", "AhrefsBot",
	"Mediapartners-Google", "Pinterestbot", "wget", "a", "b",
}

// diffPaths are asked of every corpus file, besides paths derived from its patterns.
var diffPaths = []string{
	"/", "/index.html", "/robots.txt", "/search", "/search?q=go", "/search/about",
	"/a/b/c", "/private/", "/private/press/kit", "/tmp/x", "/%7Eadmin/", "/~admin/",
	"/café/", "/caf%C3%A9/menu", "/straße/", "/docs/a b/", "/docs/a%20b/x", "/x.pdf",
	"/img.jpg", "/thumbs/a.jpg", "/page", "/folder/", "/xyz", "/api/public/v1",
	"/wiki/Special:Random", "/wiki/Special%3ARandom", "/w/load.php?x=1", "/p?share=1",
	"/news/2026/print", "/collections/a+b", "/collections/a%2Bb", "/jobs?page=2",
	"/jobs?q=go", "/viewtopic.php?p=3&sid=abc", "/backup.tar", "/t/topic/1.rss",
}

// pathsFor derives paths from the body's patterns: each pattern with its wildcards
// filled in several ways, extended and cut short.
func pathsFor(r *Robots) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p == "" || p[0] != '/' {
			p = "/" + p
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range diffPaths {
		add(p)
	}
	for _, g := range r.groups {
		for _, ru := range g.rules {
			base := strings.TrimSuffix(ru.Pattern, "$")
			for _, fill := range []string{"", "x", "a/b", "?q=1&x"} {
				p := strings.ReplaceAll(base, "*", fill)
				add(p)
				add(p + "x")
				add(p + "/y")
				add(p + "?q=1")
				if len(p) > 1 {
					add(p[:len(p)-1])
				}
			}
		}
	}
	return out
}

func TestDifferentialCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("corpus has %d files, want at least 30", len(files))
	}
	counts := map[string]int{}
	total, disagreements := 0, 0
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ours := Parse(body)
		theirs, theirsErr := robotstxt.FromBytes(body)
		for _, agent := range diffAgents {
			for _, path := range pathsFor(ours) {
				total++
				c := &diffCase{body: body, ours: ours, theirs: theirs, theirsErr: theirsErr, agent: agent, path: path}
				got := ours.Allowed(agent, "http://example.com"+path)
				if theirsErr == nil && got == theirs.TestAgent(path, agent) {
					continue
				}
				disagreements++
				ids := explain(c)
				if len(ids) == 0 {
					t.Errorf("%s: agent %q, path %q: ours %v (%v), temoto %v (err %v): no documented departure explains it",
						filepath.Base(file), agent, path, got, ours.Match(agent, path), !got, theirsErr)
					continue
				}
				for _, id := range ids {
					counts[id]++
				}
			}
		}
	}
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	t.Logf("%d files, %d questions, %d disagreements", len(files), total, disagreements)
	for _, id := range ids {
		t.Logf("  %-22s explains %d", id, counts[id])
	}
}

// TestDepartureExamples checks that each documented departure's example makes the two
// implementations disagree, that this package gives the RFC's answer, and that the
// departure explains it.
func TestDepartureExamples(t *testing.T) {
	for _, d := range departures {
		t.Run(d.ID, func(t *testing.T) {
			if d.Section == "" || d.Summary == "" {
				t.Fatal("departure without RFC section or summary")
			}
			body := []byte(d.Body)
			ours := Parse(body)
			if got := ours.Allowed(d.Agent, d.URL); got != d.Ours {
				t.Errorf("ours: Allowed(%q, %q):\n\tgot %v\n\twant %v", d.Agent, d.URL, got, d.Ours)
			}
			theirs, err := robotstxt.FromBytes(body)
			if err == nil && theirs.TestAgent(d.URL, d.Agent) == d.Ours {
				t.Errorf("temoto agrees on the example: it does not show the departure")
			}
			c := &diffCase{body: body, ours: ours, theirs: theirs, theirsErr: err, agent: d.Agent, path: d.URL}
			if ids := explain(c); !slices.Contains(ids, d.ID) {
				t.Errorf("explain:\n\tgot %v\n\twant it to contain %s", ids, d.ID)
			}
		})
	}
}

// TestDeparturesDocumented checks that DEPARTURES.md names every departure and its
// section.
func TestDeparturesDocumented(t *testing.T) {
	md, err := os.ReadFile("DEPARTURES.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range departures {
		if !strings.Contains(string(md), "`"+d.ID+"`") || !strings.Contains(string(md), "§"+d.Section) {
			t.Errorf("DEPARTURES.md does not list `%s` with §%s", d.ID, d.Section)
		}
	}
}

// TestDifferentialStatus compares FromStatus with temoto's FromStatusAndBytes.
func TestDifferentialStatus(t *testing.T) {
	body := []byte("user-agent: *\ndisallow: /private\n")
	for code := 100; code < 600; code++ {
		ours := FromStatus(code, body)
		theirs, err := robotstxt.FromStatusAndBytes(code, body)
		for _, p := range []string{"/private", "/public"} {
			got := ours.Allowed("bot", p)
			switch {
			case err != nil:
				// temoto refuses 1xx and 3xx codes: an error and no rules. RFC 9309
				// §2.3.1.2 has the fetcher follow 3xx, and a code that is left, like
				// any failure to get the file, is unreachable (§2.3.1.4).
				if got || (code >= 200 && code < 300) || (code >= 400 && code < 600) {
					t.Errorf("status %d %s: temoto error %v, ours %v", code, p, err, got)
				}
			case got != theirs.TestAgent(p, "bot"):
				// Our reading (DEPARTURES.md): 429 is a temporary server condition,
				// unreachable like a 5xx, where temoto treats it as any 4xx.
				if code != 429 {
					t.Errorf("status %d %s: ours %v, temoto %v", code, p, got, !got)
				}
			}
		}
	}
}
