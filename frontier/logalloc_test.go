package frontier

import (
	"bytes"
	"fmt"
	"testing"
)

// TestLogRecordOneAllocation: a commit's log record, which holds the links of every
// Done of the commit, is encoded into one allocation, sized at once, rather than
// grown by appends on the committer; the host records it holds take none of their own.
func TestLogRecordOneAllocation(t *testing.T) {
	f, _ := openTest(t, Options{})
	es := make([]Entry, 300)
	for i := range es {
		es[i] = Entry{URL: fmt.Sprintf("http://h%d.test/some/path/%d?q=%d", i%7, i, i*i), Priority: i % 3, Depth: i % 5}
	}
	links := f.prepare(es)
	for i := range links {
		links[i].seq = uint64(1_000_000 + i)
	}
	hosts := []logHost{{name: "http://a.test", rec: hostRecord{id: 1 << 40, ready: -1, queued: 1 << 50, later: 3, laterDue: 1 << 62, stamp: 1 << 63}}, {name: "http://b.test", rec: hostRecord{id: 2}}}
	ops := []logOp{{key: queueKey(1, 0, 0, 0, 7)}, {key: queueKey(1, 0, 0, 0, 8), val: encodeEntry(&es[0], 1)}}
	for _, c := range []struct {
		name string
		fn   func() []byte
	}{
		{"staged links", func() []byte { return encodeStagedRecord(links) }},
		{"hosts, queue changes and links", func() []byte { return encodeLog(hosts, ops, links) }},
	} {
		var rec []byte
		if got := testing.AllocsPerRun(20, func() { rec = c.fn() }); got != 1 {
			t.Errorf("%s: %v allocations, want 1", c.name, got)
		}
		if len(rec) > cap(rec) || len(rec) < 300*40 {
			t.Errorf("%s: %d bytes", c.name, len(rec))
		}
	}
	// What encodeLog wrote reads back.
	gotHosts, gotOps, rest, err := decodeLog(encodeLog(hosts, ops, links))
	if err != nil || len(gotHosts) != 2 || gotHosts[0].rec != hosts[0].rec || len(gotOps) != 2 {
		t.Fatalf("decodeLog: %v, %d hosts, %d ops", err, len(gotHosts), len(gotOps))
	}
	ps, err := decodeStagedLinks(nil, rest, true)
	if err != nil || len(ps) != len(links) || !bytes.Equal(ps[299].val, links[299].val) || ps[299].seq != links[299].seq {
		t.Fatalf("decodeStagedLinks: %v, %d links", err, len(ps))
	}
}
