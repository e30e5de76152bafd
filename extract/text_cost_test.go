package extract

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU returns the CPU time the calling OS thread has used.
func threadCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestTextCost measures the CPU time of HTML on every *.html page of the directory
// $POLITECRAWL_TEXT_COST (trafilatura's tests/eval, say) with the link scan alone
// (TokenScan), the tree without text, and the main text, each mode in turn for five
// rounds, on one locked OS thread, and logs the CPU per page and the ratio to the link
// scan. CPU time rather than wall time, so that a loaded machine does not skew it much.
func TestTextCost(t *testing.T) {
	dir := os.Getenv("POLITECRAWL_TEXT_COST")
	if dir == "" {
		t.Skip("POLITECRAWL_TEXT_COST not set")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no pages in %s: %v", dir, err)
	}
	var bodies [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	modes := []struct {
		name string
		opts HTMLOptions
	}{
		{"links (token scan)", HTMLOptions{TokenScan: true}},
		{"links (tree)", HTMLOptions{}},
		{"links+text", HTMLOptions{WithText: true}},
		{"links+markdown", HTMLOptions{WithText: true, TextFormat: TextMarkdown}},
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := make([]time.Duration, len(modes))
	for range 5 {
		for i, m := range modes {
			runtime.GC()
			start := threadCPU(t)
			for _, b := range bodies {
				if _, err := HTML(htmlTestURL, nil, b, m.opts); err != nil {
					t.Fatal(err)
				}
			}
			cpu[i] += threadCPU(t) - start
		}
	}
	n := time.Duration(5 * len(bodies))
	for i, m := range modes {
		t.Logf("%-20s %8v CPU a page, %.2fx the token scan", m.name, (cpu[i] / n).Round(time.Microsecond), float64(cpu[i])/float64(cpu[0]))
	}
}
