// Package archivetest holds the tests that open politecrawl's output in the
// tools archivists use: webrecorder's warcio (its CDXJ indexer against ours),
// an independent WACZ checker, and ReplayWeb.page replaying a farm crawl's
// WACZ in headless Chromium driven over the DevTools protocol. It has no code
// but its tests.
//
// The tools are installed by .ci/extra: Debian's chromium, and the npm
// packages of .ci/node (node_modules there). When they are missing the tests
// skip and the package's `go test` line ends "[no tests to run]", unless
// POLITECRAWL_REQUIRE_TOOLS=1 (set by .ci/run) or POLITECRAWL_REPLAY=1 makes a
// missing tool a failure (crawltest.NeedTool). Artefacts (the WACZ, the screenshot of the replayed page)
// go to POLITECRAWL_ARTEFACTS, or a temporary directory; their paths are
// logged.
package archivetest
