package crawltest_test

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"

	"github.com/politecrawl/crawl/crawltest"
)

// A farm of one site: what a correct crawler fetches, and the audit of a
// client that fetches a disallowed page and misses another.
func Example() {
	farm, err := crawltest.Start(crawltest.Site{
		Host:   "example.test",
		Robots: &crawltest.Robots{Body: "User-agent: *\nDisallow: /private/\n"},
		Pages: map[string]*crawltest.Page{
			"/":               {Links: []string{"/a.html", "/private/b.html"}},
			"/a.html":         {},
			"/private/b.html": {Disallowed: true},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer farm.Close()
	fmt.Println("seeds:", farm.Seeds())
	fmt.Println("expected:", slices.Sorted(maps.Keys(farm.Expected())))

	client := farm.Client() // dials the farm for its hosts
	for _, u := range []string{
		"http://example.test/robots.txt",
		"http://example.test/",
		"http://example.test/private/b.html",
	} {
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("User-Agent", "examplebot/1.0")
		resp, err := client.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	report := crawltest.Audit(farm, crawltest.AuditOptions{Agent: "examplebot"})
	for _, v := range report.Violations {
		fmt.Println("violation:", v)
	}
	fmt.Printf("coverage %.2f, missing %v\n", report.Coverage, report.Missing)
	// Output:
	// seeds: [http://example.test/]
	// expected: [http://example.test/ http://example.test/a.html]
	// violation: disallowed example.test/private/b.html
	// coverage 0.50, missing [http://example.test/a.html]
}
