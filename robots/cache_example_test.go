package robots_test

import (
	"context"
	"fmt"
	"time"

	"github.com/politecrawl/crawl/robots"
)

// staticFetcher answers every robots.txt fetch with the same file. The crawl engine's
// Fetcher goes through politeness and follows redirects instead.
type staticFetcher string

func (f staticFetcher) FetchRobots(ctx context.Context, robotsURL string) (*robots.FetchResult, error) {
	return &robots.FetchResult{Status: 200, Body: []byte(f), FinalURL: robotsURL}, nil
}

func ExampleCache() {
	now := func() time.Time { return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) }
	c := robots.NewCache(staticFetcher("User-agent: *\nDisallow: /private\n"), nil, robots.CacheOptions{Now: now})

	e, err := c.Get(context.Background(), "https://example.com")
	if err != nil {
		fmt.Println(err) // only when ctx ends or the Store fails
		return
	}
	for _, u := range []string{"https://example.com/", "https://example.com/private/x"} {
		d := e.Decide("ExampleBot/1.0", u)
		fmt.Printf("%s allowed=%v by %v\n", u, d.Allowed, d)
	}
	fmt.Println("expires", e.Expires.Format(time.RFC3339))
	// Output:
	// https://example.com/ allowed=true by no matching rule
	// https://example.com/private/x allowed=false by disallow: /private (line 2)
	// expires 2025-03-02T12:00:00Z
}

func ExampleEntry_String() {
	now := func() time.Time { return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) }
	c := robots.NewCache(staticFetcher("User-agent: *\nDisallow: /private\n"), nil, robots.CacheOptions{Now: now})
	e, _ := c.Get(context.Background(), "https://example.com")
	fmt.Println(e)
	// Output:
	// https://example.com/robots.txt (status 200, fetched 2025-03-01T12:00:00Z, sha1:QNUPEWDCWVD2GEOJGNNVCDZCUVA3TOVR)
}
