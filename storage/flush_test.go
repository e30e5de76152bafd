package storage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// gateSyncer is a file whose Sync blocks until the test lets it through.
type gateSyncer struct {
	calls atomic.Int32
	gate  chan error
}

func (s *gateSyncer) Sync() error {
	s.calls.Add(1)
	return <-s.gate
}

// fakeLog numbers writes the way the writers do.
type fakeLog struct {
	mu  sync.Mutex
	seq uint64
	f   *gateSyncer
}

func (l *fakeLog) write() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return l.seq
}

func (l *fakeLog) point() syncPoint {
	l.mu.Lock()
	defer l.mu.Unlock()
	return syncPoint{seq: l.seq, f: l.f}
}

func TestGroupCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		log := &fakeLog{f: &gateSyncer{gate: make(chan error)}}
		var fl flusher
		errs := make(chan error, 100)
		commit := func() {
			seq := log.write()
			errs <- fl.wait(ctx, seq, log.point, func(syncPoint) {})
		}

		go commit() // the first writer leads and blocks in Sync
		synctest.Wait()
		const followers = 40
		for range followers {
			go commit() // these write while the first fsync runs
		}
		synctest.Wait()
		if got := log.f.calls.Load(); got != 1 {
			t.Fatalf("%d fsyncs while the first one runs, want 1", got)
		}
		log.f.gate <- nil // the first fsync ends
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := log.f.calls.Load(); got != 2 {
			t.Fatalf("%d fsyncs, want 2: one for all %d followers", got, followers)
		}
		log.f.gate <- nil
		for range followers {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if got := fl.count(); got != 2 {
			t.Errorf("count() = %d, want 2", got)
		}
		if got := fl.durableSeq(); got != followers+1 {
			t.Errorf("durableSeq() = %d, want %d", got, followers+1)
		}
	})
}

func TestGroupCommitErrorIsSticky(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		log := &fakeLog{f: &gateSyncer{gate: make(chan error)}}
		var fl flusher
		errs := make(chan error, 10)
		commit := func() {
			seq := log.write()
			errs <- fl.wait(ctx, seq, log.point, func(syncPoint) {})
		}
		go commit()
		synctest.Wait()
		go commit()
		synctest.Wait()
		boom := errors.New("disk on fire")
		log.f.gate <- boom
		for range 2 {
			if err := <-errs; !errors.Is(err, boom) {
				t.Errorf("wait: %v, want %v", err, boom)
			}
		}
		go commit() // nothing is durable after a failed fsync
		if err := <-errs; !errors.Is(err, boom) {
			t.Errorf("wait after the failure: %v, want %v", err, boom)
		}
		if got := log.f.calls.Load(); got != 1 {
			t.Errorf("%d fsyncs, want 1", got)
		}
	})
}

func TestGroupCommitCanceledFollower(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log := &fakeLog{f: &gateSyncer{gate: make(chan error)}}
		var fl flusher
		lead := make(chan error, 1)
		go func() { lead <- fl.wait(context.Background(), log.write(), log.point, func(syncPoint) {}) }()
		synctest.Wait()
		ctx, cancel := context.WithCancel(context.Background())
		follow := make(chan error, 1)
		go func() { follow <- fl.wait(ctx, log.write(), log.point, func(syncPoint) {}) }()
		synctest.Wait()
		cancel()
		if err := <-follow; !errors.Is(err, context.Canceled) {
			t.Errorf("canceled follower: %v", err)
		}
		log.f.gate <- nil
		if err := <-lead; err != nil {
			t.Errorf("leader: %v", err)
		}
	})
}

// TestConcurrentWriters runs many writers with real fsyncs and checks that
// every acknowledged record is in the files where its Location says.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, MaxFileSize: 64 << 10})
	const workers, each = 16, 8
	locs := make(chan Location, workers*each)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := range each {
				// Every third body repeats, so revisits race with responses.
				body := fmt.Appendf(nil, "body %d", (g*each+i)%(workers*each/3))
				ex := exchange(fmt.Sprintf("http://h%d.example/%d", g, i), append(body, noise(g*each+i, 1000)[:(g*each+i)%3]...), "")
				loc, err := w.WriteExchange(ctx, ex)
				if err != nil {
					t.Error(err)
					return
				}
				if err := w.WriteMetadata(ctx, &Metadata{TargetURI: ex.TargetURI, ConcurrentTo: loc.RecordID}); err != nil {
					t.Error(err)
					return
				}
				locs <- loc
			}
		})
	}
	wg.Wait()
	close(locs)
	st := w.Stats()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	byID := map[string]readRecord{}
	for _, r := range readDir(t, dir) {
		byID[r.get("WARC-Record-ID")] = r
	}
	n := 0
	for loc := range locs {
		n++
		r, ok := byID[loc.RecordID]
		if !ok || r.File != loc.File || r.Offset != loc.Offset || r.Size != loc.Length {
			t.Errorf("Location %+v: record found %v at %s@%d+%d", loc, ok, r.File, r.Offset, r.Size)
		}
	}
	if n != workers*each {
		t.Errorf("%d locations, want %d", n, workers*each)
	}
	if st.Syncs == 0 || st.Syncs > 2*workers*each {
		t.Errorf("Stats.Syncs = %d for %d writes", st.Syncs, 2*workers*each)
	}
	t.Logf("%d writes, %d fsyncs, %d files, %d revisits", 2*workers*each, st.Syncs, st.Files, st.Revisits)
}
