package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzAudit audits any bytes as a WARC file: no panic, and a report that holds
// together (its counts are its violations, every violation names its records).
func FuzzAudit(f *testing.F) {
	dir := writeCrawl(f, baseline())
	paths, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("WARC/1.0\r\nWARC-Type: request\r\nWARC-Target-URI: <http://w.test/>\r\nWARC-Date: 2026-11-27T10:00:00Z\r\n" +
		"WARC-Record-ID: <urn:uuid:1>\r\nContent-Length: 18\r\n\r\nGET / HTTP/1.1\r\n\r\n\r\n\r\n" +
		"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: <http://w.test/>\r\nWARC-Date: 2026-11-27T10:00:00.5Z\r\n" +
		"WARC-Concurrent-To: <urn:uuid:1>\r\nContent-Length: 37\r\n\r\nHTTP/1.1 503 X\r\nRetry-After: 99999\r\n\r\n\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a := New(Options{})
		if err := a.Read("fuzz.warc", bytes.NewReader(b)); err != nil {
			t.Fatalf("Read: %v", err)
		}
		rep := a.Report()
		n := 0
		for _, c := range rep.Counts {
			n += c
		}
		if n != len(rep.Violations) {
			t.Fatalf("counts add up to %d, %d violations", n, len(rep.Violations))
		}
		for _, v := range append(rep.Violations, rep.Undecided...) {
			if len(v.Records) == 0 || v.Records[0] == nil {
				t.Fatalf("violation without its records: %+v", v)
			}
		}
		var out bytes.Buffer
		if err := rep.WriteJSON(&out); err != nil {
			t.Fatal(err)
		}
	})
}
