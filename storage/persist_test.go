package storage

import (
	"fmt"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
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
		w.waiting = append(w.waiting, seq)
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

// TestPersistTakesTheDurablePages checks what persist moves into the index: the
// digests and captures of the records already durable, none of the others, which
// stay counted for a later call and are taken once they are durable.
func TestPersistTakesTheDurablePages(t *testing.T) {
	w, err := OpenWARC(WARCOptions{Dir: t.TempDir(), Hostname: "test-host", Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const n, durable = 10, 4
	synced := w.fl.durableSeq() + durable
	w.fl.advance(synced)
	w.dmu.Lock()
	for i := range n {
		seq := synced - durable + 1 + uint64(i) // the first durable ones are durable
		d := fmt.Sprintf("sha1:%032d", i)
		uri := fmt.Sprintf("http://a.example/%d", i)
		w.pending[d] = pendingDigest{ref: digestRef{ID: fmt.Sprintf("<urn:uuid:%d>", i), Date: "2026-11-25T00:00:00Z", URI: uri}, seq: seq}
		w.captures[uri] = pendingCapture{uri: uri, c: Capture{RecordID: fmt.Sprintf("<urn:uuid:%d>", i), URI: uri}, seq: seq}
		w.waiting = append(w.waiting, seq)
	}
	w.dmu.Unlock()
	inIndex := func() (digests, captures int) {
		t.Helper()
		if err := w.db.View(func(tx *bolt.Tx) error {
			digests = tx.Bucket(bucketDigests).Stats().KeyN
			captures = tx.Bucket(bucketCaptures).Stats().KeyN
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return digests, captures
	}
	if err := w.persist(durable + 1); err != nil {
		t.Fatal(err)
	}
	if d, c := inIndex(); d != 0 || c != 0 {
		t.Fatalf("persist(%d) with %d pages durable moved %d digests and %d captures, want none", durable+1, durable, d, c)
	}
	if err := w.persist(1); err != nil {
		t.Fatal(err)
	}
	if d, c := inIndex(); d != durable || c != durable {
		t.Fatalf("persist(1) moved %d digests and %d captures, want the %d durable", d, c, durable)
	}
	w.dmu.Lock()
	left, waiting := len(w.pending), len(w.waiting)
	w.dmu.Unlock()
	if left != n-durable || waiting != n-durable {
		t.Fatalf("after persist: %d digests and %d pages waiting, want %d", left, waiting, n-durable)
	}
	w.fl.advance(synced + n - durable) // the rest becomes durable
	if err := w.persist(1); err != nil {
		t.Fatal(err)
	}
	if d, c := inIndex(); d != n || c != n {
		t.Fatalf("persist(1) with every page durable: %d digests and %d captures in the index, want %d", d, c, n)
	}
	w.dmu.Lock()
	left, waiting = len(w.pending)+len(w.captures), len(w.waiting)
	w.dmu.Unlock()
	if left != 0 || waiting != 0 {
		t.Errorf("after the last persist: %d entries and %d pages still waiting, want none", left, waiting)
	}
}
