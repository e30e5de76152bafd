// Package clustertest runs several crawl processes that share one crawl through a real
// nats-server (Debian's nats-server package, or the official binary), over a crawltest
// farm: the proof of issue 17 that a crawl split over processes keeps every guarantee
// of one process (coverage, robots.txt, one connection per host and its full spacing,
// nothing fetched twice), also when a process or the NATS server dies mid-crawl.
//
// The helpers start the nats-server with JetStream file storage on a loopback port
// (NATSServer), build the crawl command once (BuildCrawl) and run it as child
// processes (Process), each with its own data directory and shards (Config). Tests
// skip when no nats-server is found, and the package's `go test` line ends "[no tests
// to run]", unless POLITECRAWL_REQUIRE_TOOLS=1 (set by .ci/run) or
// POLITECRAWL_CLUSTER=1 makes a missing server a failure (crawltest.MissingTool).
package clustertest
