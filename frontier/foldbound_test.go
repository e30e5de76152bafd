package frontier

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestFoldCommitBounded checks that no commit of a fold writes much more than its
// node budget, even when its links all land at the right end of the queue tree: a
// fold that creates its hosts gives them ids in the order it queues their links, so
// every link is appended to the last leaf, which bbolt splits only at the commit and
// the node count therefore does not see growing. One commit then took a whole fold
// (2 GiB of memory for a fold of 4M links).
func TestFoldCommitBounded(t *testing.T) {
	defer func(n int64, c int) { foldNodes, foldCheck = n, c }(foldNodes, foldCheck)
	foldNodes, foldCheck = 8, 16
	f, err := Open(filepath.Join(t.TempDir(), "f.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	const n, hosts = 20_000, 50
	es := make([]Entry, 0, n)
	for i := range n {
		es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/a/fairly/long/path/to/page-%d.html", i%hosts, i), Depth: 1,
			FoundOn: "http://example.test/the/page/that/linked/here.html"})
	}
	if _, err := f.Stage(ctx, es...); err != nil {
		t.Fatal(err)
	}
	// Each step commits one chunk of the fold; the bytes of pages it allocated are
	// the growth of bbolt's cumulative count.
	var most int64
	for steps := 0; f.Stats().Staged > 0 || f.logLen > 0; steps++ {
		if steps > 100_000 {
			t.Fatal("the fold does not end")
		}
		st := f.db.Stats()
		before := st.TxStats.GetPageAlloc()
		if err := f.foldOnce(ctx); err != nil {
			t.Fatal(err)
		}
		st = f.db.Stats()
		most = max(most, st.TxStats.GetPageAlloc()-before)
	}
	if got := f.Stats().Queued; got != n {
		t.Fatalf("queued %d, want %d", got, n)
	}
	// foldNodes pages, and as many again for the links the last check let in, the
	// log's tail, meta and branches.
	t.Logf("most allocated by a commit of the fold: %d bytes", most)
	if limit := int64(64 * 4096); most > limit {
		t.Errorf("a commit of the fold allocated %d bytes of pages, more than %d", most, limit)
	}
}
