package frontier

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The scale crash test runs only when POLITECRAWL_SCALE=1 (it builds a file of
// POLITECRAWL_SCALE_URLS queued URLs, 10,000,000 by default, about 3.5 GB, in
// minutes):
//
//	POLITECRAWL_SCALE=1 go test -run 'TestScaleCrash$' -timeout 1h -v ./frontier/
const (
	scaleEnv      = "POLITECRAWL_SCALE"
	scaleEnvURLs  = "POLITECRAWL_SCALE_URLS"
	scaleEnvChild = "POLITECRAWL_SCALE_CHILD_DB"
	scaleHosts    = 100_000
)

func scaleURL(host int, n uint64) string {
	return fmt.Sprintf("https://www.site%05d.example/a/%d.html", host, n)
}

// TestScaleCrashChild is the process TestScaleCrash kills: 64 workers lease URLs and
// finish them with 10 new links each (8 on the URL's host), or retry or skip them,
// and report as TestCrashChild does.
func TestScaleCrashChild(t *testing.T) {
	path := os.Getenv(scaleEnvChild)
	if path == "" {
		t.Skip("run by TestScaleCrash")
	}
	run, _ := strconv.ParseUint(os.Getenv(crashEnvRun), 10, 64)
	time.AfterFunc(10*time.Minute, func() { os.Exit(3) })
	var outMu sync.Mutex
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	report := func(lines ...string) {
		outMu.Lock()
		for _, l := range lines {
			w.WriteString(l)
			w.WriteByte('\n')
		}
		w.Flush()
		outMu.Unlock()
	}
	start := time.Now()
	// Runs after the first stage their links, as the crawl does by default
	// (frontier.link_batch), so that kills land in folds too.
	opts := Options{}
	if run > 0 {
		opts.LinkBatch = 100_000
	}
	f, err := Open(path, opts)
	if err != nil {
		report("E " + err.Error())
		os.Exit(2)
	}
	report(fmt.Sprintf("ready %v", time.Since(start)))
	ctx := context.Background()
	var wg sync.WaitGroup
	for wk := range 64 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(run, uint64(wk)))
			id := (run+1)<<44 | uint64(wk)<<36
			for {
				l, err := f.Next(ctx)
				if err != nil {
					report("E " + err.Error())
					os.Exit(2)
				}
				report("L " + l.URL)
				var o Outcome
				switch r := rng.IntN(100); {
				case r < 85:
					host, _ := strconv.Atoi(strings.TrimPrefix(strings.Split(l.Host, ".")[1], "site"))
					for j := range 10 {
						h := host
						if j >= 8 {
							h = rng.IntN(scaleHosts)
						}
						id++
						o.Links = append(o.Links, Entry{URL: scaleURL(h, id), Depth: l.Depth + 1, FoundOn: l.URL})
					}
				case r < 95:
					o.Kind = Retry
				default:
					o.Kind, o.Reason = Skipped, "robots"
				}
				report("D " + l.URL)
				if err := f.Done(ctx, l, o); err != nil {
					report("E " + err.Error())
					os.Exit(2)
				}
				if o.Kind == Retry && l.Attempt < 3 {
					report("R " + l.URL)
				} else {
					report("F " + l.URL)
				}
			}
		})
	}
	wg.Wait()
}

