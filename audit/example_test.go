package audit_test

import (
	"fmt"
	"strings"

	"github.com/politecrawl/crawl/audit"
)

// record returns one uncompressed WARC record.
func record(typ, id, uri, date, block string) string {
	return fmt.Sprintf("WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Target-URI: %s\r\n"+
		"WARC-Date: %s\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", typ, id, uri, date, len(block), block)
}

// A crawler fetched robots.txt, which asks for 5 s between requests, then two pages
// 800 ms apart: the audit finds the second too soon, whatever the missing response ends.
func Example() {
	warc := record("response", "1", "http://example.com/robots.txt", "2026-11-27T10:00:00.000Z",
		"HTTP/1.1 200 OK\r\nContent-Length: 38\r\n\r\nUser-agent: *\nCrawl-delay: 5\nAllow: /\n") +
		record("response", "2", "http://example.com/", "2026-11-27T10:00:05.100Z", "HTTP/1.1 200 OK\r\n\r\n") +
		record("response", "3", "http://example.com/about", "2026-11-27T10:00:05.900Z", "HTTP/1.1 200 OK\r\n\r\n")
	a := audit.New(audit.Options{Agent: "ExampleBot"})
	if err := a.Read("example.warc", strings.NewReader(warc)); err != nil {
		fmt.Println(err)
		return
	}
	rep := a.Report()
	for _, v := range rep.Violations {
		fmt.Println(v.Kind, v.URL, v.Source, v.Required)
	}
	for _, u := range rep.Unchecked {
		fmt.Println("not checked:", u.Check, u.Count)
	}
	// Output:
	// gap http://example.com/about crawl-delay 5s
	// not checked: gap 1
	// not checked: overlap 3
}
