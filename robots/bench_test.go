package robots

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/temoto/robotstxt"
)

// The benchmarks below run this package side by side with github.com/temoto/robotstxt:
//
//	go test -run '^$' -bench . -benchtime 1s -count 5 ./robots/
//
// Each pair does the same work on the same input; the setup checks that both give the
// same answers, so that neither side is measured on a shortcut the other cannot take.

// bigRobots returns a realistic robots.txt of just under MaxSize bytes (so that both
// parsers read all of it): comments, sitemaps, and groups of one to three user-agents
// with prefix, wildcard and "$" rules, crawl-delays and trailing comments. It is the
// same on every call and every run.
var bigRobots = sync.OnceValue(func() []byte {
	rng := rand.New(rand.NewPCG(9309, 1))
	agents := []string{
		"Googlebot", "Googlebot-Image", "Googlebot-News", "Bingbot", "Slurp", "DuckDuckBot",
		"Baiduspider", "YandexBot", "Applebot", "AhrefsBot", "SemrushBot", "MJ12bot",
		"GPTBot", "CCBot", "ClaudeBot", "PetalBot", "facebookexternalhit", "Twitterbot",
	}
	sections := []string{
		"account", "cart", "checkout", "search", "tag", "category", "user", "wp-admin",
		"api", "feeds", "forum", "products", "blog", "docs", "media", "static", "admin",
		"login", "archive", "print", "compare", "wishlist", "reviews", "jobs",
	}
	params := []string{"sessionid", "sid", "ref", "utm_source", "sort", "filter", "page", "replytocom"}
	exts := []string{"pdf", "doc", "xls", "zip", "json", "xml", "php", "cgi"}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }

	var b strings.Builder
	b.WriteString("# robots.txt for https://www.example.com/\n")
	b.WriteString("# Questions about crawling: webmaster@example.com\n\n")
	for i := range 20 {
		fmt.Fprintf(&b, "Sitemap: https://www.example.com/sitemaps/sitemap-%03d.xml.gz\n", i)
	}
	for g := 0; b.Len() < MaxSize; g++ {
		fmt.Fprintf(&b, "\n# Group %d: rules reviewed 2025-%02d-%02d\n", g, 1+g%12, 1+g%28)
		if g%40 == 0 {
			b.WriteString("User-agent: *\n")
		} else {
			for range 1 + rng.IntN(3) {
				fmt.Fprintf(&b, "User-agent: %s%d\n", pick(agents), rng.IntN(100))
			}
		}
		if g%4 == 0 {
			fmt.Fprintf(&b, "Crawl-delay: %d\n", 1+rng.IntN(10))
		}
		for range 10 + rng.IntN(50) {
			key := "Disallow"
			if rng.IntN(4) == 0 {
				key = "Allow"
			}
			sec, n := pick(sections), rng.IntN(1000)
			var pattern string
			switch rng.IntN(8) {
			case 0:
				pattern = fmt.Sprintf("/*?%s=", pick(params))
			case 1:
				pattern = fmt.Sprintf("/*.%s$", pick(exts))
			case 2:
				pattern = fmt.Sprintf("/%s/*/%s-%d", sec, pick(sections), n)
			case 3:
				pattern = fmt.Sprintf("/%s/*?*%s=", sec, pick(params))
			default:
				pattern = fmt.Sprintf("/%s/%s-%d/", sec, pick(sections), n)
			}
			fmt.Fprintf(&b, "%s: %s\n", key, pattern)
			if rng.IntN(10) == 0 {
				fmt.Fprintf(&b, "# %s %d was moved\n", sec, n)
			}
		}
	}
	body := b.String()[:MaxSize]
	return []byte(body[:strings.LastIndexByte(body, '\n')+1])
})

