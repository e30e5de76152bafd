package crawl

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/politecrawl/crawl/internal/boltmap"
)

// TestScheduleDropsMappedPages writes many schedules with a budget of one byte for the
// file's mapped pages: puts drop them, and every schedule reads back.
func TestScheduleDropsMappedPages(t *testing.T) {
	t.Parallel()
	s, err := openSchedule(filepath.Join(t.TempDir(), ScheduleFile))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.mapped.Close()
	s.mapped = boltmap.NewLimit(1)
	s.mapped.SetInterval(0)
	const n = 100 // each put waits for a batch of its own (10 ms)
	url := func(i int) string { return fmt.Sprintf("http://a.example/page/%d", i) }
	for i := range n {
		ps := pageSchedule{cur: fetchState{due: int64(i) + 1, interval: time.Hour, status: 200}}
		if err := s.put(url(i), &ps); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS == "linux" && s.mapped.Drops() == 0 {
		t.Fatalf("no drop of the schedule's pages after %d puts with a budget of one byte", n)
	}
	for i := range n {
		ps, ok, _, err := s.get(url(i))
		if err != nil || !ok || ps.cur.due != int64(i)+1 || ps.cur.status != 200 {
			t.Fatalf("get(%s) = %+v, %v, %v; want due %d, status 200", url(i), ps, ok, err, i+1)
		}
	}
}
