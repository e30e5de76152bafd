// Package crawl is politecrawl's engine: it wires the frontier, the robots.txt cache,
// the politeness scheduler, the fetcher, the extractor, the recrawl schedule and
// storage into a crawler that obeys RFC 9309, never hits a host faster than it
// allows, and resumes after a crash.
//
// Configure a crawl with package config (config.Default or config.Parse, then
// Validate), build a [Crawler] with [New], set its optional fields, and call
// [Crawler.Run] once:
//
//	cfg := config.Default()
//	cfg.Seeds = []string{"https://example.org/"}
//	c, err := crawl.New(cfg) // checks cfg; opens nothing
//	...
//	err = c.Run(ctx)         // returns once every goroutine it started has exited
//	fmt.Println(c.Summary())
//
// The package prints nothing to a terminal and names no command-line flag: it logs to
// Stderr and crawl.log, and returns typed errors ([ErrInUse], [ErrAddressRefused],
// [*PermanentError], *config.Error) and figures ([Summary], [Progress], [Status]) for
// the command to render. Its own errors carry no "crawl:" prefix: each says what the
// engine was doing and wraps the error of the package that failed, which names
// itself; the command names the program once.
//
// # The data directory
//
// Everything a crawl knows lives under config.Config.DataDir, and running the same
// crawl again over it resumes:
//
//   - frontier.db (package frontier): the queues, the seen set, every host's ready
//     time, the leases, the cached robots.txt. Its lock makes the directory one
//     crawl's: a second Run over it fails with ErrInUse and writes nothing there.
//   - warc/: the WARC files (PREFIX-TIMESTAMP-SERIAL.warc.gz), each with its CDXJ
//     index, and WET files with storage.wet.
//   - pages.jsonl and skipped.jsonl: a line per page archived, and per URL not
//     fetched and why.
//   - digests.db: the payload digests and captures the WARC files hold, for revisits
//     and dedup_from; rebuilt from the WARC files when lost or behind.
//   - schedule.db (package recrawl), with recrawl.interval set: each page's schedule.
//   - status.json ([StatusFile]): the figures, rewritten while the crawl runs, left
//     with the final ones; [ReadStatus] reads it while the crawl holds frontier.db.
//   - crawl.log: the log, JSON lines.
//   - crawl.wacz ([WACZName]) with storage.wacz, and cc-index/ with storage.parquet.
//
// A page's WARC records, its pages.jsonl line and its Done in frontier.db are made
// durable in one wait: the frontier's commit of the Done first syncs the records and
// lines, so a crash never leaves a finished URL without its records, nor a line
// pointing at a record a crash could lose. What was leased but not done when the
// process died is fetched again (at-least-once). Damage found at start (a torn WARC
// record or line, a damaged database) is repaired and reported, or refused.
//
// # Concurrency
//
// Run runs once per Crawler. Its exported fields (Stderr, ProgressEvery,
// StatusEvery, OnPermanent, Now) are read by Run and must be set before it and not
// changed after. [Crawler.Summary], [Crawler.Progress], [Crawler.Config] and
// [Crawler.Done] may be called from any goroutine at any time, Run included;
// Summary and Progress cost one pass over the frontier's hosts. OnPermanent is called
// from the workers, possibly at once, and must be safe for concurrent use.
// [RobotsClient] is safe for concurrent use; [Inspect] and [ReadStatus] read a data
// directory without a Crawler.
//
// # Caveats
//
//   - Run stopped by its context returns the context's error once the fetches in
//     flight have finished and been recorded; the crawl is then resumable, and
//     Summary says how far it got. Stopped by scope.max_duration it returns nil
//     (Summary.TimeLimitReached). Any other error means the crawl could not go on
//     (the frontier or storage failed, the directory is in use).
//   - A URL may be fetched twice around a crash (at-least-once), never lost.
//   - Failures of single URLs (a server error, a refused address) are outcomes, not
//     errors: they are counted, written to skipped.jsonl and logged.
//   - With recrawl.interval set, or as one process of a cluster, Run does not end by
//     itself when nothing is due: it waits until it is stopped.
package crawl
