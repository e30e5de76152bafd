package main

import (
	"os"
	"strings"
	"testing"
)

// TestClusterFlags: -cluster, -shards, -shard-count and -name set the cluster section;
// a bad combination is a usage error naming the key.
func TestClusterFlags(t *testing.T) {
	m := &Main{Stdout: os.Stdout, Stderr: testStderr{t}}
	cfg, _, err := crawlConfig(m, []string{"http://a.test/", "-data", t.TempDir(),
		"-cluster", "nats://127.0.0.1:4222", "-shards", "8-15", "-shard-count", "16", "-name", "web2"})
	if err != nil {
		t.Fatal(err)
	}
	k := cfg.Cluster
	if k.URL != "nats://127.0.0.1:4222" || k.Shards != "8-15" || k.ShardCount != 16 || k.Name != "web2" {
		t.Errorf("cluster flags not applied: %+v", k)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"http://a.test/", "-shards", "0-3"}, "cluster.shards"},
		{[]string{"http://a.test/", "-cluster", "nats://127.0.0.1:4222"}, "cluster.shards"},
		{[]string{"http://a.test/", "-cluster", "nats://127.0.0.1:4222", "-shards", "0-64"}, "cluster.shards"},
		{[]string{"http://a.test/", "-cluster", "127.0.0.1:4222", "-shards", "0"}, "cluster.url"},
	} {
		code, out, errOut := run(t, append(tc.args, "-data", t.TempDir())...)
		if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("crawl %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
