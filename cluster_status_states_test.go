package crawl_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/cluster"
	"github.com/politecrawl/crawl/config"
)

// TestClusterStatusStates: crawl status -cluster shows a process that stopped reporting
// without saying it stopped as silent, not busy, and once another process took its
// shards over, as replaced.
func TestClusterStatusStates(t *testing.T) {
	natsURL := startNATS(t)
	ctx := context.Background()
	k := config.Default().Cluster
	k.URL, k.Stream, k.Lease = natsURL, "STATES", config.Duration(300*time.Millisecond)
	node := func(name string) (*cluster.Node, error) {
		return cluster.Join(ctx, cluster.Config{URL: natsURL, Name: name, Stream: "STATES", Shards: 4, Own: []int{0, 1},
			StaleAfter: 600 * time.Millisecond, Lease: 300 * time.Millisecond, Log: slog.New(slog.DiscardHandler)})
	}
	state := func(name string) string {
		st, err := crawl.ReadClusterStatus(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range st.Processes {
			if p.Name == name {
				return p.State
			}
		}
		return ""
	}
	old, err := node("old")
	if err != nil {
		t.Fatal(err)
	}
	if got := state("old"); got != "busy" {
		t.Fatalf("a running process is %q, want busy", got)
	}
	// It dies: no stopped report.
	old.Close()
	for deadline := time.Now().Add(30 * time.Second); state("old") != "silent"; time.Sleep(20 * time.Millisecond) { // polling
		if time.Now().After(deadline) {
			t.Fatalf("a dead process is still %q, want silent", state("old"))
		}
	}
	var replacement *cluster.Node
	for deadline := time.Now().Add(30 * time.Second); replacement == nil; time.Sleep(20 * time.Millisecond) { // polling
		if replacement, err = node("new"); err != nil && time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	defer replacement.Close()
	if got := state("old"); got != "replaced" {
		t.Errorf("a process whose shards were taken over is %q, want replaced", got)
	}
	if got := state("new"); got != "busy" {
		t.Errorf("the new owner is %q, want busy", got)
	}
}
