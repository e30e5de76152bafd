package frontier

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

const (
	crashEnvDB  = "FRONTIER_CRASH_DB"
	crashEnvRun = "FRONTIER_CRASH_RUN"
)

// TestCrashChild is the process TestCrash kills. It adds, leases and finishes URLs in a
// loop with 8 workers, which now and then stage entries too, and reports each operation
// on stdout once it has returned: "A url" added or staged, "L url" leased, "D url"
// about to call Done, "F url" removed from the queue (finished, failed, skipped),
// "R url" kept for a retry.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnvDB)
	if path == "" {
		t.Skip("run by TestCrash")
	}
	run, _ := strconv.Atoi(os.Getenv(crashEnvRun))
	smallSeenSet(t)
	stageChunk = 8
	// Never outlive a parent that failed to kill us.
	time.AfterFunc(20*time.Second, func() { os.Exit(3) })
	var outMu sync.Mutex
	report := func(lines ...string) {
		var b bytes.Buffer
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		outMu.Lock()
		os.Stdout.Write(b.Bytes())
		outMu.Unlock()
	}
	// Odd runs stage links (LinkBatch 50 to 150) and fold them a few at a time, up to
	// the larger of LinkBatch and 60 or 120 links per fold, sorted 60 or 120 at a
	// time (in temporary files beyond that); even runs queue them at once.
	// Every run folds the Done log every 10 to 30 queue changes.
	opts := Options{MaxInFlightPerHost: 1 + run%2, LogBatch: 10 + 10*(run%3)}
	if run%2 == 1 {
		opts.LinkBatch = 50 * (1 + run%3)
		opts.FoldLinks = 60 * (1 + run%4/2)
	}
	if run%4 != 0 {
		// Folds span many commits, so that kills land in the middle of them and of
		// the deletion of their records.
		foldNodes, deleteNodes, foldCheck = 4, 2, 8
	}
	f, err := Open(path, opts)
	if err != nil {
		report("E " + err.Error())
		os.Exit(2)
	}
	ctx := context.Background()
	var seedMu sync.Mutex
	seedBatch := 0
	addSeeds := func() {
		seedMu.Lock()
		defer seedMu.Unlock()
		seedBatch++
		var es []Entry
		var lines []string
		for i := range 40 {
			u := fmt.Sprintf("http://s%d.test/r%d-b%d-%d", i%20, run, seedBatch, i)
			es = append(es, Entry{URL: u, Priority: 1})
			lines = append(lines, "A "+u)
		}
		if _, err := f.Add(ctx, es...); err != nil {
			report("E " + err.Error())
			os.Exit(2)
		}
		report(lines...)
	}
	addSeeds()
	report("ready")
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(run), uint64(w)))
			for i := 0; ; i++ {
				l, err := f.Next(ctx)
				if errors.Is(err, ErrDone) {
					addSeeds()
					continue
				}
				if err != nil {
					report("E " + err.Error())
					os.Exit(2)
				}
				report("L " + l.URL)
				if rng.IntN(10) == 0 {
					// Entries staged over several commits, whatever LinkBatch.
					var es []Entry
					var lines []string
					for j := range 20 {
						u := fmt.Sprintf("http://t%d.test/r%d-w%d-%d-%d", rng.IntN(30), run, w, i, j)
						es = append(es, Entry{URL: u, Depth: j % 3, Priority: j % 2})
						lines = append(lines, "A "+u)
					}
					if _, err := f.Stage(ctx, es...); err != nil {
						report("E " + err.Error())
						os.Exit(2)
					}
					report(lines...)
				}
				var o Outcome
				var lines []string
				switch r := rng.IntN(100); {
				case r < 70:
					for j := range 3 {
						u := fmt.Sprintf("http://h%d.test/r%d-w%d-%d-%d", rng.IntN(30), run, w, i, j)
						o.Links = append(o.Links, Entry{URL: u, Depth: l.Depth + 1, FoundOn: l.URL})
						lines = append(lines, "A "+u)
					}
				case r < 85:
					o.Kind = Retry
				case r < 95:
					o.Kind, o.Reason = Skipped, "robots"
				default:
					o.Kind = Failed
				}
				report("D " + l.URL)
				if err := f.Done(ctx, l, o); err != nil {
					report("E " + err.Error())
					os.Exit(2)
				}
				if o.Kind == Retry && l.Attempt < 3 {
					lines = append(lines, "R "+l.URL)
				} else {
					lines = append(lines, "F "+l.URL)
				}
				report(lines...)
			}
		})
	}
	wg.Wait()
}

