package crawl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/frontier"
)

// seedsTestHosts and seedsTestPages make the seeds file of these tests: every page
// of every host, hosts interleaved, so that each batch of the file holds every host.
const (
	seedsTestHosts = 23
	seedsTestPages = 17
	seedsTestBatch = 16
)

// writeSeedsFile writes a seeds file of seedsTestHosts × seedsTestPages seed URLs (on
// private addresses, which nothing fetches: the tests end each run when its seeds
// are read), with comments, blank and bad lines, and every tenth seed given twice.
// It returns the file's path and the distinct seeds.
func writeSeedsFile(t *testing.T, dir string) (path string, seeds []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("# seeds of TestSeedsFileKillResume\n")
	for p := range seedsTestPages {
		for h := range seedsTestHosts {
			u := fmt.Sprintf("http://10.0.%d.%d/dir%d/page%d.html", p%2, h+1, h%3, p)
			seeds = append(seeds, u)
			fmt.Fprintln(&b, u)
			if len(seeds)%10 == 0 {
				fmt.Fprintln(&b, u)
			}
			if len(seeds)%37 == 0 {
				fmt.Fprintf(&b, "\nnot a url %d\n", len(seeds))
			}
		}
	}
	path = filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, seeds
}

// seedsJob is a crawl of a seeds file that a child process runs until it is killed.
type seedsJob struct {
	DataDir, SeedsFile, Mode string
	KillAt                   int    // the batch after which the child stops, to be killed
	Stage                    string // "added": after the frontier's Add; "committed": after seeds.db's commit
	InMemory                 int    // seedKeysInMemory
}

func (j *seedsJob) config() config.Config {
	cfg := config.Default()
	cfg.DataDir = j.DataDir
	cfg.SeedsFile = j.SeedsFile
	cfg.Scope.Mode = j.Mode
	cfg.Workers = 2
	return cfg
}

const seedsChildEnv = "POLITECRAWL_SEEDS_CHILD"

// TestSeedsChild reads the seeds file of $POLITECRAWL_SEEDS_CHILD and, at the batch
// it names, says so on stdout and waits to be killed; without it, it does nothing.
func TestSeedsChild(t *testing.T) {
	arg := os.Getenv(seedsChildEnv)
	if arg == "" {
		t.Skip("the crawl TestSeedsFileKillResume kills")
	}
	var job seedsJob
	if err := json.Unmarshal([]byte(arg), &job); err != nil {
		t.Fatal(err)
	}
	seedBatch, seedKeysInMemory = seedsTestBatch, job.InMemory
	c, err := New(job.config())
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = io.Discard
	batches := 0
	c.seedsStep = func(stage string) {
		if stage == "added" {
			batches++
		}
		if batches == job.KillAt && stage == job.Stage {
			fmt.Println("kill me")
			select {}
		}
	}
	err = c.Run(context.Background())
	t.Fatalf("the crawl ended before the kill: %v", err)
}

// killDuringSeeds runs job in a child process and kills it with SIGKILL where job
// says.
func killDuringSeeds(t *testing.T, job seedsJob) {
	t.Helper()
	arg, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSeedsChild$")
	cmd.Env = append(os.Environ(), seedsChildEnv+"="+string(arg))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuilder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "kill me" {
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child: %v, want killed\n%s", err, stderr.String())
	}
}

// readSeedsRun runs the crawl of cfg until it has read its seeds, checks its scope
// then (when the scope looks keys up in seeds.db, which Run closes), and returns what
// it read.
func readSeedsRun(t *testing.T, cfg config.Config) SeedsRead {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = io.Discard
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.seedsStep = func(stage string) {
		if stage == "done" {
			checkSeedScope(t, c.scope)
			cancel() // no fetch: the run ends once its seeds are queued
		}
	}
	if err := c.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	return c.SeedsRead()
}

