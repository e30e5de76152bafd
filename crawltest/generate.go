package crawltest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// GenerateOptions describes a generated farm. Zero values take the defaults
// given on each field.
type GenerateOptions struct {
	// Seed makes the farm: the same options give the same sites.
	Seed uint64

	// Hosts is the number of sites, named "site00000.test" and on; 0 means 1.
	Hosts int

	// PagesPerHost is the number of HTML pages per site, "/" and
	// "/p/N.html"; 0 means 1.
	PagesPerHost int

	// LinksPerPage is the number of links on each page. Half of them (at
	// least one) form a tree from "/" so that every page is reachable; the
	// rest point to random pages.
	LinksPerPage int

	// PageSize pads every page to about this many bytes (such as 30<<10);
	// 0 means no padding.
	PageSize int

	// CrossHostLinks is the fraction (0 to 1) of the random links that point
	// to a page of another host.
	CrossHostLinks float64

	// CrawlDelayEvery gives every Nth host (the Nth, the 2Nth, ...) a
	// Crawl-delay of CrawlDelay in its robots.txt and as its Site.Delay;
	// 0 means none.
	CrawlDelayEvery int

	// CrawlDelay is that Crawl-delay; 0 means one second. It is written in
	// robots.txt in seconds with up to three decimals.
	CrawlDelay time.Duration

	// SitemapEvery gives every Nth host a /sitemap.xml listing all its
	// pages, declared in robots.txt; 0 means none.
	SitemapEvery int

	// IconEvery gives every Nth host an icon at /favicon.ico (Site.Icon); the
	// others answer 404 there. 0 means none.
	IconEvery int

	// Latency is each site's Latency.
	Latency time.Duration

	// NoLength sends every HTML page without Content-Length (Page.NoLength), as
	// servers that generate pages on the fly do.
	NoLength bool
}

// Generate returns a farm described by opts, deterministic for a given
// opts. Every site's robots.txt has one group for "*" that disallows
// /private/ (where no page is), so every page is expected. Link strings are
// shared between pages to keep large farms small in memory.
func Generate(opts GenerateOptions) []Site {
	hosts := max(opts.Hosts, 1)
	pages := max(opts.PagesPerHost, 1)
	delay := opts.CrawlDelay
	if delay <= 0 {
		delay = time.Second
	}
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))

	names := make([]string, hosts)
	for i := range names {
		names[i] = fmt.Sprintf("site%05d.test", i)
	}
	paths := make([]string, pages)
	paths[0] = "/"
	for i := 1; i < pages; i++ {
		paths[i] = "/p/" + strconv.Itoa(i) + ".html"
	}
	abs := make([][]string, hosts) // absolute URLs, filled on demand
	absURL := func(h, p int) string {
		if abs[h] == nil {
			abs[h] = make([]string, pages)
		}
		if abs[h][p] == "" {
			abs[h][p] = "http://" + names[h] + paths[p]
		}
		return abs[h][p]
	}

	branch := max(opts.LinksPerPage/2, 1)
	extra := max(opts.LinksPerPage-branch, 0)
	sites := make([]Site, hosts)
	for h := range sites {
		s := Site{Host: names[h], Pages: make(map[string]*Page, pages+1), Latency: opts.Latency,
			Icon: opts.IconEvery > 0 && (h+1)%opts.IconEvery == 0}
		robots := "User-agent: *\nDisallow: /private/\n"
		if opts.CrawlDelayEvery > 0 && (h+1)%opts.CrawlDelayEvery == 0 {
			s.Delay = delay
			robots += "Crawl-delay: " + strconv.FormatFloat(delay.Seconds(), 'f', -1, 64) + "\n"
		}
		s.Robots = &Robots{Body: robots}
		for i := range pages {
			links := make([]string, 0, branch+extra)
			for c := branch*i + 1; c <= branch*i+branch && c < pages; c++ {
				links = append(links, paths[c])
			}
			for range extra {
				if hosts > 1 && rng.Float64() < opts.CrossHostLinks {
					o := rng.IntN(hosts - 1)
					if o >= h {
						o++
					}
					links = append(links, absURL(o, rng.IntN(pages)))
				} else {
					links = append(links, paths[rng.IntN(pages)])
				}
			}
			s.Pages[paths[i]] = &Page{Links: links, Size: opts.PageSize, NoLength: opts.NoLength}
		}
		if opts.SitemapEvery > 0 && (h+1)%opts.SitemapEvery == 0 {
			s.Sitemaps = []string{"http://" + names[h] + "/sitemap.xml"}
			s.Pages["/sitemap.xml"] = &Page{Sitemap: true, Links: paths}
		}
		sites[h] = s
	}
	return sites
}
