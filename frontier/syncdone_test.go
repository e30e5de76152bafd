package frontier

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// committedDone reads the Done counter as frontier.db holds it: what a crash would
// leave.
func committedDone(t *testing.T, f *Frontier) uint64 {
	t.Helper()
	var n uint64
	err := f.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get(append(append([]byte(nil), counterPfx...), cDone...)); v != nil {
			n, _ = binary.Uvarint(v)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	return n
}

// TestSyncDoneBeforeCommit: Options.SyncDone runs for every transaction that carries
// Dones, with their number, before that transaction is in the file (which holds
// the Dones of the calls before it); transactions
// without a Done (Add, the lease records) do not call it.
func TestSyncDoneBeforeCommit(t *testing.T) {
	var (
		f      *Frontier
		mu     sync.Mutex
		calls  []int
		synced uint64 // Dones of the SyncDone calls before, all committed
	)
	opts := Options{MaxInFlightPerHost: 100, SyncDone: func(n int) error {
		mu.Lock()
		calls = append(calls, n)
		want := synced
		synced += uint64(n)
		mu.Unlock()
		if got := committedDone(t, f); got != want {
			t.Errorf("in SyncDone: frontier.db holds %d done, want %d (the Dones it syncs for not yet committed)", got, want)
		}
		return nil
	}}
	f, _ = openTest(t, opts)
	const n = 40
	var entries []Entry
	for i := range n {
		entries = append(entries, Entry{URL: fmt.Sprintf("http://h%d.test/", i%4) + fmt.Sprint(i)})
	}
	mustAdd(t, f, n, entries...)
	var leases []*Lease
	for range n {
		leases = append(leases, lease(t, f))
	}
	mu.Lock()
	if len(calls) != 0 {
		t.Errorf("SyncDone called %v for commits without a Done", calls)
	}
	mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range leases {
		wg.Go(func() {
			if err := f.Done(context.Background(), l, Outcome{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	sum := 0
	for _, c := range calls {
		if c < 1 {
			t.Errorf("SyncDone(%d)", c)
		}
		sum += c
	}
	if sum != n {
		t.Errorf("SyncDone calls %v sum to %d Dones, want %d", calls, sum, n)
	}
	if got := committedDone(t, f); got != n {
		t.Errorf("frontier.db holds %d done, want %d", got, n)
	}
	t.Logf("%d Dones in %d commits", n, len(calls))
}

// TestSyncDoneErrorFailsCommit: an error from SyncDone fails the commit that
// waited for it like a failed write: Done returns it, the Frontier stops, and the
// lease is not done in the file (the next Open hands it out again).
func TestSyncDoneErrorFailsCommit(t *testing.T) {
	disk := errors.New("storage: sync pages.jsonl: no space left on device")
	f, path := openTest(t, Options{SyncDone: func(int) error { return disk }})
	mustAdd(t, f, 1, Entry{URL: "http://a.test/1"})
	l := lease(t, f)
	err := f.Done(context.Background(), l, Outcome{})
	if !errors.Is(err, disk) {
		t.Fatalf("Done: %v, want the SyncDone error", err)
	}
	if want := "frontier: commit: storage: sync pages.jsonl: no space left on device"; err.Error() != want {
		t.Errorf("Done:\n\tgot  %q\n\twant %q", err, want)
	}
	if _, err := f.Add(context.Background(), Entry{URL: "http://a.test/2"}); !errors.Is(err, disk) {
		t.Errorf("Add after the failed commit: %v, want the commit's error", err)
	}
	f.Close()
	f, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// (The lease's own record may have gone in the failed transaction too.)
	if s := f.Stats(); s.Done != 0 || s.Queued != 1 {
		t.Fatalf("after reopen: %+v, want the URL queued, nothing done", s)
	}
	if got := lease(t, f).URL; got != "http://a.test/1" {
		t.Errorf("lease after reopen: %s", got)
	}
}