// TestCrash kills TestCrashChild with SIGKILL at random moments 20 times and checks,
// after each kill, that no acknowledged URL is lost, no finished URL is queued or
// handed out again, every URL leased at the crash is queued again, and the per-host
// counts agree with the queue.
func TestCrash(t *testing.T) {
	if os.Getenv(crashEnvDB) != "" {
		t.Skip("in the child")
	}
	path := filepath.Join(t.TempDir(), "frontier.db")
	smallSeenSet(t) // as the child writes them
	// The kill points are random; FRONTIER_CRASH_SEED replays a seed.
	seed := uint64(1)
	if s, err := strconv.ParseUint(os.Getenv("FRONTIER_CRASH_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	added := map[string]bool{}
	finished := map[string]bool{}
	inDeletion := 0
	for run := range 20 {
		cmd, sc := startCrashChild(t, "TestCrashChild", crashEnvDB+"="+path, crashEnvRun+"="+strconv.Itoa(run))
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if sc.Text() == "ready" {
				break
			}
		}
		// Kill after a random number of reported operations (or at once).
		kills := 0
		if n := rng.IntN(600); n > 0 {
			for sc.Scan() {
				lines = append(lines, sc.Text())
				if kills++; kills >= n {
					break
				}
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		cmd.Wait()

		leased, inDoubt, _ := readCrashLines(t, run, lines, added, finished)
		if folding(t, path) {
			inDeletion++
		}
		checkAfterCrash(t, run, path, added, finished, leased, inDoubt)
	}
	t.Logf("%d URLs added, %d finished over 20 kills, %d of them while a fold's records were being deleted",
		len(added), len(finished), inDeletion)
}

// folding reports whether the file at path has a fold's records marked folded and
// not all deleted.
func folding(t *testing.T, path string) bool {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	marked := false
	db.View(func(tx *bolt.Tx) error {
		marked = tx.Bucket(bucketMeta).Get(keyFolded) != nil
		return nil
	})
	return marked
}

// startCrashChild runs the test named test in a child process with env added to
// its environment, and returns it with a scanner over its standard output.
func startCrashChild(t *testing.T, test string, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(stdout)
}

// readCrashLines reads the lines a killed child reported: it fails on a child
// error or a finished URL leased again, records the URLs added in added (nil: not
// kept) and those finished in finished, and returns the URLs leased at the kill
// (Done not called: must be requeued), those in doubt (Done called, not returned:
// either way) and how many URLs finished in this run.
func readCrashLines(t *testing.T, run int, lines []string, added, finished map[string]bool) (leased, inDoubt map[string]bool, dones int) {
	t.Helper()
	leased, inDoubt = map[string]bool{}, map[string]bool{}
	for _, line := range lines {
		op, u, _ := strings.Cut(line, " ")
		switch op {
		case "E":
			t.Fatalf("run %d: child error: %s", run, u)
		case "A":
			if added != nil {
				added[u] = true
			}
		case "L":
			if finished[u] {
				t.Fatalf("run %d: finished URL %s leased again", run, u)
			}
			leased[u] = true
		case "D":
			delete(leased, u)
			inDoubt[u] = true
		case "R":
			delete(inDoubt, u)
		case "F":
			delete(inDoubt, u)
			finished[u] = true
			dones++
		}
	}
	return leased, inDoubt, dones
}

func checkAfterCrash(t *testing.T, run int, path string, added, finished, leased, inDoubt map[string]bool) {
	t.Helper()
	f, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("run %d: Open after kill: %v", run, err)
	}
	defer f.Close()
	if err := f.Check(); err != nil {
		t.Fatalf("run %d: Check after kill: %v", run, err)
	}
	// Links staged by a committed Done are durable: folded in, they are queued.
	if err := f.Flush(context.Background()); err != nil {
		t.Fatalf("run %d: Flush after kill: %v", run, err)
	}
	queued := map[string]bool{}
	perHost := map[uint64]int64{}
	err = f.db.View(func(tx *bolt.Tx) error {
		if n := tx.Bucket(bucketLeases).Stats().KeyN; n != 0 {
			return fmt.Errorf("%d leases left after Open", n)
		}
		ss := newSeenTx(tx, f.seen)
		return tx.Bucket(bucketQueue).ForEach(func(k, v []byte) error {
			e, _, err := decodeEntry(v)
			if err != nil {
				return err
			}
			queued[e.URL] = true
			perHost[hostIDOf(k)]++
			if fp := fingerprint(hostOfTest(t, e.URL), e.URL); !mustContain(t, ss, &fp) {
				return fmt.Errorf("queued URL %s not in the seen set", e.URL)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatalf("run %d: %v", run, err)
	}
	// Every URL ever added is in the seen set, in whichever level or run.
	f.db.View(func(tx *bolt.Tx) error {
		ss := newSeenTx(tx, f.seen)
		for u := range added {
			if fp := fingerprint(hostOfTest(t, u), u); !mustContain(t, ss, &fp) {
				t.Fatalf("run %d: added URL %s not in the seen set", run, u)
			}
		}
		return nil
	})
	if runs, _ := f.seen.figures(); run == 19 {
		t.Logf("seen set after the last kill: %d runs, %d keys in level 0, merge under way %v, %d runs to delete",
			runs, f.seen.l0, f.seen.merge != nil, len(f.seen.dead))
	}
	for u := range inDoubt {
		if !queued[u] {
			finished[u] = true // its Done committed
		}
	}
	for u := range added {
		if finished[u] && queued[u] {
			t.Fatalf("run %d: finished URL %s is queued", run, u)
		}
		if !finished[u] && !queued[u] {
			t.Fatalf("run %d: added URL %s lost", run, u)
		}
	}
	for u := range leased {
		if !queued[u] {
			t.Fatalf("run %d: URL %s leased at the crash not requeued", run, u)
		}
	}
	var total int64
	for h := range f.Hosts() {
		id := f.hosts[h.Host].rec.id
		if h.Queued != perHost[id] {
			t.Fatalf("run %d: host %s counts %d queued, queue holds %d", run, h.Host, h.Queued, perHost[id])
		}
		total += h.Queued
	}
	if s := f.Stats(); s.Queued != total || s.Queued != int64(len(queued)) {
		t.Fatalf("run %d: Stats.Queued %d, hosts %d, queue %d", run, s.Queued, total, len(queued))
	}
}

func hostOfTest(t *testing.T, rawURL string) string {
	t.Helper()
	h, err := hostOf(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
