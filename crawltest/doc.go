// Package crawltest serves a farm of virtual web sites on loopback and
// audits what a crawler did to them.
//
// A farm is data: each [Site] states its robots.txt (a body, a status or a
// redirect), its pages and links, sitemaps, latency, error pages, redirects
// and nofollow pages. [Start] serves all sites on one listener on
// 127.0.0.1, choosing the site by the Host header; a crawler reaches them
// through a resolve override ([Farm.Resolve], "news.test:80" →
// "127.0.0.1:PORT") or a custom dialer ([Farm.DialContext]). The farm
// records every request ([Farm.Requests]) with the server's start and end
// times and the User-Agent.
//
// From the description alone, [Farm.Expected] computes what a correct
// crawler fetches and [Audit] checks the record: robots.txt first on every
// host, nothing disallowed, nothing on a host whose robots.txt is
// unreachable, the delay between request starts, one request in flight per
// host, nothing reachable only through nofollow, coverage and duplicates.
// A browser-like crawler also asks each host once for its /favicon.ico, which
// a site serves ([Site.Icon]) or answers 404: [Farm.ExpectedIcons] lists those
// requests, which the audit counts apart from pages and holds to the same
// politeness.
//
// crawltest is an independent judge: it imports nothing of this module and
// does not parse robots.txt. The test author marks what robots.txt forbids
// with [Page.Disallowed] and the host's Crawl-delay with [Site.Delay].
//
// [Generate] builds large farms for benchmarks; [DemoSites] is the small
// farm of `crawl demo`.
//
// # Caveats
//
// Only http on port 80 is served, and https on port 443 once
// [Farm.ServeHTTP2] has started it (HTTP/2 only); other ports are not farm
// URLs, and a farm URL is its host and path whatever its scheme. Expected assumes every farm host is in the crawler's scope (the
// default when every site is a seed). A farm's sites must not be changed
// after Start.
package crawltest
