package clustertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/crawl/crawltest"
)

// clusterEnv set to 1 makes a missing nats-server a failure rather than a skip.
const clusterEnv = "POLITECRAWL_CLUSTER"

var (
	buildOnce sync.Once
	buildDir  string
	crawlBin  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	crawltest.ReportToolSkips()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// tools returns the nats-server and the crawl command built from this module, skipping
// the test when there is no nats-server (failing with POLITECRAWL_CLUSTER=1).
func tools(t *testing.T) (natsBin, crawl string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a nats-server and several crawl processes")
	}
	natsBin, err := FindNATSServer()
	if err != nil {
		crawltest.MissingTool(t, "nats-server", "not found", "apt-get install nats-server, or set POLITECRAWL_NATS_SERVER", clusterEnv)
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "clustertest-")
		if buildErr == nil {
			crawlBin, buildErr = BuildCrawl(buildDir)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return natsBin, crawlBin
}

// fixture is a farm, a nats-server and the configurations of n crawl processes that
// share the farm's crawl, each owning an equal part of the shards.
type fixture struct {
	t       *testing.T
	farm    *crawltest.Farm
	nats    *NATSServer
	bin     string
	dir     string
	configs []string // configuration file of each process
	dataDir []string
	workers int
	delay   time.Duration
}

const shardCount = 16

func newFixture(t *testing.T, sites []crawltest.Site, n, workers int, delay time.Duration) *fixture {
	t.Helper()
	natsBin, bin := tools(t)
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
	f := &fixture{t: t, farm: farm, nats: nats, bin: bin, dir: dir, workers: workers, delay: delay}
	for i := range n {
		lo, hi := i*shardCount/n, (i+1)*shardCount/n-1
		cfg := Config{
			DataDir:    filepath.Join(dir, fmt.Sprintf("data%d", i)),
			Seeds:      farm.Seeds(),
			Resolve:    farm.Resolve(),
			Workers:    workers,
			MinDelay:   delay,
			NATS:       nats.URL(),
			Name:       fmt.Sprintf("p%d", i),
			ShardCount: shardCount,
			Shards:     fmt.Sprintf("%d-%d", lo, hi),
		}
		path := filepath.Join(dir, fmt.Sprintf("crawl%d.yaml", i))
		if err := cfg.Write(path); err != nil {
			t.Fatal(err)
		}
		f.configs = append(f.configs, path)
		f.dataDir = append(f.dataDir, cfg.DataDir)
	}
	return f
}

// start starts process i.
func (f *fixture) start(i int) *Process {
	f.t.Helper()
	p, err := StartProcess(fmt.Sprintf("p%d", i), f.bin, "-config", f.configs[i], "-progress", "none")
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() {
		select {
		case <-p.Done():
		default:
			p.Kill()
		}
	})
	return p
}

func (f *fixture) startAll() []*Process {
	procs := make([]*Process, len(f.configs))
	for i := range procs {
		procs[i] = f.start(i)
	}
	return procs
}

// processWait bounds how long a test waits for its processes to end: far more than
// any of these crawls takes, so only a hang reaches it.
const processWait = 2 * time.Minute

// finish waits for every process to exit and checks that each ended with status 0 and
// a complete crawl.
func (f *fixture) finish(procs ...*Process) {
	f.t.Helper()
	if err := WaitAll(processWait, procs...); err != nil {
		f.t.Error(err)
		f.dumpLogs()
	}
	for _, p := range procs {
		if err := p.Err(); err != nil {
			f.t.Errorf("%s: %v\n%s", p.Name, err, p.Output())
		} else if !strings.Contains(p.Output(), "crawl complete") {
			f.t.Errorf("%s: summary does not say complete:\n%s", p.Name, p.Output())
		}
	}
}

