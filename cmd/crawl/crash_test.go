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
	var resolve strings.Builder
	for k, v := range farm.Resolve() {
		fmt.Fprintf(&resolve, "    %q: %q\n", k, v)
	}
	config := fmt.Sprintf("data_dir: %q\nworkers: %d\nseeds: %s\npoliteness:\n  min_delay: %s\n"+
		"network:\n  allow_private: true\n  resolve:\n%s", filepath.Join(dir, "data"), workers,
		mustJSON(farm.Seeds()), delay, resolve.String())
	configPath := filepath.Join(dir, "crawl.yaml")
	if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-config", configPath, "-progress", "none"}

	first := crawlProcess(t, args...)
	var out1 strings.Builder
	first.Stdout, first.Stderr = &out1, &out1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- first.Wait() }()
	// Kill once the farm has answered a good part of the crawl (no clock involved).
	total := 0
	for _, s := range sites {
		total += len(s.Pages)
	}
	for len(farm.Requests()) < total/3 {
		select {
		case err := <-exited:
			t.Fatalf("crawl ended before the kill (%v); make the farm bigger\n%s", err, out1.String())
		case <-time.After(2 * time.Millisecond):
		}
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
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

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
