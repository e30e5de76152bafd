package crawl_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// startNATS starts an embedded NATS server with JetStream storing in a temporary
// directory (crawltest/clustertest runs Debian's nats-server as separate processes).
func startNATS(t *testing.T) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	return s.ClientURL()
}

// clusterConfigs returns the configurations of n processes sharing a crawl of farm
// through natsURL, each owning an equal part of 16 shards.
func clusterConfigs(farm *crawltest.Farm, dir, natsURL string, n int) []config.Config {
	var cfgs []config.Config
	for i := range n {
		cfg := testConfig(farm, filepath.Join(dir, fmt.Sprint(i)))
		cfg.Workers = 4
		cfg.Cluster.URL = natsURL
		cfg.Cluster.Name = fmt.Sprintf("p%d", i)
		cfg.Cluster.ShardCount = 16
		cfg.Cluster.Shards = fmt.Sprintf("%d-%d", i*16/n, (i+1)*16/n-1)
		cfg.Cluster.ReportEvery = config.Duration(100 * time.Millisecond)
		cfg.Cluster.AckWait = config.Duration(time.Second) // a stopped process's undelivered links come back soon
		cfgs = append(cfgs, cfg)
	}
	return cfgs
}

// TestClusterCrawl: two crawlers sharing the robots.txt farm through NATS, each owning
// half the shards, together crawl it as one would: every page once, robots.txt obeyed,
// every host paced by one of them.
func TestClusterCrawl(t *testing.T) {
	farm := startFarm(t, farmSites())
	natsURL := startNATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), crawlWait)
	defer cancel()
	var crawlers []*crawl.Crawler
	var results []<-chan error
	for _, cfg := range clusterConfigs(farm, t.TempDir(), natsURL, 2) {
		c, done := startCrawl(t, ctx, cfg)
		crawlers, results = append(crawlers, c), append(results, done)
	}
	for i, done := range results {
		if err := <-done; err != nil {
			t.Fatalf("crawler %d: %v", i, err)
		}
		if sum := crawlers[i].Summary(); !sum.Complete || sum.Pages == 0 {
			t.Errorf("crawler %d: complete %v, %d pages; want a complete crawl with pages", i, sum.Complete, sum.Pages)
		}
	}
	auditOK(t, farm, 0)
}

// TestClusterStopOne: a crawler stopped (Ctrl-C) stops alone; the other waits for its
// shards; started again, it resumes them and both end with the farm crawled once.
func TestClusterStopOne(t *testing.T) {
	farm := startFarm(t, crawltest.Generate(crawltest.GenerateOptions{
		Hosts: 12, PagesPerHost: 15, LinksPerPage: 4, CrossHostLinks: 0.4, Seed: 3}))
	natsURL := startNATS(t)
	// A stop that cuts a robots.txt fetch (the stop below does under load) makes the
	// host wait, when the crawl starts again, the backoff after a connection error
	// (robotsInterrupted): farmConfig's 10 ms, not max_delay.
	cfgs := clusterConfigs(farm, t.TempDir(), natsURL, 2)
	ctx, cancel := context.WithTimeout(context.Background(), crawlWait)
	defer cancel()
	stopCtx, stop := context.WithCancel(ctx)
	_, first := startCrawl(t, stopCtx, cfgs[0])
	other, otherDone := startCrawl(t, ctx, cfgs[1])
	for len(farm.Requests()) < 40 {
		select {
		case err := <-first:
			t.Fatalf("crawler 0 ended before it was stopped: %v", err)
		case <-time.After(2 * time.Millisecond):
		}
	}
	stop()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped crawler: %v, want context.Canceled", err)
	}
	select {
	case err := <-otherDone:
		t.Fatalf("crawler 1 ended while crawler 0's shards were not crawled: %v", err)
	default:
	}
	again, againDone := startCrawl(t, ctx, cfgs[0])
	for i, done := range []<-chan error{againDone, otherDone} {
		if err := <-done; err != nil {
			t.Fatalf("crawler %d: %v", i, err)
		}
	}
	for i, c := range []*crawl.Crawler{again, other} {
		if sum := c.Summary(); !sum.Complete {
			t.Errorf("crawler %d not complete: %+v", i, sum)
		}
	}
	auditOK(t, farm, cfgs[0].Workers)
}

// TestClusterSeedsFile: two crawlers of one crawl, given the same seeds file, each
// queue the seeds of their own shards and hand the others over: together they crawl the
// farm as TestClusterCrawl does, and every seed is fetched once (but down.test's, whose
// robots.txt is unreachable).
func TestClusterSeedsFile(t *testing.T) {
	farm := startFarm(t, farmSites())
	natsURL := startNATS(t)
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(seeds, []byte("# the farm\n"+strings.Join(farm.Seeds(), "\n")+"\nnot a seed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), crawlWait)
	defer cancel()
	var crawlers []*crawl.Crawler
	var results []<-chan error
	for _, cfg := range clusterConfigs(farm, dir, natsURL, 2) {
		cfg.Seeds, cfg.SeedsFile = nil, seeds
		c, done := startCrawl(t, ctx, cfg)
		crawlers, results = append(crawlers, c), append(results, done)
	}
	pages := int64(0)
	for i, done := range results {
		if err := <-done; err != nil {
			t.Fatalf("crawler %d: %v", i, err)
		}
		sum := crawlers[i].Summary()
		if !sum.Complete {
			t.Errorf("crawler %d: not complete", i)
		}
		if read := crawlers[i].SeedsRead(); !read.Done || read.Seeds != int64(len(farm.Seeds())) || read.Skipped != 1 {
			t.Errorf("crawler %d read %+v; want every seed and one line skipped", i, read)
		}
		pages += sum.Pages
	}
	if pages == 0 {
		t.Fatal("no page fetched")
	}
	fetched := map[string]int{}
	for _, r := range farm.Requests() {
		fetched["http://"+r.Host+r.Path]++
	}
	for _, s := range farm.Seeds() {
		// down.test's robots.txt answers 500: its host is set aside.
		if fetched[s] > 1 || fetched[s] == 0 && s != "http://down.test/" {
			t.Errorf("seed %s fetched %d times, want once", s, fetched[s])
		}
	}
	auditOK(t, farm, 0)
}
