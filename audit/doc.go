// Package audit checks from WARC files alone that a crawl was polite: that it obeyed
// robots.txt and paced every host as the host and the crawler's own settings asked.
//
// An [Auditor] reads the records of any WARC file ([Auditor.Read], through
// storage.ReadRecords), joins each request record with its response (or revisit) and
// the metadata record politecrawl writes beside them, and [Auditor.Report] then
// checks, per host and per IP address:
//
//   - every fetch against the robots.txt version in force at that moment (the last one
//     fetched for its authority before the request started, redirects followed as RFC
//     9309 says), re-evaluated with package robots for the crawler's agent;
//   - that robots.txt was fetched before the first other request to the host;
//   - every gap between the end of one response and the start of the next request to
//     the host against the delay in force: the largest of the minimum delay, the
//     robots.txt Crawl-delay and Request-rate, and a Retry-After on 429 or 503;
//   - overlapping requests: more than the allowed number in flight at once;
//   - the backoff after a 429 or 503 without a Retry-After;
//   - Visit-time windows where robots.txt gives them.
//
// # Precision
//
// A request starts at its record's WARC-Date, which writers truncate: the request
// started at that time or within its precision after it (one second for a date
// without a fraction, one millisecond for politecrawl's). A response ends at the
// response-end field of politecrawl's metadata record, rounded up. Each gap is
// therefore known between two bounds: it complies when the lower bound reaches the
// delay, it is a violation when the upper bound does not, and otherwise it is
// undecided and reported as such, never guessed. Without a response end (other
// crawlers' files) a gap is bounded above by the time between the two requests'
// starts, which proves violations only, and overlaps cannot be seen: the report says
// so.
//
// # Caveats
//
// Requests that left no record (a fetch that failed before any response, which
// politecrawl does not archive) are invisible to the audit. The Auditor keeps a small
// record per exchange in memory (about 300 bytes), not the bodies but those of
// robots.txt; it is not safe for concurrent use.
package audit
