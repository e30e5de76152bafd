package crawl

import (
	"slices"
	"testing"
	"time"

	"github.com/politecrawl/crawl/cluster"
	"github.com/politecrawl/crawl/config"
)

// TestClusterConfigConversion: the cluster section becomes cluster.Config, with the
// lease and a stale age of twice the lease, and a stable default name.
func TestClusterConfigConversion(t *testing.T) {
	for _, tt := range []struct {
		every, set, lease, stale time.Duration
	}{
		{2 * time.Second, 0, 15 * time.Second, cluster.DefaultStaleAfter},
		{10 * time.Second, 0, 30 * time.Second, time.Minute},
		{2 * time.Second, time.Minute, time.Minute, 2 * time.Minute},
	} {
		k := config.Default().Cluster
		k.URL, k.Shards, k.ShardCount = "nats://127.0.0.1:4222", "0-3,8", 16
		k.ReportEvery, k.Lease = config.Duration(tt.every), config.Duration(tt.set)
		got, err := clusterConfig(k)
		if err != nil {
			t.Fatal(err)
		}
		if got.StaleAfter != tt.stale || got.Lease != tt.lease || got.Shards != 16 || !slices.Equal(got.Own, []int{0, 1, 2, 3, 8}) ||
			got.Name != k.ProcessName() || got.AckWait != 30*time.Second || got.Stream != "POLITECRAWL" {
			t.Errorf("lease %v: got %+v", tt.lease, got)
		}
	}
}