// dumpLogs writes the last lines of each process's crawl.log and of the nats-server's
// log to the test's log: what a hang's diagnosis needs, gone with the test's directory.
func (f *fixture) dumpLogs() {
	f.t.Helper()
	for i, dir := range f.dataDir {
		data, err := os.ReadFile(filepath.Join(dir, "crawl.log"))
		if err != nil {
			f.t.Logf("p%d: %v", i, err)
			continue
		}
		f.t.Logf("p%d crawl.log, last lines:\n%s", i, lastLines(string(data), 60))
	}
	f.t.Logf("nats-server log, last lines:\n%s", lastLines(f.nats.Log(), 40))
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// waitRequests waits until the farm has served n requests, failing if one of procs
// exits first.
func (f *fixture) waitRequests(n int, procs ...*Process) {
	f.t.Helper()
	for len(f.farm.Requests()) < n {
		for _, p := range procs {
			select {
			case <-p.Done():
				f.t.Fatalf("%s ended before %d requests (%v); make the farm bigger\n%s", p.Name, n, p.Err(), p.Output())
			default:
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// audit checks the farm's record: complete coverage, robots.txt and politeness kept
// across every process, at most maxDup pages fetched twice.
func (f *fixture) audit(maxDup int) *crawltest.Report {
	f.t.Helper()
	r := crawltest.Audit(f.farm, crawltest.AuditOptions{
		Agent: "politecrawl", MinDelay: f.delay, Tolerance: time.Millisecond,
		MaxDuplicates: maxDup, MinCoverage: 1,
	})
	if err := r.Err(); err != nil {
		f.t.Errorf("audit: %v", err)
	}
	return r
}

// hostsByProcess checks that every host's pages were fetched by one process only (its
// shard's owner) and that every process fetched some, and returns how many hosts each
// fetched.
func (f *fixture) hostsByProcess() []int {
	f.t.Helper()
	owner := map[string]int{}
	counts := make([]int, len(f.dataDir))
	for i, dir := range f.dataDir {
		for _, u := range pageURLs(f.t, filepath.Join(dir, "pages.jsonl")) {
			pu, err := url.Parse(u)
			if err != nil {
				f.t.Fatalf("pages.jsonl of p%d: %v", i, err)
			}
			if o, ok := owner[pu.Host]; ok && o != i {
				f.t.Errorf("host %s fetched by p%d and p%d", pu.Host, o, i)
				continue
			}
			if _, ok := owner[pu.Host]; !ok {
				owner[pu.Host] = i
				counts[i]++
			}
		}
	}
	for i, n := range counts {
		if n == 0 {
			f.t.Errorf("p%d fetched no host", i)
		}
	}
	return counts
}

// pageURLs returns the url of every line of a pages.jsonl file.
func pageURLs(t *testing.T, path string) []string {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var urls []string
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		urls = append(urls, line.URL)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return urls
}

// farmSites is the farm of these tests: 30 hosts of 20 pages, a third of the random
// links to other hosts (handed from process to process), some hosts with a Crawl-delay
// and some with a sitemap.
func farmSites() []crawltest.Site {
	return crawltest.Generate(crawltest.GenerateOptions{
		Hosts: 30, PagesPerHost: 20, LinksPerPage: 6, Seed: 17, CrossHostLinks: 0.3,
		CrawlDelayEvery: 5, CrawlDelay: 40 * time.Millisecond, SitemapEvery: 3,
	})
}

func totalPages(sites []crawltest.Site) int {
	n := 0
	for _, s := range sites {
		n += len(s.Pages)
	}
	return n
}

// TestThreeProcesses: three processes crawl the farm together: every page fetched
// once, by the owner of its host's shard only, robots.txt obeyed and every host paced
// as one process would.
func TestThreeProcesses(t *testing.T) {
	const workers = 4
	f := newFixture(t, farmSites(), 3, workers, 20*time.Millisecond)
	f.finish(f.startAll()...)
	r := f.audit(0)
	hosts := f.hostsByProcess()
	t.Logf("%d requests, %d duplicates, hosts per process %v, smallest gap ratio %.2f",
		r.Requests, r.Duplicates, hosts, r.SmallestGapRatio)
}

// TestProcessKilled: one of three processes is killed with SIGKILL mid-crawl and
// started again: nothing is lost (coverage 1), and no more pages are fetched twice
// than the killed process had workers.
func TestProcessKilled(t *testing.T) {
	const workers = 4
	sites := farmSites()
	f := newFixture(t, sites, 3, workers, 20*time.Millisecond)
	procs := f.startAll()
	f.waitRequests(totalPages(sites)/3, procs...)
	procs[1].Kill()
	atKill := len(f.farm.Requests())
	procs[1] = f.start(1)
	f.finish(procs...)
	r := f.audit(workers)
	f.hostsByProcess()
	t.Logf("p1 killed after %d requests; %d requests, %d duplicates", atKill, r.Requests, r.Duplicates)
}

// TestNATSRestarted: the NATS server is killed mid-crawl and started again on its
// files: the processes wait for it, nothing handed off is lost, and the crawl ends.
func TestNATSRestarted(t *testing.T) {
	const workers = 4
	sites := farmSites()
	f := newFixture(t, sites, 3, workers, 20*time.Millisecond)
	procs := f.startAll()
	f.waitRequests(totalPages(sites)/3, procs...)
	if err := f.nats.Kill(); err != nil {
		t.Fatal(err)
	}
	atKill := len(f.farm.Requests())
	if err := f.nats.Restart(); err != nil {
		t.Fatal(err)
	}
	f.finish(procs...)
	r := f.audit(0)
	f.hostsByProcess()
	t.Logf("nats-server killed after %d requests; %d requests, %d duplicates", atKill, r.Requests, r.Duplicates)
	if strings.Contains(f.nats.Log(), "deleted message") {
		// nats-server 2.9 can come back from SIGKILL with a removed batch pending; the
		// processes must end all the same (cluster's waiting).
		t.Log("the restarted server kept a removed batch pending (\"deleted message\"); the crawl ended all the same")
	}
	for i, dir := range f.dataDir {
		// ... or with a batch its stream holds and its consumer does not deliver, which
		// the owner takes from the stream (cluster's leftovers); coverage is checked above.
		data, _ := os.ReadFile(filepath.Join(dir, "crawl.log"))
		if k := strings.Count(string(data), "taking them in from the stream"); k > 0 {
			t.Logf("p%d took batches its consumer did not deliver from the stream %d times", i, k)
		}
	}
}