// frontierStats returns the figures of the frontier of dir, its log merged into its
// queues (a kill may leave seeds staged, not yet counted as queued or duplicates).
func frontierStats(t *testing.T, dir string) frontier.Stats {
	t.Helper()
	f, err := frontier.Open(filepath.Join(dir, frontierFile), frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return f.Stats()
}

// missingSeeds adds seeds to the frontier of dir and returns those it did not hold.
func missingSeeds(t *testing.T, dir string, seeds []string) int {
	t.Helper()
	f, err := frontier.Open(filepath.Join(dir, frontierFile), frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries := make([]frontier.Entry, len(seeds))
	for i, s := range seeds {
		entries[i] = frontier.Entry{URL: s}
	}
	n, err := f.Add(context.Background(), entries...)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSeedsFileKillResume kills a crawl with SIGKILL while it reads its seeds file, in
// batches of 16, just after a batch went to the frontier and just after its position
// was recorded, and runs it again: every seed is queued exactly once, the second run
// reads the file from where the first one recorded it stopped (not from its start), a
// third run does not read it at all, and the scope knows every seed's host, also when
// the keys are more than the scope holds in memory and without the seeds file.
func TestSeedsFileKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a crawl process and kills it")
	}
	for _, tc := range []struct {
		stage    string
		inMemory int
	}{{"added", 1 << 17}, {"committed", 1 << 17}, {"added", 5}} {
		t.Run(fmt.Sprintf("%s,%d-in-memory", tc.stage, tc.inMemory), func(t *testing.T) {
			defer func(b, m int) { seedBatch, seedKeysInMemory = b, m }(seedBatch, seedKeysInMemory)
			seedBatch, seedKeysInMemory = seedsTestBatch, tc.inMemory
			dir := t.TempDir()
			path, seeds := writeSeedsFile(t, dir)
			job := seedsJob{DataDir: filepath.Join(dir, "data"), SeedsFile: path, Mode: extract.ModeHost,
				KillAt: 5, Stage: tc.stage, InMemory: tc.inMemory}
			killDuringSeeds(t, job)

			before := int(frontierStats(t, job.DataDir).Queued)
			if want := distinctSeeds(t, path, job.KillAt*seedsTestBatch); before != want {
				t.Fatalf("after the kill: %d URLs queued, want %d", before, want)
			}
			read := readSeedsRun(t, job.config())
			recorded := job.KillAt * seedsTestBatch // the seeds before the position recorded
			if tc.stage == "added" {
				recorded -= seedsTestBatch // the kill came before the last batch's record
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if !read.Resumed || read.Offset != info.Size() || !read.Done || read.Bytes >= info.Size() {
				t.Errorf("resumed run: %+v; want resumed, done, %d bytes read in all and fewer in this run", read, info.Size())
			}
			// The lines given twice are seeds read twice; the frontier counts them once.
			if given := seedsGiven(t, path, read.Offset-read.Bytes); read.Seeds != given {
				t.Errorf("resumed run read %d seeds, want the %d after the position recorded", read.Seeds, given)
			}
			if want := int64(len(seeds) - before); read.Queued != want {
				t.Errorf("resumed run queued %d new seeds, want %d (%d seeds, %d queued before the kill, %d before its position)",
					read.Queued, want, len(seeds), before, recorded)
			}
			// Every seed exactly once: as many queued and accepted as there are seeds,
			// and none missing.
			if st := frontierStats(t, job.DataDir); st.Queued != int64(len(seeds)) || st.Added != int64(len(seeds)) {
				t.Errorf("%d URLs queued, %d accepted; want the %d seeds", st.Queued, st.Added, len(seeds))
			}

			// A third run does not read the file; a run without it keeps its scope.
			read = readSeedsRun(t, job.config())
			if read.Bytes != 0 || read.Seeds != 0 || !read.Done {
				t.Errorf("third run: %+v; want nothing read", read)
			}
			noFile := job.config()
			noFile.SeedsFile = ""
			noFile.Seeds = []string{"http://10.9.9.9/"}
			readSeedsRun(t, noFile)
			if n := missingSeeds(t, job.DataDir, seeds); n != 0 {
				t.Errorf("%d seeds missing from the frontier", n)
			}
		})
	}
}

// distinctSeeds counts the distinct URLs among the first n seeds of the file at path.
func distinctSeeds(t *testing.T, path string, n int) int {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	seeds, _, err := config.ParseSeeds(file)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, s := range seeds[:n] {
		distinct[s] = true
	}
	return len(distinct)
}

// seedsGiven counts the seed URLs of the seeds file at path from byte offset on.
func seedsGiven(t *testing.T, path string, offset int64) int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seeds, _, err := config.ParseSeeds(strings.NewReader(string(data[offset:])))
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(seeds))
}

