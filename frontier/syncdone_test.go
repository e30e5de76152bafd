package frontier

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

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

// TestSyncDoneEndsBeforeFailedCommitReturns: a commit that fails before SyncDone
// has returned (another operation of its transaction failed) still waits for it
// before it tells its callers, so that no SyncDone runs once the Done calls have
// returned and the caller closes its files (a crawl's Run returns only after every
// goroutine it started has exited).
func TestSyncDoneEndsBeforeFailedCommitReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			calls    atomic.Int32
			release1 = make(chan struct{})
			release2 = make(chan struct{})
			returned atomic.Bool // the second SyncDone has returned
		)
		f, _ := openTest(t, Options{MaxInFlightPerHost: 10, SyncDone: func(int) error {
			switch calls.Add(1) {
			case 1:
				<-release1
			case 2:
				<-release2
				returned.Store(true)
			}
			return nil
		}})
		mustAdd(t, f, 2, Entry{URL: "http://a.test/1"}, Entry{URL: "http://a.test/2"})
		l1, l2 := lease(t, f), lease(t, f)
		first := make(chan error, 1)
		go func() { first <- f.Done(context.Background(), l1, Outcome{}) }()
		synctest.Wait() // the committer waits in the first SyncDone
		// A Done and an operation that fails, queued together: one transaction.
		second := make(chan error, 1)
		go func() { second <- f.Done(context.Background(), l2, Outcome{}) }()
		bad := errors.New("failed operation")
		failed := make(chan error, 1)
		go func() { failed <- f.do(context.Background(), &op{apply: func(*batch) error { return bad }}) }()
		synctest.Wait()
		close(release1)
		if err := <-first; err != nil {
			t.Fatalf("first Done: %v", err)
		}
		synctest.Wait() // the second transaction has failed; its SyncDone waits
		select {
		case err := <-second:
			close(release2) // let it end: the bubble must end with no goroutine left
			t.Fatalf("second Done returned (%v) while its SyncDone was still running", err)
		default:
		}
		close(release2)
		if err := <-second; !errors.Is(err, bad) {
			t.Errorf("second Done: %v, want the failed operation's error", err)
		}
		if !returned.Load() {
			t.Error("second Done returned before its SyncDone")
		}
		if err := <-failed; !errors.Is(err, bad) {
			t.Errorf("failed operation: %v", err)
		}
	})
}
