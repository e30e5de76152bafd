package storage

import (
	"fmt"
	"strings"
	"testing"
)

// TestPersistNotDueAllocatesNothing checks that a write finding a batch of digests that
// is not yet due (too few of them durable) returns without copying it: with every
// page's fsync pending, each write asks, and a copy each time cost two maps per page.
func TestPersistNotDueAllocatesNothing(t *testing.T) {
	w, err := OpenWARC(WARCOptions{Dir: t.TempDir(), Hostname: "test-host", Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	synced := w.fl.durableSeq()
	w.dmu.Lock()
	for i := range 2 * persistBatch {
		seq := synced + 1 + uint64(i) // not durable yet
		if i < persistBatch/2 {
			seq = synced // durable
		}
		d := fmt.Sprintf("sha1:%032d", i)
		w.pending[d] = pendingDigest{seq: seq}
		w.captures[d] = pendingCapture{seq: seq}
	}
	w.dmu.Unlock()
	allocs := testing.AllocsPerRun(100, func() {
		if err := w.persist(persistBatch); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("persist with %d of %d digests durable: %v allocations, want 0", persistBatch/2, 2*persistBatch, allocs)
	}
	w.dmu.Lock()
	n := len(w.pending)
	w.dmu.Unlock()
	if n != 2*persistBatch {
		t.Errorf("persist moved %d digests before the batch was due", 2*persistBatch-n)
	}
}

// TestMetadataFieldsOneAllocation checks that a metadata record's block is built in one
// allocation: grown by appends, it took eight or more for a page of fifty links.
func TestMetadataFieldsOneAllocation(t *testing.T) {
	m := &Metadata{TargetURI: "https://example.com/", Robots: &RobotsDecision{URL: "https://example.com/robots.txt",
		FetchedAt: t0, Status: 200, Digest: "sha1:" + strings.Repeat("A", 32), Rule: "allow: /" + strings.Repeat("x", 200),
		Allowed: true, ContentSignal: "ai-train=no, search=yes"}}
	for i := range 50 {
		m.Outlinks = append(m.Outlinks, fmt.Sprintf("https://example.com/a/rather/long/path/to/page-%d.html?with=query", i))
	}
	if allocs := testing.AllocsPerRun(10, func() { m.fields() }); allocs != 1 {
		t.Errorf("fields of %d outlinks: %v allocations, want 1", len(m.Outlinks), allocs)
	}
}
