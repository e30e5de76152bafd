package frontier

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// queueURLs returns the URLs in the queue bucket, as stored, with the Done log not
// applied.
func queueURLs(t *testing.T, f *Frontier) []string {
	t.Helper()
	var urls []string
	err := f.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketQueue).ForEach(func(k, v []byte) error {
			e, _, err := decodeEntry(v)
			urls = append(urls, e.URL)
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(urls)
	return urls
}

func reopen(t *testing.T, f *Frontier, path string, opts Options) *Frontier {
	t.Helper()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	opts.NoSync = true
	g, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func hostsOf(f *Frontier) string {
	var s []string
	for h := range f.Hosts() {
		h.Queued += int64(h.Leased)
		h.Leased = 0
		s = append(s, fmt.Sprintf("%+v", h))
	}
	return fmt.Sprint(s)
}

// TestDoneLog follows outcomes through the Done log: Done leaves the queue bucket as
// it was, Next reads the log over it (a finished, skipped or failed URL is never
// handed out again, a retried one comes back with its attempt, a refetched one when
// it is due), an Open replays the log as it finds it, and Flush folds it in.
func TestDoneLog(t *testing.T) {
	c := newClock()
	opts := Options{Now: c.Now}
	f, path := openTest(t, opts)
	all := []string{"http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/4", "http://b.test/1"}
	var es []Entry
	for _, u := range all {
		es = append(es, Entry{URL: u})
	}
	mustAdd(t, f, len(es), es...)

	expect := func(f *Frontier, url string, attempt int) *Lease {
		t.Helper()
		l := lease(t, f)
		if l.URL != url || l.Attempt != attempt {
			t.Fatalf("leased %s attempt %d, want %s attempt %d", l.URL, l.Attempt, url, attempt)
		}
		return l
	}
	done(t, f, expect(f, "http://a.test/1", 1), Outcome{})
	done(t, f, expect(f, "http://b.test/1", 1), Outcome{Kind: Failed, Reason: "dns"})
	done(t, f, expect(f, "http://a.test/2", 1), Outcome{Kind: Retry})
	done(t, f, expect(f, "http://a.test/2", 2), Outcome{Kind: Skipped, Reason: "robots"})
	done(t, f, expect(f, "http://a.test/3", 1), Outcome{Refetch: c.Now().Add(time.Hour)})
	l4 := expect(f, "http://a.test/4", 1) // outstanding at the "crash"

	// Nothing of that is in the queue bucket yet: it is in the log.
	if got := queueURLs(t, f); !slices.Equal(got, all) {
		t.Fatalf("queue bucket before the fold: %q, want %q", got, all)
	}
	if l, _, err := tryNext(f); l != nil || err != nil {
		t.Fatalf("Next with a/4 leased and a/3 due later: %v, %v; want nothing", l, err)
	}
	stats, hosts := f.Stats(), hostsOf(f)

	// An Open replays the log: the same figures, the same leases to come.
	f = reopen(t, f, path, opts)
	got := f.Stats()
	if got.Recovered != 1 {
		t.Fatalf("Recovered %d, want 1 (a/4)", got.Recovered)
	}
	stats.Leased, got.Leased, got.Recovered = 0, 0, 0
	stats.Queued++ // a/4, leased before, so its host was waiting
	stats.HostsReady, stats.HostsWaiting = 1, 0
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", stats) {
		t.Fatalf("Stats after replay:\n\tgot  %+v\n\twant %+v", got, stats)
	}
	if got := hostsOf(f); got != hosts {
		t.Fatalf("Hosts after replay:\n\tgot  %s\n\twant %s", got, hosts)
	}
	if err := f.Check(); err != nil {
		t.Fatalf("Check with the log not folded: %v", err)
	}
	_ = l4
	done(t, f, expect(f, "http://a.test/4", 1), Outcome{})
	if l, wait, err := tryNext(f); l != nil || err != nil || !wait.Equal(c.Now().Add(time.Hour)) {
		t.Fatalf("Next before a/3 is due: %v, wait %v, %v; want nothing until %v", l, wait, err, c.Now().Add(time.Hour))
	}
	c.Advance(time.Hour)
	l3 := expect(f, "http://a.test/3", 1)

	// The fold writes the log into the queue bucket and empties it.
	if err := f.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := queueURLs(t, f), []string{"http://a.test/3"}; !slices.Equal(got, want) {
		t.Fatalf("queue bucket after the fold: %q, want %q", got, want)
	}
	if f.logLen != 0 || f.pendN != 0 || len(f.dirty) != 0 {
		t.Fatalf("after Flush: %d log records, %d changes pending, %d hosts dirty; want none", f.logLen, f.pendN, len(f.dirty))
	}
	done(t, f, l3, Outcome{})
	if _, _, err := tryNext(f); err != ErrDone {
		t.Fatalf("Next at the end: %v, want ErrDone", err)
	}
	s := f.Stats()
	if s.Done != 4 || s.Failed["dns"] != 1 || s.Skipped["robots"] != 1 || s.Queued != 0 {
		t.Fatalf("Stats at the end: %+v", s)
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestDoneLogFoldCut cuts a fold after each of its commits, as a crash would, and
// opens the file again each time: the replayed state is the same at every cut, the
// file checks, and the fold goes on to the end.
func TestDoneLogFoldCut(t *testing.T) {
	defer func(n int64, c int) { foldNodes, foldCheck = n, c }(foldNodes, foldCheck)
	foldNodes, foldCheck = 1, 1
	for _, linkBatch := range []int{0, 1000} {
		t.Run(fmt.Sprintf("LinkBatch=%d", linkBatch), func(t *testing.T) {
			c := newClock()
			opts := Options{Now: c.Now, LinkBatch: linkBatch, MaxInFlightPerHost: 2}
			f, path := openTest(t, opts)
			var es []Entry
			for i := range 40 {
				es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/%d", i%4, i)})
			}
			mustAdd(t, f, len(es), es...)
			finished := map[string]bool{}
			for i := range 30 {
				l := lease(t, f)
				o := Outcome{Links: []Entry{{URL: l.URL + "/x", Depth: 1}}}
				switch i % 5 {
				case 1:
					o.Kind = Retry
				case 2:
					o.Kind, o.Reason = Skipped, "robots"
				case 3:
					o.Refetch = c.Now().Add(time.Minute)
				}
				done(t, f, l, o)
				if o.Kind != Retry && o.Refetch.IsZero() {
					finished[l.URL] = true
				}
			}
			want := hostsOf(f)
			if linkBatch == 0 {
				want = fmt.Sprintf("%+v %s", f.Stats(), want)
			}
			for cut := 0; ; cut++ {
				f = reopen(t, f, path, opts)
				got := hostsOf(f)
				if linkBatch == 0 {
					s := f.Stats()
					s.Recovered = 0
					got = fmt.Sprintf("%+v %s", s, got)
				}
				if linkBatch == 0 && got != want {
					t.Fatalf("cut %d: state\n\tgot  %s\n\twant %s", cut, got, want)
				}
				if err := f.Check(); err != nil {
					t.Fatalf("cut %d: %v", cut, err)
				}
				f.mu.Lock()
				for _, h := range f.hosts {
					for _, l := range h.leaseList() {
						t.Fatalf("cut %d: lease %s outstanding", cut, l.URL)
					}
				}
				left := f.logLen > 0 || f.counters[cStaged] > 0
				f.mu.Unlock()
				if !left {
					if cut < 10 {
						t.Fatalf("the fold took %d commits, want it cut more often", cut)
					}
					break
				}
				if err := f.foldOnce(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			for _, u := range queueURLs(t, f) {
				if finished[u] {
					t.Fatalf("finished URL %s is queued after the fold", u)
				}
			}
			// Nothing finished is handed out again.
			c.Advance(time.Hour)
			for {
				l, _, err := tryNext(f)
				if err != nil || l == nil {
					break
				}
				if finished[l.URL] {
					t.Fatalf("finished URL %s leased again", l.URL)
				}
				done(t, f, l, Outcome{})
			}
		})
	}
}

// TestDoneLogHotHost folds the log once one host has hostPendMax changes pending,
// however far LogBatch is: Next reads over them to find the host's head.
func TestDoneLogHotHost(t *testing.T) {
	f, _ := openTest(t, Options{})
	var es []Entry
	for i := range hostPendMax + 10 {
		es = append(es, Entry{URL: fmt.Sprintf("http://a.test/%d", i)})
	}
	mustAdd(t, f, len(es), es...)
	for range hostPendMax + 5 {
		done(t, f, lease(t, f), Outcome{})
		f.mu.Lock()
		n := len(f.hosts["http://a.test"].pending())
		f.mu.Unlock()
		if n > hostPendMax {
			t.Fatalf("%d changes pending on one host, want at most %d", n, hostPendMax)
		}
	}
	if got := len(queueURLs(t, f)); got >= len(es) {
		t.Fatalf("queue bucket holds %d URLs, want a fold to have taken some out", got)
	}
	// The fold is over: the next commits do not start another one.
	f.mu.Lock()
	hot, fold := f.hot, f.fold
	f.mu.Unlock()
	if hot || fold != nil {
		t.Fatalf("after the fold: hot %v, fold in progress %v; want neither", hot, fold != nil)
	}
}

// TestFormat3 opens a file of format 3, before the Done log: read-only as it is, and
// writable marked format 4 (which older builds refuse), its host records (version 2,
// with no stamp) read either way.
func TestFormat3(t *testing.T) {
	f, path := openTest(t, Options{})
	mustAdd(t, f, 2, Entry{URL: "http://a.test/1"}, Entry{URL: "http://a.test/2"})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	boltUpdate(t, path, func(tx *bolt.Tx) error {
		rec := f.hosts["http://a.test"].rec
		v2 := rec.encode()
		v2[0] = 2
		v2 = v2[:len(v2)-1] // no stamp
		if err := tx.Bucket(bucketHosts).Put([]byte("http://a.test"), v2); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyFormat, format3)
	})
	for _, readOnly := range []bool{true, false} {
		g, err := Open(path, Options{ReadOnly: readOnly})
		if err != nil {
			t.Fatalf("Open(ReadOnly %v) of format 3: %v", readOnly, err)
		}
		if s := g.Stats(); s.Queued != 2 {
			t.Errorf("ReadOnly %v: Queued %d, want 2", readOnly, s.Queued)
		}
		var format []byte
		if err := g.view(func(tx *bolt.Tx) error {
			format = bytes.Clone(tx.Bucket(bucketMeta).Get(keyFormat))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		want := format3
		if !readOnly {
			want = formatValue
			done(t, g, lease(t, g), Outcome{})
		}
		if !bytes.Equal(format, want) {
			t.Errorf("ReadOnly %v: format %q, want %q", readOnly, format, want)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