// TestScaleCrash builds a frontier of millions of URLs over 100,000 hosts, kills
// TestScaleCrashChild with SIGKILL three times in the middle of its cycles, and
// checks after each kill that Open is quick, that no URL finished is queued or leased
// again, that every URL leased at the kill is queued again, and, at the end, that the
// whole file checks.
func TestScaleCrash(t *testing.T) {
	if os.Getenv(scaleEnv) != "1" || os.Getenv(scaleEnvChild) != "" {
		t.Skip("set " + scaleEnv + "=1 to run")
	}
	urls := 10_000_000
	if n, err := strconv.Atoi(os.Getenv(scaleEnvURLs)); err == nil && n > 0 {
		urls = n
	}
	path := filepath.Join(t.TempDir(), "frontier.db")
	start := time.Now()
	if err := scaleBuild(path, urls); err != nil {
		t.Fatal(err)
	}
	t.Logf("built %d URLs over %d hosts in %v", urls, scaleHosts, time.Since(start).Round(time.Second))
	rng := rand.New(rand.NewPCG(1, 0))
	finished := map[string]bool{}
	inDeletion := 0
	for run := range 3 {
		cmd, sc := startCrashChild(t, "TestScaleCrashChild", scaleEnvChild+"="+path, crashEnvRun+"="+strconv.Itoa(run))
		var lines []string
		for sc.Scan() {
			if s, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				t.Logf("run %d: Open in the child took %s", run, s)
				break
			}
			lines = append(lines, sc.Text())
		}
		n := 20_000 + rng.IntN(100_000)
		for i := 0; i < n && sc.Scan(); i++ {
			lines = append(lines, sc.Text())
		}
		cmd.Process.Signal(syscall.SIGKILL)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		cmd.Wait()
		deleting := folding(t, path)
		if deleting {
			inDeletion++
		}
		leased, inDoubt, dones := readCrashLines(t, run, lines, nil, finished)
		start := time.Now()
		f, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("run %d: Open after kill: %v", run, err)
		}
		t.Logf("run %d: %d outcomes before the kill, %d leased and %d in Done at the kill (a fold's records being deleted: %v); Open after it took %v, %d leases recovered, %d queue changes in the log",
			run, dones, len(leased), len(inDoubt), deleting, time.Since(start), f.Stats().Recovered, f.pendN)
		queued, err := scaleQueued(f, finished, leased, inDoubt)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		for u := range inDoubt {
			if !queued[u] {
				finished[u] = true
			}
		}
		for u := range finished {
			if queued[u] {
				t.Fatalf("run %d: finished URL %s is queued", run, u)
			}
		}
		for u := range leased {
			if !queued[u] {
				t.Fatalf("run %d: URL %s leased at the kill is not queued", run, u)
			}
		}
		if run == 2 {
			start := time.Now()
			if err := f.Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			t.Logf("Check of the whole file: %v", time.Since(start))
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d of the 3 kills landed while a fold's records were being deleted", inDeletion)
}

// scaleBuild adds urls URLs over scaleHosts hosts, in Adds of 100,000 from two
// goroutines.
func scaleBuild(path string, urls int) error {
	f, err := Open(path, Options{NoSync: true})
	if err != nil {
		return err
	}
	defer f.Close()
	const batch = 100_000
	var next atomic.Int64
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			es := make([]Entry, 0, batch)
			for {
				from := next.Add(batch) - batch
				if from >= int64(urls) {
					errs <- nil
					return
				}
				es = es[:0]
				for i := from; i < min(from+batch, int64(urls)); i++ {
					es = append(es, Entry{URL: scaleURL(int(i%scaleHosts), uint64(i)), Depth: 1})
				}
				if n, err := f.Add(context.Background(), es...); err != nil || n != len(es) {
					errs <- cmp.Or(err, fmt.Errorf("%d of %d added", n, len(es)))
					return
				}
			}
		}()
	}
	err = cmp.Or(<-errs, <-errs)
	return cmp.Or(err, f.Close())
}

// scaleQueued returns which of the URLs in the maps given are queued, as Next sees
// the queues (the Done log applied), reading the queues of their hosts only.
func scaleQueued(f *Frontier, sets ...map[string]bool) (map[string]bool, error) {
	hosts := map[string]bool{}
	for _, set := range sets {
		for u := range set {
			h, err := hostOf(u)
			if err != nil {
				return nil, err
			}
			hosts[h] = true
		}
	}
	queued := map[string]bool{}
	f.mu.Lock()
	defer f.mu.Unlock()
	return queued, f.view(func(tx *bolt.Tx) error {
		q := tx.Bucket(bucketQueue)
		for name := range hosts {
			h := f.hosts[name]
			if h == nil {
				return errors.New("host " + name + " unknown")
			}
			id := h.rec.id
			err := overlay{pend: h.pending()}.each(q, hostPrefix(id), hostEnd(id), func(k, v []byte) error {
				e, _, err := decodeEntry(v)
				if err != nil {
					return err
				}
				queued[e.URL] = true
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}
