package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/politecrawl/crawl/crawltest"
)

// childArgsEnv, when set in the environment, makes the test binary run the crawl
// command with these arguments (a JSON list) instead of the tests: the crash test kills
// that process with SIGKILL, which it could not do to itself.
const childArgsEnv = "POLITECRAWL_TEST_COMMAND"

func TestMain(m *testing.M) {
	if args := os.Getenv(childArgsEnv); args != "" {
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			fmt.Fprintln(os.Stderr, "bad", childArgsEnv, err)
			os.Exit(3)
		}
		cmd := &Main{Stdout: os.Stdout, Stderr: os.Stderr}
		os.Exit(cmd.Exit(cmd.Run(context.Background(), list)))
	}
	os.Exit(m.Run())
}

// crawlProcess returns the crawl command, run by the test binary, with args.
func crawlProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	list, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(list))
	return cmd
}

// TestKillAndResume crawls a farm with the crawl command, kills it with SIGKILL in the
// middle, runs the same command again, and audits the whole record: complete coverage,
// every politeness rule kept across the restart, and no more pages fetched twice than
// were in flight at the kill.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the crawl command twice")
	}
	const (
		delay   = 20 * time.Millisecond
		workers = 8
	)
	sites := crawltest.Generate(crawltest.GenerateOptions{
		Hosts: 6, PagesPerHost: 30, LinksPerPage: 5, Seed: 11,
		CrawlDelayEvery: 3, CrawlDelay: 40 * time.Millisecond, SitemapEvery: 2,
	})
	farm, err := crawltest.Start(sites...)
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()

	dir := t.TempDir()
	args := farmCrawlArgs(t, farm, filepath.Join(dir, "data"), farm.Seeds(), workers, delay)
	// Kill once the farm has answered a good part of the crawl.
	killAfterRequests(t, farm, pagesOf(sites)/3, args...)
	atKill := len(farm.Requests())

	second := crawlProcess(t, args...)
	out2, err := second.CombinedOutput()
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, out2)
	}
	if !strings.Contains(string(out2), "complete") {
		t.Errorf("second run's summary does not say complete:\n%s", out2)
	}
	r := crawltest.Audit(farm, crawltest.AuditOptions{
		Agent: "politecrawl", MinDelay: delay, Tolerance: time.Millisecond,
		MaxDuplicates: workers, MinCoverage: 1,
	})
	if err := r.Err(); err != nil {
		t.Errorf("audit: %v", err)
	}
	t.Logf("killed after %d of %d requests; %d duplicates; efficiency %.2f; smallest gap ratio %.2f",
		atKill, r.Requests, r.Duplicates, r.Efficiency(), r.SmallestGapRatio)

	// The WARC files of both runs tell the same story: crawl audit finds nothing either.
	reportPath := filepath.Join(dir, "audit.json")
	var out strings.Builder
	m := &Main{Stdout: &out, Stderr: &out}
	if code := m.Exit(m.Run(context.Background(), []string{"audit", "-json", reportPath, filepath.Join(dir, "data")})); code != 0 {
		t.Errorf("crawl audit: exit %d\n%s", code, out.String())
	}
	var rep struct {
		Violations []any `json:"violations"`
		Undecided  []any `json:"undecided"`
		Exchanges  int   `json:"exchanges"`
	}
	b, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Violations) != 0 || len(rep.Undecided) != 0 || rep.Exchanges == 0 {
		t.Errorf("crawl audit: %d violations, %d undecided in %d exchanges\n%s", len(rep.Violations), len(rep.Undecided), rep.Exchanges, out.String())
	}
	t.Logf("crawl audit: %d exchanges of the farm's %d requests\n%s", rep.Exchanges, r.Requests, out.String())
}

// farmCrawlArgs writes a configuration that crawls seeds of farm into dataDir with
// workers and min_delay delay, and returns the crawl command's arguments for it.
func farmCrawlArgs(t *testing.T, farm *crawltest.Farm, dataDir string, seeds []string, workers int, delay time.Duration) []string {
	t.Helper()
	var resolve strings.Builder
	for k, v := range farm.Resolve() {
		fmt.Fprintf(&resolve, "    %q: %q\n", k, v)
	}
	config := writeFile(t, "crawl.yaml", fmt.Sprintf("data_dir: %q\nworkers: %d\nseeds: %s\npoliteness:\n  min_delay: %s\n"+
		"network:\n  allow_private: true\n  resolve:\n%s", dataDir, workers, mustJSON(seeds), delay, resolve.String()))
	return []string{"-config", config, "-progress", "none"}
}

// killAfterRequests runs the crawl command with args and kills it with SIGKILL once
// farm has answered n requests in all (polling the farm's record, no clock involved).
// The test fails if the crawl ends before.
func killAfterRequests(t *testing.T, farm *crawltest.Farm, n int, args ...string) {
	t.Helper()
	cmd := crawlProcess(t, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for len(farm.Requests()) < n {
		select {
		case err := <-exited:
			t.Fatalf("crawl ended before its kill at %d requests (%v); make the farm bigger\n%s", n, err, out.String())
		case <-time.After(2 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
}

// pagesOf returns the number of pages of sites.
func pagesOf(sites []crawltest.Site) int {
	n := 0
	for _, s := range sites {
		n += len(s.Pages)
	}
	return n
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
