// Package crawl is politecrawl's engine: it wires the frontier, robots.txt cache,
// politeness scheduler, fetcher, extractor and storage into a crawler that obeys
// RFC 9309, never hits a host faster than it allows, and resumes after a crash.
//
// Configure a crawl with package config (config.Default or config.Parse, then
// Validate), build a Crawler with New and run it with Run.
package crawl
