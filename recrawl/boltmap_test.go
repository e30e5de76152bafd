package recrawl

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/politecrawl/crawl/internal/boltmap"
)

// TestStoreDropsMappedPages: the store watches its file's mapped pages; with a
// budget of one byte it drops them, and every schedule reads back. It does not run in
// parallel with other tests: a budget is checked against the whole process's
// file-backed resident size.
func TestStoreDropsMappedPages(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runtime.GOOS == "linux" && !s.mapped.Watching() {
		t.Fatal("the schedule's pages are not watched")
	}
	s.mapped.Close()
	s.mapped = boltmap.NewLimit(1)
	ticks := make(chan time.Time)
	s.mapped.Watch(s.db, ticks)
	const n = 100 // each put waits for a batch of its own (10 ms)
	url := func(i int) string { return fmt.Sprintf("http://a.example/page/%d", i) }
	for i := range n {
		ps := Record{Cur: Fetch{Due: int64(i) + 1, Interval: time.Hour, Status: 200}}
		if err := s.Put(url(i), &ps); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS == "linux" {
		ticks <- time.Time{}
		ticks <- time.Time{} // taken once the first is checked
	}
	if runtime.GOOS == "linux" && s.mapped.Drops() == 0 {
		t.Fatalf("no drop of the schedule's pages after %d puts with a budget of one byte", n)
	}
	for i := range n {
		ps, ok, _, err := s.Get(url(i))
		if err != nil || !ok || ps.Cur.Due != int64(i)+1 || ps.Cur.Status != 200 {
			t.Fatalf("get(%s) = %+v, %v, %v; want due %d, status 200", url(i), ps, ok, err, i+1)
		}
	}
}
