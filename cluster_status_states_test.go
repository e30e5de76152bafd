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
//
// The processes here report once, when they join, and a reader calls a report silent
// once it is older than twice the reader's cluster.lease. The busy checks therefore
// read with a lease of a minute (a report would have to take two minutes to reach the
// reader to seem silent), and only the wait for silence reads with the processes' own
// 300 ms lease: under -race on a loaded machine, reading the status can take longer
// than 600 ms after a join.
func TestClusterStatusStates(t *testing.T) {
	natsURL := startNATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), crawlWait) // only a hang reaches it
	defer cancel()
	const lease, staleAfter = 300 * time.Millisecond, 600 * time.Millisecond
	k := config.Default().Cluster
	k.URL, k.Stream, k.Lease = natsURL, "STATES", config.Duration(lease)
	patient := k
	patient.Lease = config.Duration(time.Minute)
	node := func(name string) (*cluster.Node, error) {
		return cluster.Join(ctx, cluster.Config{URL: natsURL, Name: name, Stream: "STATES", Shards: 4, Own: []int{0, 1},
			StaleAfter: staleAfter, Lease: lease, Log: slog.New(slog.DiscardHandler)})
	}
	state := func(k config.Cluster, name string) string {
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
	if got := state(patient, "old"); got != "busy" {
		t.Fatalf("a running process is %q, want busy", got)
	}
	// It dies: no stopped report. Its report ages until it is older than 2*lease.
	old.Close()
	for state(k, "old") != "silent" {
		if ctx.Err() != nil {
			t.Fatalf("a dead process is still %q, want silent", state(patient, "old"))
		}
		time.Sleep(20 * time.Millisecond) // polling: the report's age is the state waited for
	}
	// Join refuses the shards until old's report is older than staleAfter.
	var replacement *cluster.Node
	for replacement == nil {
		if replacement, err = node("new"); err != nil {
			if ctx.Err() != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond) // polling, as above
		}
	}
	defer replacement.Close()
	if got := state(patient, "old"); got != "replaced" {
		t.Errorf("a process whose shards were taken over is %q, want replaced", got)
	}
	if got := state(patient, "new"); got != "busy" {
		t.Errorf("the new owner is %q, want busy", got)
	}
}
