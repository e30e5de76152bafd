package frontier

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// checkedDB writes a frontier with queued URLs, outstanding leases and staged links,
// and returns its path.
func checkedDB(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "frontier.db")
	ctx := context.Background()
	f, err := Open(path, Options{NoSync: true, LinkBatch: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var es []Entry
	for i := range n {
		es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/page/%d", i%50, i)})
	}
	if _, err := f.Add(ctx, es...); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		l, err := f.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 { // the others stay leased: a crash leaves their records
			if err := f.Done(ctx, l, Outcome{Links: []Entry{{URL: l.URL + "/x"}}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.SaveRobots("http://h1.test", []byte("User-agent: *")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func checkFile(t *testing.T, path string) error {
	t.Helper()
	f, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer f.Close()
	if st := f.Stats(); st.Staged == 0 || st.Leased == 0 {
		t.Fatalf("test file has %d staged links and %d leases, want some of each", st.Staged, st.Leased)
	}
	return f.Check()
}

func TestCheck(t *testing.T) {
	damage := func(fn func(tx *bolt.Tx) error) func(t *testing.T, path string) {
		return func(t *testing.T, path string) { boltUpdate(t, path, fn) }
	}
	first := func(tx *bolt.Tx, bucket []byte) []byte {
		k, _ := tx.Bucket(bucket).Cursor().First()
		return append([]byte(nil), k...)
	}
	for _, tt := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"whole", nil},
		{"queue entry", damage(func(tx *bolt.Tx) error { return tx.Bucket(bucketQueue).Put(first(tx, bucketQueue), []byte("junk")) })},
		// The last: the first ones were finished in the Done log.
		{"queue entry lost", damage(func(tx *bolt.Tx) error {
			k, _ := tx.Bucket(bucketQueue).Cursor().Last()
			return tx.Bucket(bucketQueue).Delete(append([]byte(nil), k...))
		})},
		{"queue entry of no host", damage(func(tx *bolt.Tx) error {
			v := tx.Bucket(bucketQueue).Get(first(tx, bucketQueue))
			return tx.Bucket(bucketQueue).Put(queueKey(1<<40, 0, 0, 0, 1), append([]byte(nil), v...))
		})},
		{"seen key", damage(func(tx *bolt.Tx) error { return tx.Bucket(bucketSeen).Put([]byte("short"), nil) })},
		{"lease", damage(func(tx *bolt.Tx) error { return tx.Bucket(bucketLeases).Put(first(tx, bucketLeases), []byte{0xff}) })},
		{"staged record", damage(func(tx *bolt.Tx) error { return tx.Bucket(bucketStaged).Put(first(tx, bucketStaged), []byte{3, 'a'}) })},
		{"staged record lost", damage(func(tx *bolt.Tx) error { return tx.Bucket(bucketStaged).Delete(first(tx, bucketStaged)) })},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := checkedDB(t, 3000)
			if tt.damage != nil {
				tt.damage(t, path)
			}
			err := checkFile(t, path)
			switch {
			case tt.damage == nil && err != nil:
				t.Fatalf("Check of a whole file: %v", err)
			case tt.damage != nil && !errors.Is(err, ErrCorrupt):
				t.Fatalf("Check: got %v, want ErrCorrupt", err)
			}
			t.Logf("Check: %v", err)
		})
	}
}

// TestCheckDamagedPages overwrites pages of a valid file with garbage, as
// TestDamagedPages does. Whenever a read-only Open and Check both pass, a whole crawl of
// the file (every URL leased and finished) must meet no damage: crawl status, which runs
// Check, then says the truth. Check must also catch damage that a read-only Open alone
// lets through.
func TestCheckDamagedPages(t *testing.T) {
	openedRO, caught, passed := 0, 0, 0
	// Not the meta pages (0 and 1): Open checks those.
	for i, path := range damagedCopies(t, checkedDB(t, 600), 20, rand.New(rand.NewPCG(13, 8)), 2) {
		ro, err := Open(path, Options{ReadOnly: true})
		if err != nil {
			continue
		}
		openedRO++
		err = ro.Check()
		ro.Close()
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("damaged%d: Check: %v, want ErrCorrupt", i, err)
			}
			caught++
			continue
		}
		passed++
		if err := crawlAll(path); err != nil {
			t.Errorf("damaged%d: Check passed, but a crawl of the file failed: %v", i, err)
		}
	}
	t.Logf("of 20 damaged files, %d opened read-only: Check refused %d, passed %d", openedRO, caught, passed)
	if caught == 0 {
		t.Errorf("Check caught none of the %d damaged files a read-only Open accepted", openedRO)
	}
}

// crawlAll opens path for writing and leases and finishes every URL, folding the
// staged links in, as a crawl does.
func crawlAll(path string) (err error) {
	f, err := Open(path, Options{NoSync: true, LinkBatch: 1000})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	ctx := context.Background()
	for {
		l, err := f.Next(ctx)
		if errors.Is(err, ErrDone) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := f.Done(ctx, l, Outcome{}); err != nil {
			return err
		}
	}
}

// TestCheckWhileCrawling runs Check again and again on a Frontier open for writing
// while workers add, lease and finish URLs (staging links, logging outcomes and
// folding): a commit between Check's snapshot of the hosts and the transaction it
// reads must not be reported as damage.
func TestCheckWhileCrawling(t *testing.T) {
	f, _ := openTest(t, Options{LinkBatch: 20, LogBatch: 10, MaxInFlightPerHost: 4})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var es []Entry
	for i := range 200 {
		es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/seed/%d", i%10, i)})
	}
	mustAdd(t, f, len(es), es...)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				l, err := f.Next(ctx)
				if err != nil {
					return
				}
				o := Outcome{Links: []Entry{{URL: fmt.Sprintf("http://h%d.test/w%d/%d", i%10, w, i)}}}
				if err := f.Done(ctx, l, o); err != nil {
					return
				}
			}
		})
	}
	for i := range 300 {
		if err := f.Check(); err != nil {
			t.Fatalf("Check %d while crawling: %v", i, err)
		}
	}
}

// TestCheckAfterFailedCommit: a commit that fails may have reached the file all the
// same, so that the transaction on disk is never the one memory holds. Check then
// returns the error that stopped the Frontier instead of waiting, forever, for a
// snapshot of memory that matches the file.
func TestCheckAfterFailedCommit(t *testing.T) {
	f, err := Open(filepath.Join(t.TempDir(), "frontier.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Add(context.Background(), Entry{URL: "http://a.test/"}); err != nil {
		t.Fatal(err)
	}
	disk := errors.New("write frontier.db: input/output error")
	f.mu.Lock()
	f.err = &opError{op: "commit", err: disk}
	f.txid-- // the failed commit's transaction reached the file
	f.mu.Unlock()
	if err := f.Check(); !errors.Is(err, disk) {
		t.Fatalf("Check of a stopped frontier: %v, want the commit's error", err)
	}
}
