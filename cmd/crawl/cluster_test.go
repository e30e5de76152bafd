package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/politecrawl/crawl/crawltest"
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

// TestClusterStatus: a process owning every shard crawls a farm through NATS alone and
// ends with the crawl; crawl status -cluster then shows it finished, with its shards,
// its pages and an empty stream.
func TestClusterStatus(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	sites := crawltest.Generate(crawltest.GenerateOptions{Hosts: 3, PagesPerHost: 4, LinksPerPage: 3, Seed: 1})
	farm, err := crawltest.Start(sites...)
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()
	var resolve strings.Builder
	for k, v := range farm.Resolve() {
		fmt.Fprintf(&resolve, "    %q: %q\n", k, v)
	}
	config := writeFile(t, "crawl.yaml", fmt.Sprintf("data_dir: %q\nseeds: %s\npoliteness:\n  min_delay: 10ms\n"+
		"network:\n  allow_private: true\n  resolve:\n%scluster:\n  url: %q\n  name: solo\n  shard_count: 16\n  shards: 0-15\n  stream: STATUSTEST\n  report_every: 100ms\n",
		filepath.Join(t.TempDir(), "data"), mustJSON(farm.Seeds()), resolve.String(), srv.ClientURL()))
	code, out, errOut := runFor(t, "-config", config, "-progress", "none")
	if want := fmt.Sprintf("crawl complete: %d pages", len(sites)*4); code != 0 || !strings.Contains(out, want) {
		t.Fatalf("clustered crawl: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, "status", "-cluster", srv.ClientURL(), "-stream", "STATUSTEST")
	if code != 0 {
		t.Fatalf("crawl status -cluster: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"crawl STATUSTEST on " + srv.ClientURL() + ": 1 processes, 16 shards", "solo", "0-15", "finished", "0 links waiting"} {
		if !strings.Contains(out, want) {
			t.Errorf("crawl status -cluster does not say %q:\n%s", want, out)
		}
	}
}
