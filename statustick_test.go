package crawl

import (
	"testing"

	"github.com/politecrawl/crawl/config"
)

// TestStatusTickOneStatsPass: a running crawl's status write takes one snapshot of
// the frontier's figures for its rate and its file, not one for each: every
// snapshot is a pass over the hosts under the frontier's lock (about 10 ms at
// 100,000 hosts, during which no worker leases or finishes a URL).
func TestStatusTickOneStatsPass(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Seeds = []string{"http://a.example/"}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.openFrontier(); err != nil {
		t.Fatal(err)
	}
	defer c.close()
	c.started = c.now()
	before := c.counters.statsPasses.Load()
	c.statusTick(0, 0)
	if got := c.counters.statsPasses.Load() - before; got != 1 {
		t.Errorf("a status write took %d passes over the frontier's hosts, want 1", got)
	}
	s, err := ReadStatus(cfg.DataDir)
	if err != nil {
		t.Fatalf("no status file after the tick: %v", err)
	}
	if s.State != StateRunning {
		t.Errorf("status %q, want %q", s.State, StateRunning)
	}
}
