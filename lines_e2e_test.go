package crawl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestCrashBeforePagesLinesReachDisk: a crash after a round's WARC sync and before
// pages.jsonl's lines reach disk (issue 14: a round of pages carried in the WARC
// does not sync pages.jsonl) loses the last lines. The copy of the data directory
// taken in a commit, with pages.jsonl's last lines cut off, resumes: the start
// rebuilds the lost lines from the WARC's metadata records, byte for byte, says so,
// and fetches again no more than the leases in flight.
func TestCrashBeforePagesLinesReachDisk(t *testing.T) {
	farm := commitFarm(t)
	dir, snap := t.TempDir(), t.TempDir()
	cfg := commitConfig(farm, dir)
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = new(strings.Builder)
	var (
		mu    sync.Mutex
		calls int
		taken bool
	)
	c.synced = func(int) {
		mu.Lock()
		defer mu.Unlock()
		if calls++; taken || calls < 10 {
			return
		}
		taken = true
		if err := copyDir(dir, snap); err != nil {
			t.Error(err)
		}
	}
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	ok := taken
	mu.Unlock()
	if !ok {
		t.Fatal("fewer than 10 commits: nothing copied")
	}

	// The crash: pages.jsonl's last lines never reached the disk.
	path := filepath.Join(snap, "pages.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	cut := min(8, len(lines)/2)
	if cut == 0 {
		t.Fatalf("pages.jsonl holds %d lines at the copy", len(lines))
	}
	lost := lines[len(lines)-cut:]
	if err := os.WriteFile(path, []byte(strings.Join(lines[:len(lines)-cut], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("copied with %d pages.jsonl lines, %d cut", len(lines), cut)

	farm.Reset()
	cfg = commitConfig(farm, snap)
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.Stderr = new(strings.Builder)
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sum := r.Summary(); !sum.Complete {
		t.Fatalf("resumed crawl not complete:\n%s", sum)
	}
	log, err := os.ReadFile(filepath.Join(snap, "crawl.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(log, []byte("lines rebuilt from the WARC")) {
		t.Errorf("crawl.log does not report the rebuild:\n%s", log)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lost {
		if !bytes.Contains(after, []byte(l)) {
			t.Errorf("lost line not rebuilt as it was: %s", l)
		}
	}
	count := map[string]int{}
	for _, u := range pageURLs(t, snap) {
		count[u]++
	}
	twice := 0
	for u := range farm.Expected() {
		switch n := count[u]; {
		case n == 0:
			t.Errorf("%s: no pages.jsonl line after the resume", u)
		case n == 2:
			twice++
		case n > 2:
			t.Errorf("%s: %d pages.jsonl lines", u, n)
		}
	}
	if twice > cfg.Workers {
		t.Errorf("%d URLs fetched twice: want at most the %d leases in flight", twice, cfg.Workers)
	}
	checkLinesWhole(t, snap)
}
