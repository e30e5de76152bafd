// Package capture derives, from a crawl's WARC files alone (and its skipped.jsonl
// when there is one), what each archived HTML page needs to be shown and whether the
// crawl archived it: a capture report per page.
//
// A page's requisites are found as the crawler finds them (extract.HTMLRequisites,
// extract.CSSRequisites and extract.LinkHeaderRequisites on the archived bodies,
// decoded as a fetch decodes them, with the page's host's icon, extract.HostIcon,
// when icons are fetched) and followed through the archived stylesheets and frames
// up to the crawl's hop limit. Each is then archived (a response or revisit
// record for its URL), blocked by robots.txt, failed (an error status, or given up
// on), skipped for another recorded reason (a limit, a policy), excluded (a kind the
// crawl does not fetch), or missing: none of these.
//
// ReadLogged sums the same report as the crawler wrote it while it ran, in
// pages.jsonl and skipped.jsonl: what crawl status prints, and what Report.Distinct
// re-derives from the WARC files.
//
// # Caveats
//
// A page archived only as a revisit of a record in another crawl (dedup_from) has no
// body here: it is counted (Report.Unread), not reported. Off-host requisites that a crawl with
// requisites.other_hosts off refused are not in skipped.jsonl, so they show as
// missing.
package capture