// checkSeedScope checks that the scope (mode host) of writeSeedsFile's seeds holds
// every host of the file and no other. The scope of TestSeedsFileChanged has one
// host more.
func checkSeedScope(t *testing.T, s *extract.Scope) {
	t.Helper()
	for p := range 2 {
		for h := range seedsTestHosts {
			u := fmt.Sprintf("http://10.0.%d.%d/elsewhere/x.html", p, h+1)
			if r := s.Check(u, 1); r != extract.ReasonNone {
				t.Errorf("Check(%s): %q, want in scope", u, r)
			}
		}
	}
	for _, u := range []string{"http://10.0.0.99/", "http://10.0.2.1/", "https://10.0.0.1:8443/"} {
		if r := s.Check(u, 1); r != extract.ReasonOffHost {
			t.Errorf("Check(%s): %q, want %q", u, r, extract.ReasonOffHost)
		}
	}
}

// TestSeedsFileChanged: a seeds file changed under a resumed crawl is refused with a
// SeedsChangedError, unless lines were only added at its end, which are read; an edit
// that keeps the size is seen too.
func TestSeedsFileChanged(t *testing.T) {
	defer func(b int) { seedBatch = b }(seedBatch)
	seedBatch = seedsTestBatch
	dir := t.TempDir()
	path, seeds := writeSeedsFile(t, dir)
	cfg := (&seedsJob{DataDir: filepath.Join(dir, "data"), SeedsFile: path, Mode: extract.ModeHost}).config()
	if read := readSeedsRun(t, cfg); read.Seeds < int64(len(seeds)) {
		t.Fatalf("first run: %+v, want %d seeds", read, len(seeds))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Lines added at the end: read, and only they.
	more := string(data) + "http://10.0.5.5/added.html\n"
	if err := os.WriteFile(path, []byte(more), 0o644); err != nil {
		t.Fatal(err)
	}
	if read := readSeedsRun(t, cfg); read.Seeds != 1 || read.Queued != 1 || !read.Grown || read.Bytes != int64(len(more)-len(data)) {
		t.Errorf("after lines added: %+v, want one seed read, the file grown", read)
	}
	// A line changed in the middle of the part read, the size kept: refused.
	sameSize := strings.Replace(more, "page7.html", "page7.htmx", 1)
	if len(sameSize) != len(more) || sameSize == more {
		t.Fatal("the edit changed the size")
	}
	if err := os.WriteFile(path, []byte(sameSize), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour) // another modification time, whatever the clock's tick
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if err := runSeeds(t, cfg); !errors.As(err, new(*SeedsChangedError)) {
		t.Fatalf("Run after a same-size edit: %v, want a SeedsChangedError", err)
	}
	// A line changed before the position: refused.
	changed := strings.Replace(more, "page3.html", "page3.htm", 1)
	if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	err = runSeeds(t, cfg)
	var ce *SeedsChangedError
	if !errors.As(err, &ce) || ce.Offset != int64(len(more)) {
		t.Fatalf("Run after the file changed: %v, want a SeedsChangedError at byte %d", err, len(more))
	}
	if st := frontierStats(t, cfg.DataDir); st.Added != int64(len(seeds)+1) {
		t.Errorf("%d URLs accepted after the refusal, want %d", st.Added, len(seeds)+1)
	}
}

// runSeeds runs a crawl of cfg and returns Run's error.
func runSeeds(t *testing.T, cfg config.Config) error {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = io.Discard
	return c.Run(context.Background())
}

// lockedBuilder is a strings.Builder for a child's output.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
