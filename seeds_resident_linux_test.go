package crawl

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/extract"
)

// TestSeedsResidentMap: while a seeds file is read, the frontier keeps at most
// seedsResidentMap of its file mapped, and the crawl has frontier.resident_map again
// once the seeds are queued; a smaller resident_map, or 0 (never drop), is left as
// configured. (Linux: elsewhere the frontier leaves its mapped pages to the system.)
func TestSeedsResidentMap(t *testing.T) {
	defer func(b int) { seedBatch = b }(seedBatch)
	seedBatch = seedsTestBatch
	for _, tc := range []struct {
		configured   config.ByteSize
		during, then int64
	}{
		{config.DefaultResidentMap, seedsResidentMap, int64(config.DefaultResidentMap)},
		{config.ByteSize(seedsResidentMap / 2), seedsResidentMap / 2, seedsResidentMap / 2},
		{0, -1, -1},
	} {
		dir := t.TempDir()
		path, _ := writeSeedsFile(t, dir)
		cfg := (&seedsJob{DataDir: filepath.Join(dir, "data"), SeedsFile: path, Mode: extract.ModeHost}).config()
		cfg.Frontier.ResidentMap = tc.configured
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.Stderr = io.Discard
		ctx, cancel := context.WithCancel(context.Background())
		var during []int64
		var then int64
		c.seedsStep = func(stage string) {
			switch stage {
			case "added":
				during = append(during, c.front.SetResidentMap(-1)) // -1 changes nothing
			case "done":
				then = c.front.SetResidentMap(-1)
				cancel()
			}
		}
		if err := c.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("Run: %v", err)
		}
		cancel()
		if len(during) < 2 {
			t.Fatalf("resident_map %d: %d batches read, want several", tc.configured, len(during))
		}
		for i, got := range during {
			if got != tc.during {
				t.Errorf("resident_map %d: batch %d read with the frontier's resident map at %d, want %d", tc.configured, i, got, tc.during)
			}
		}
		if then != tc.then {
			t.Errorf("resident_map %d: after the seeds, the frontier's resident map is %d, want %d", tc.configured, then, tc.then)
		}
	}
}
