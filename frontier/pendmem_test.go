package frontier

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// TestPendingChangeMemory checks what a queue change logged and not folded in costs in
// memory: a fold writes them once LogBatch are pending (50,000 by default), and they
// fall on that many hosts, most with one or two. A map per host took about 500 bytes
// for one change; the sorted list takes 64 and its slot.
func TestPendingChangeMemory(t *testing.T) {
	const hosts = 4000
	f, _ := openTest(t, Options{LogBatch: 1 << 20}) // no fold
	entries := make([]Entry, 0, 2*hosts)
	for i := range hosts {
		entries = append(entries, Entry{URL: fmt.Sprintf("http://h%d.test/1", i)}, Entry{URL: fmt.Sprintf("http://h%d.test/2", i)})
	}
	mustAdd(t, f, 2*hosts, entries...)
	entries = nil
	leases := make([]*Lease, hosts) // one per host: MaxInFlightPerHost is 1
	for i := range leases {
		leases[i] = lease(t, f)
	}
	before := liveHeap()
	var wg sync.WaitGroup
	errs := make(chan error, hosts)
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < hosts; i += 16 {
				errs <- f.Done(context.Background(), leases[i], Outcome{})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Done: %v", err)
		}
	}
	after := liveHeap()
	runtime.KeepAlive(leases)
	f.mu.Lock()
	pending := f.pendN
	f.mu.Unlock()
	if pending != hosts {
		t.Fatalf("pending changes: got %d, want %d", pending, hosts)
	}
	per := (after - before) / hosts
	t.Logf("live heap per pending change: %d bytes", per)
	if per > 200 {
		t.Errorf("live heap per pending change: got %d bytes, want at most 200 (%d before the Dones, %d after)", per, before, after)
	}
}

// liveHeap returns the bytes of live objects in the Go heap, after full collections
// (two: a sync.Pool keeps its objects until the second).
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestHostMemory checks what a host costs in memory once its record is loaded, the
// bulk of the live heap at 10M URLs over 100,000 hosts: the host itself, its name
// and its slot in Frontier.hosts. (A host was 184 bytes, then 200, a size class of
// 192 or 208 bytes; it is 136 now, in one of 144.)
func TestHostMemory(t *testing.T) {
	const hosts = 4000
	dir := t.TempDir()
	empty, full := filepath.Join(dir, "empty.db"), filepath.Join(dir, "full.db")
	f, err := Open(full, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	entries := make([]Entry, 0, hosts)
	for i := range hosts {
		entries = append(entries, Entry{URL: fmt.Sprintf("http://h%05d.test/", i)})
	}
	mustAdd(t, f, hosts, entries...)
	entries = nil
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if f, err = Open(empty, Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	live := func(path string) int64 {
		f, err := Open(path, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		n := liveHeap()
		runtime.KeepAlive(f)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	base, loaded := live(empty), live(full)
	per := (loaded - base) / hosts
	t.Logf("live heap per host: %d bytes", per)
	if per > 256 {
		t.Errorf("live heap per host: got %d bytes, want at most 256 (%d with no host, %d with %d)", per, base, loaded, hosts)
	}
}