func BenchmarkParse(b *testing.B) {
	body := bigRobots()
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			Parse(body)
		}
	})
	b.Run("temoto", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := robotstxt.FromBytes(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchAgent is the crawler asking in BenchmarkAllowed; its group has 100 rules.
const benchAgent = "ExampleBot"

// benchGroup returns a robots.txt whose ExampleBot group has 100 rules, 60 of them with
// wildcards or "$", among a "*" group and another bot's group.
func benchGroup() []byte {
	sections := []string{
		"account", "cart", "checkout", "search", "tag", "category", "user", "wp-admin",
		"api", "feeds", "forum", "products", "blog", "docs", "media", "static", "admin",
		"login", "archive", "compare",
	}
	var b strings.Builder
	b.WriteString("User-agent: *\nDisallow: /private/\nDisallow: /*?sessionid=\n\n")
	b.WriteString("User-agent: OtherBot\nDisallow: /\n\n")
	b.WriteString("User-agent: " + benchAgent + "\n")
	for _, s := range sections {
		fmt.Fprintf(&b, "Disallow: /%s/private/\n", s)
		fmt.Fprintf(&b, "Disallow: /%s/*/edit\n", s)
		fmt.Fprintf(&b, "Allow: /%s/*/public$\n", s)
		fmt.Fprintf(&b, "Disallow: /*/%s-print$\n", s)
		fmt.Fprintf(&b, "Disallow: /*?*ref=%s\n", s)
	}
	return []byte(b.String())
}

// benchURLs are the URLs BenchmarkAllowed asks about in turn: some allowed, some not,
// some decided by a wildcard rule, some by none.
var benchURLs = []string{
	"https://www.example.com/",
	"https://www.example.com/products/shoes/red-sneaker-42.html",
	"https://www.example.com/search?q=red%20shoes&page=2",
	"https://www.example.com/cart/checkout?step=payment",
	"https://www.example.com/blog/2025/05/how-we-crawl/",
	"https://www.example.com/account/settings/public",
	"https://www.example.com/category/shoes/edit",
	"https://www.example.com/tag/go?utm_source=x&ref=tag",
	"https://www.example.com/images/banner-1200x400.jpg",
	"https://www.example.com/docs/api/docs-print",
	"https://www.example.com/wp-admin/admin-ajax.php",
	"https://www.example.com/user/alice/profile?sessionid=abc123",
	"https://www.example.com/feeds/news.xml",
	"https://www.example.com/api/private/v1/items/123.json",
	"https://www.example.com/static/css/site.css?v=20250501",
	"https://www.example.com/forum/viewtopic.php?t=123&sid=deadbeef#p4",
}

// BenchmarkAllowed asks whether the crawler may fetch each URL, as a crawler does once
// per URL. Ours takes the URL and the agent. temoto takes the path, which the
// benchmark extracts beforehand (a crawler would pay for that), and either the agent
// (TestAgent, which finds the group on every call, as ours does) or a group found once
// (temoto-group, FindGroup hoisted out of the loop). Our API has no call that takes a
// group chosen beforehand.
func BenchmarkAllowed(b *testing.B) {
	body := benchGroup()
	ours := Parse(body)
	theirs, err := robotstxt.FromBytes(body)
	if err != nil {
		b.Fatal(err)
	}
	paths := make([]string, len(benchURLs))
	allowed := 0
	for i, u := range benchURLs {
		paths[i] = requestPath(u)
		got := ours.Allowed(benchAgent, u)
		if want := theirs.TestAgent(paths[i], benchAgent); got != want {
			b.Fatalf("Allowed(%q, %q):\n\tgot %v\n\ttemoto %v", benchAgent, u, got, want)
		}
		if got {
			allowed++
		}
	}
	if allowed == 0 || allowed == len(benchURLs) {
		b.Fatalf("%d of %d URLs allowed: want a mix", allowed, len(benchURLs))
	}
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			ours.Allowed(benchAgent, benchURLs[i])
			i = (i + 1) % len(benchURLs)
		}
	})
	b.Run("temoto", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			theirs.TestAgent(paths[i], benchAgent)
			i = (i + 1) % len(paths)
		}
	})
	b.Run("temoto-group", func(b *testing.B) {
		g := theirs.FindGroup(benchAgent)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			g.Test(paths[i])
			i = (i + 1) % len(paths)
		}
	})
}

// BenchmarkPathological matches a pattern that makes a backtracking matcher take
// exponential time against a 10 KB path of "a"s that it does not match.
func BenchmarkPathological(b *testing.B) {
	body := []byte("User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*b\n")
	path := "/" + strings.Repeat("a", 10<<10)
	ours := Parse(body)
	theirs, err := robotstxt.FromBytes(body)
	if err != nil {
		b.Fatal(err)
	}
	if !ours.Allowed(benchAgent, path) || !theirs.TestAgent(path, benchAgent) {
		b.Fatal("the pattern matches a path without a b")
	}
	if ours.Allowed(benchAgent, path+"b") || theirs.TestAgent(path+"b", benchAgent) {
		b.Fatal("the pattern does not match the path ending in b")
	}
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(path)))
		b.ReportAllocs()
		for b.Loop() {
			ours.Allowed(benchAgent, path)
		}
	})
	b.Run("temoto", func(b *testing.B) {
		b.SetBytes(int64(len(path)))
		b.ReportAllocs()
		for b.Loop() {
			theirs.TestAgent(path, benchAgent)
		}
	})
}
