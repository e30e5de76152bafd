// Clusterbench measures how a crawl scales over processes sharing it through NATS
// JetStream: the pages per second of one crawl process (single-process mode, no NATS)
// and of N processes sharing the crawl, on the same crawltest farm, for BENCHMARKS.md.
//
// Usage:
//
//	go run ./crawltest/cmd/clusterbench [-farm latency,cpu] [-procs 3] [-workers 8]
//
// Farms:
//
//   - latency: 150 hosts × 10 pages, every response delayed 100 ms by the server, no
//     min_delay: each process is bound by its workers waiting on the network, so N
//     processes should reach nearly N times one process's rate.
//   - cpu: 300 hosts × 20 pages of 30 KB with 50 links each, no latency and no
//     min_delay: bound by the machine's CPU, which the N processes (and the farm, and
//     nats-server) share, so the goal is that the hand-off costs little.
//
// The rate is the pages (not robots.txt) the farm served divided by the time from its
// first request to its last: the crawl's own work, without process start or the end of
// the crawl being agreed. CPU ms/page is the user and system time of the crawl
// processes and nats-server over those pages: on a shared machine it moves less than
// the rate does. Each run is audited (coverage 1, no politeness violation).
// Processes run with the default cluster.report_every (2s) and the harness's other
// settings (crawltest/clustertest.Config). It needs nats-server (Debian's package, or
// POLITECRAWL_NATS_SERVER).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/crawltest/clustertest"
)

func main() {
	farms := flag.String("farm", "latency,cpu", "farms to run: latency, cpu")
	procs := flag.Int("procs", 3, "processes sharing the crawl")
	workers := flag.Int("workers", 8, "workers of each process")
	flag.Parse()
	if err := run(strings.Split(*farms, ","), *procs, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "clusterbench:", err)
		os.Exit(1)
	}
}

func run(farms []string, procs, workers int) error {
	natsBin, err := clustertest.FindNATSServer()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "clusterbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := clustertest.BuildCrawl(dir)
	if err != nil {
		return err
	}
	for _, name := range farms {
		var sites []crawltest.Site
		switch name {
		case "latency":
			sites = crawltest.Generate(crawltest.GenerateOptions{Hosts: 150, PagesPerHost: 10, LinksPerPage: 6,
				CrossHostLinks: 0.3, Latency: 100 * time.Millisecond, Seed: 5})
		case "cpu":
			sites = crawltest.Generate(crawltest.GenerateOptions{Hosts: 300, PagesPerHost: 20, LinksPerPage: 50,
				PageSize: 30 << 10, CrossHostLinks: 0.3, Seed: 6})
		default:
			return fmt.Errorf("unknown farm %q", name)
		}
		one, err := crawl(bin, natsBin, filepath.Join(dir, name+"-1"), sites, 1, workers)
		if err != nil {
			return fmt.Errorf("%s, 1 process: %w", name, err)
		}
		many, err := crawl(bin, natsBin, filepath.Join(dir, fmt.Sprintf("%s-%d", name, procs)), sites, procs, workers)
		if err != nil {
			return fmt.Errorf("%s, %d processes: %w", name, procs, err)
		}
		fmt.Printf("%-8s 1 process: %6.1f pages/s %5.2f CPU ms/page   %d processes: %6.1f pages/s %5.2f CPU ms/page (nats-server %.2f)   ratio %.2f\n",
			name, one.rate, one.cpuPerPage, procs, many.rate, many.cpuPerPage, many.natsPerPage, many.rate/one.rate)
	}
	return nil
}

// result is one crawl's figures.
type result struct {
	rate        float64 // pages per second
	cpuPerPage  float64 // CPU milliseconds per page of the crawl processes and nats-server
	natsPerPage float64 // of nats-server alone
}

// crawl crawls sites with n processes (one: single-process mode, without NATS) of
// workers each, audits the record and returns its figures.
func crawl(bin, natsBin, dir string, sites []crawltest.Site, n, workers int) (result, error) {
	farm, err := crawltest.Start(sites...)
	if err != nil {
		return result{}, err
	}
	defer farm.Close()
	var (
		natsURL string
		srv     *clustertest.NATSServer
	)
	if n > 1 {
		srv, err = clustertest.StartNATSServer(natsBin, filepath.Join(dir, "jetstream"))
		if err != nil {
			return result{}, err
		}
		defer srv.Close()
		natsURL = srv.URL()
	}
	const shardCount = 64
	var ps []*clustertest.Process
	for i := range n {
		cfg := clustertest.Config{
			DataDir: filepath.Join(dir, fmt.Sprintf("data%d", i)), Seeds: farm.Seeds(), Resolve: farm.Resolve(),
			Workers: workers, NATS: natsURL, Name: fmt.Sprintf("p%d", i), ShardCount: shardCount, ReportEvery: 2 * time.Second,
			Shards: fmt.Sprintf("%d-%d", i*shardCount/n, (i+1)*shardCount/n-1),
		}
		path := filepath.Join(dir, fmt.Sprintf("crawl%d.yaml", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return result{}, err
		}
		if err := cfg.Write(path); err != nil {
			return result{}, err
		}
		p, err := clustertest.StartProcess(cfg.Name, bin, "-config", path, "-progress", "none")
		if err != nil {
			return result{}, err
		}
		ps = append(ps, p)
	}
	if err := clustertest.WaitAll(10*time.Minute, ps...); err != nil {
		return result{}, err
	}
	for _, p := range ps {
		if err := p.Err(); err != nil {
			return result{}, fmt.Errorf("%s: %v\n%s", p.Name, err, p.Output())
		}
	}
	r := crawltest.Audit(farm, crawltest.AuditOptions{Agent: "politecrawl", Tolerance: time.Millisecond, MinCoverage: 1})
	if err := r.Err(); err != nil {
		return result{}, err
	}
	reqs := farm.Requests()
	first, last := reqs[0].Start, reqs[0].End
	for _, q := range reqs {
		first = minTime(first, q.Start)
		if q.End.After(last) {
			last = q.End
		}
	}
	pages := float64(r.Requests - r.RobotsRequests)
	var cpu, natsCPU time.Duration
	for _, p := range ps {
		cpu += p.CPU()
	}
	if srv != nil {
		srv.Close()
		natsCPU = srv.CPU()
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / pages }
	return result{rate: pages / last.Sub(first).Seconds(), cpuPerPage: ms(cpu + natsCPU), natsPerPage: ms(natsCPU)}, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
