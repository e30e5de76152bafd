// Package robots implements the Robots Exclusion Protocol (RFC 9309): it parses
// robots.txt files, decides whether a crawler may fetch a URL, turns a robots.txt fetch
// result into rules by its status code, and caches the rules per authority.
//
// Parse never fails and never fetches: it reads the first MaxSize bytes of a body line
// by line, leniently, and keeps every rule with its line number so that each decision
// can be explained (see Robots.Match). FromStatus applies RFC 9309 §2.3.1's status-code
// policy to a fetched body. Cache fetches robots.txt through a caller-supplied Fetcher,
// once per authority at a time, and applies the RFC's caching and unreachable rules
// (§2.3.1.4, §2.4); it keeps parsed rules in memory and persists them through a Store,
// so that a resumed crawl does not fetch a fresh robots.txt again. Its Entry says which
// robots.txt the rules came from (URL, fetch time, status, digest), for provenance.
//
// A *Robots and an *Entry are immutable once built, and they and a *Cache are safe for
// simultaneous use by multiple goroutines. Slices and maps a Robots returns (Sitemaps,
// Records, Group) are copies the caller may keep and modify.
//
// # How this package reads the RFC
//
//   - A group opens at one or more user-agent lines and runs until a user-agent line
//     that follows an allow or disallow rule. Other records (sitemap, crawl-delay,
//     unknown keys) never end a group (§2.2.4: they must not interfere with parsing).
//   - Every group whose user-agent product token equals the agent's (case-insensitive)
//     applies, merged; if none does, every "*" group applies; otherwise nothing does.
//   - Paths and patterns are compared after normalising percent-encoding on both sides:
//     octets outside printable ASCII are encoded as upper-case %XX, encoded unreserved
//     characters are decoded, other encoded characters stay encoded with upper-case hex.
//     %2A and %24 stand for a literal "*" and "$" (§2.2.3) on both sides.
//   - The longest normalised pattern in octets wins; on a tie allow wins; "/robots.txt"
//     is always allowed.
//   - HTTP 429 makes robots.txt unreachable like a 5xx (a temporary server condition),
//     not unavailable like other 4xx codes.
//   - A fetched robots.txt is used for at most 24 hours, less when Cache-Control
//     max-age says so. While robots.txt is unreachable, an earlier successful copy up
//     to 30 days old is used instead of disallowing everything (Entry.Stale); without
//     one, everything is disallowed and the fetch is retried with exponential backoff.
//
// DEPARTURES.md lists where github.com/temoto/robotstxt, used as a test oracle, reads
// the RFC differently.
//
// # Caveats
//
// Matching is linear in the length of the path for any pattern (no backtracking), so a
// hostile pattern cannot make it slow. Crawl-delay, Request-rate and Visit-time are
// reported, not enforced: the politeness package enforces them.
package robots
