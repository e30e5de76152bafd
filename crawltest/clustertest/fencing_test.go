package clustertest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl/cluster"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/crawltest/netcut"
)

// fencingLease is cluster.lease in the fencing tests: another process may take a cut-off
// process's shards over after twice that.
const fencingLease = 2 * time.Second

// fencingSites is a farm whose hosts each take about 12 s to crawl at the tests' delay,
// so that the cut-off process still has work when another takes its shards over.
func fencingSites() []crawltest.Site {
	return crawltest.Generate(crawltest.GenerateOptions{
		Hosts: 12, PagesPerHost: 40, LinksPerPage: 6, Seed: 27, CrossHostLinks: 0.3,
	})
}

const fencingDelay = 300 * time.Millisecond

// fencingFixture is a farm and a nats-server with three process configurations: p0
// reaches NATS through a proxy the test cuts, p1 directly; p2 owns p0's shards and is
// started only to take them over. Each sends its own User-Agent.
func fencingFixture(t *testing.T) (*fixture, *netcut.Proxy) {
	t.Helper()
	natsBin, bin := tools(t)
	sites := fencingSites()
	farm, err := crawltest.Start(sites...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { farm.Close() })
	dir := t.TempDir()
	nats, err := StartNATSServer(natsBin, filepath.Join(dir, "jetstream"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nats.Close() })
	proxy, err := netcut.Start(strings.TrimPrefix(nats.URL(), "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	f := &fixture{t: t, farm: farm, nats: nats, bin: bin, dir: dir, workers: 4, delay: fencingDelay}
	half := fmt.Sprintf("0-%d", shardCount/2-1)
	for i, p := range []struct{ url, shards string }{
		{"nats://" + proxy.Addr(), half},
		{nats.URL(), fmt.Sprintf("%d-%d", shardCount/2, shardCount-1)},
		{nats.URL(), half},
	} {
		cfg := Config{
			DataDir: filepath.Join(dir, fmt.Sprintf("data%d", i)), Seeds: farm.Seeds(), Resolve: farm.Resolve(),
			Workers: f.workers, MinDelay: f.delay, NATS: p.url, Name: fmt.Sprintf("p%d", i),
			ShardCount: shardCount, Shards: p.shards, Lease: fencingLease,
			UserAgent: fmt.Sprintf("politecrawl/0.1 (p%d)", i),
		}
		path := filepath.Join(dir, fmt.Sprintf("crawl%d.yaml", i))
		if err := cfg.Write(path); err != nil {
			t.Fatal(err)
		}
		f.configs = append(f.configs, path)
		f.dataDir = append(f.dataDir, cfg.DataDir)
	}
	// Both halves must hold hosts, or the test proves nothing.
	var first int
	for _, s := range sites {
		shard, err := cluster.ShardOf("http://"+s.Host+"/", shardCount)
		if err != nil {
			t.Fatal(err)
		}
		if shard < shardCount/2 {
			first++
		}
	}
	if first == 0 || first == len(sites) {
		t.Fatalf("%d of %d hosts in shards %s: choose another farm seed", first, len(sites), half)
	}
	return f, proxy
}

// requestsBy counts the farm's requests sent by process i (its User-Agent).
func (f *fixture) requestsBy(i int) int {
	agent := fmt.Sprintf("(p%d)", i)
	n := 0
	for _, r := range f.farm.Requests() {
		if strings.Contains(r.UserAgent, agent) {
			n++
		}
	}
	return n
}

// noHostShared checks that no host was fetched by two processes at once: for every host,
// the spans from each process's first request to its last do not overlap. It returns how
// many hosts went from one process to another.
func (f *fixture) noHostShared() int {
	f.t.Helper()
	type span struct{ first, last time.Time }
	spans := map[string]map[string]*span{} // host → User-Agent → span
	for _, r := range f.farm.Requests() {
		if spans[r.Host] == nil {
			spans[r.Host] = map[string]*span{}
		}
		s := spans[r.Host][r.UserAgent]
		if s == nil {
			spans[r.Host][r.UserAgent] = &span{r.Start, r.Start}
			continue
		}
		if r.Start.Before(s.first) {
			s.first = r.Start
		}
		if r.Start.After(s.last) {
			s.last = r.Start
		}
	}
	moved := 0
	for host, by := range spans {
		if len(by) < 2 {
			continue
		}
		moved++
		agents := slices.Sorted(func(yield func(string) bool) {
			for a := range by {
				if !yield(a) {
					return
				}
			}
		})
		for i, a := range agents {
			for _, b := range agents[i+1:] {
				sa, sb := by[a], by[b]
				if !sa.last.Before(sb.first) && !sb.last.Before(sa.first) {
					f.t.Errorf("host %s fetched by two processes at once: %s from %s to %s, %s from %s to %s",
						host, a, sa.first.Format("15:04:05.000"), sa.last.Format("15:04:05.000"),
						b, sb.first.Format("15:04:05.000"), sb.last.Format("15:04:05.000"))
				}
			}
		}
	}
	return moved
}

// TestCutShorterThanLease: p0 is cut off from NATS for half its lease: it goes on
// crawling, nothing is taken over, and the crawl ends complete with every host paced.
func TestCutShorterThanLease(t *testing.T) {
	f, proxy := fencingFixture(t)
	sites := fencingSites()
	procs := []*Process{f.start(0), f.start(1)}
	f.waitRequests(totalPages(sites)/6, procs...)
	proxy.Cut()
	atCut := len(f.farm.Requests())
	time.Sleep(fencingLease / 2) // the cut's length, the scenario itself
	proxy.Restore()
	f.finish(procs...)
	r := f.audit(0)
	moved := f.noHostShared()
	if moved != 0 {
		t.Errorf("%d hosts went from one process to another after a short cut", moved)
	}
	t.Logf("cut after %d requests for %s; %d requests, %d duplicates, smallest gap ratio %.2f",
		atCut, fencingLease/2, r.Requests, r.Duplicates, r.SmallestGapRatio)
}

// TestCutLongerThanLease: p0 is cut off from NATS until p2 has taken its shards over
// (its report stale after twice the lease) and crawled some of them. p0 stops fetching
// when its lease lapses, before p2 may start; on reconnecting it learns that its shards
// are p2's, says so, and hands its queued URLs to p2. No host is fetched by two
// processes at once, every host keeps its spacing, and the crawl ends complete.
func TestCutLongerThanLease(t *testing.T) {
	f, proxy := fencingFixture(t)
	sites := fencingSites()
	procs := []*Process{f.start(0), f.start(1)}
	f.waitRequests(totalPages(sites)/6, procs...)
	proxy.Cut()
	atCut := len(f.farm.Requests())
	cutAt := time.Now()
	// p2 is refused while p0's report is fresh: start it again until it joins.
	var p2 *Process
	for p2 == nil {
		p := f.start(2)
		for p2 == nil {
			select {
			case <-p.Done():
				if !strings.Contains(p.Output(), "owned by running process p0") {
					t.Fatalf("p2 ended: %v\n%s", p.Err(), p.Output())
				}
			case <-time.After(20 * time.Millisecond): // polling interval
				if f.requestsBy(2) > 0 {
					p2 = p
				}
				continue
			}
			break
		}
	}
	tookOver := time.Since(cutAt)
	for f.requestsBy(2) < 20 {
		select {
		case <-p2.Done():
			t.Fatalf("p2 ended: %v\n%s", p2.Err(), p2.Output())
		case <-time.After(20 * time.Millisecond): // polling interval
		}
	}
	proxy.Restore()
	procs = append(procs, p2)
	f.finish(procs...)
	r := f.audit(totalPages(sites))
	moved := f.noHostShared()
	if moved == 0 {
		t.Error("no host went from p0 to p2: the test proves nothing")
	}
	if out := procs[0].Output() + readFile(t, filepath.Join(f.dataDir[0], "crawl.log")); !strings.Contains(out, "taken over by another process") {
		t.Errorf("p0 did not say that its shards were taken over:\n%s", procs[0].Output())
	}
	t.Logf("cut after %d requests; p2 first fetched %s after the cut; %d hosts moved; %d requests, %d duplicates, smallest gap ratio %.2f",
		atCut, tookOver.Round(100*time.Millisecond), moved, r.Requests, r.Duplicates, r.SmallestGapRatio)
}

// readFile returns a file's content, "" if it cannot be read.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Logf("%s: %v", path, err)
	}
	return string(data)
}
