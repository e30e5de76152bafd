package frontier

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestRefetch checks Outcome.Refetch: a finished URL goes back to its host's queue due
// at the given time, the host's URLs due at once go first, the URL is not leased before
// its time, and the schedule survives a reopen.
func TestRefetch(t *testing.T) {
	c := newClock()
	t0 := c.Now()
	f, path := openTest(t, Options{Now: c.Now})
	mustAdd(t, f, 1, Entry{URL: "http://a.test/1"})
	l := lease(t, f)
	done(t, f, l, Outcome{Refetch: t0.Add(10 * time.Second), Links: []Entry{{URL: "http://a.test/2"}}})
	if s := f.Stats(); s.Queued != 2 || s.Scheduled != 1 || s.Done != 1 {
		t.Fatalf("Stats after a refetch: Queued %d Scheduled %d Done %d, want 2, 1, 1", s.Queued, s.Scheduled, s.Done)
	}
	if got := lease(t, f).URL; got != "http://a.test/2" {
		t.Fatalf("first lease: got %s, want the new link, due at once", got)
	}
	for _, lf := range f.leasesOf("http://a.test") {
		done(t, f, lf, Outcome{})
	}
	if l, wait, err := tryNext(f); l != nil || err != nil || !wait.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("tryNext before the refetch is due: got %v, wait %v, %v; want wait until %v", l, wait, err, t0.Add(10*time.Second))
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, Options{Now: c.Now, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hs, _ := f.HostStats("http://a.test")
	if hs.Scheduled != 1 || !hs.NextDue.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("HostStats after reopen: Scheduled %d NextDue %v, want 1, %v", hs.Scheduled, hs.NextDue, t0.Add(10*time.Second))
	}
	c.Advance(10 * time.Second)
	// Once due, it goes before URLs due at once of lower priority, after higher ones.
	mustAdd(t, f, 2, Entry{URL: "http://a.test/low", Priority: -1}, Entry{URL: "http://a.test/high", Priority: 1})
	var order []string
	for {
		l, _, err := tryNext(f)
		if l == nil || err != nil {
			break
		}
		order = append(order, l.URL)
		if l.URL == "http://a.test/1" && l.Attempt != 1 {
			t.Errorf("refetched lease: Attempt %d, want 1", l.Attempt)
		}
		done(t, f, l, Outcome{})
	}
	want := []string{"http://a.test/high", "http://a.test/1", "http://a.test/low"}
	if !slices.Equal(order, want) {
		t.Fatalf("lease order: got %v, want %v", order, want)
	}
	if s := f.Stats(); s.Queued != 0 || s.Scheduled != 0 || s.Done != 5 {
		t.Fatalf("Stats at the end: Queued %d Scheduled %d Done %d, want 0, 0, 5", s.Queued, s.Scheduled, s.Done)
	}
}

// leasesOf returns the outstanding leases of host.
func (f *Frontier) leasesOf(host string) []*Lease {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.hosts[host].leaseList())
}

// TestUpgradeFormat2 opens a file written by format 2 (testdata/format2.db: six
// seeds on three hosts, one finished with a new link, one lease outstanding) and
// checks that it is upgraded, a few entries per transaction, without losing or
// reordering anything.
func TestUpgradeFormat2(t *testing.T) {
	defer func(n int) { upgradeChunk = n }(upgradeChunk)
	upgradeChunk = 2
	src, err := os.ReadFile(filepath.Join("testdata", "format2.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "frontier.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	// crawl status reads it as it is.
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open of format 2: %v", err)
	}
	if s := ro.Stats(); s.Queued != 6 || s.Leased != 1 {
		t.Errorf("read-only Stats of format 2: Queued %d Leased %d, want 6, 1", s.Queued, s.Leased)
	}
	ro.Close()

	later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	f, err := Open(path, Options{NoSync: true, MaxInFlightPerHost: 10, Now: func() time.Time { return later }})
	if err != nil {
		t.Fatal(err)
	}
	s := f.Stats()
	if s.Queued != 6 || s.Added != 7 || s.Done != 1 || s.Duplicates != 1 || s.Recovered != 1 || s.Hosts != 3 {
		t.Fatalf("Stats after the upgrade: %+v", s)
	}
	got := map[string][]Entry{}
	for {
		l, _, err := tryNext(f)
		if l == nil || err != nil {
			break
		}
		got[l.Host] = append(got[l.Host], l.Entry)
	}
	want := map[string][]Entry{
		"http://a.test": {
			{URL: "http://a.test/", Priority: 1},
			{URL: "http://a.test/low", Depth: 2},
			{URL: "http://a.test/new", Depth: 2, FoundOn: ""},
		},
		"http://b.test":       {{URL: "http://b.test/", Priority: 1}, {URL: "http://b.test/x", Depth: 1}},
		"https://c.test:8443": {{URL: "https://c.test:8443/", Priority: 1, Hops: 1}},
	}
	for h, es := range want {
		if !slices.Equal(got[h], es) {
			t.Errorf("host %s after the upgrade: got %+v, want %+v", h, got[h], es)
		}
	}
	if data, err := f.LoadRobots("http://a.test"); err != nil || string(data) != "robots" {
		t.Errorf("LoadRobots after the upgrade: %q, %v", data, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get(keyFormat); !bytes.Equal(v, formatValue) {
			t.Errorf("format after the upgrade: %q, want %q", v, formatValue)
		}
		if tx.Bucket(bucketQueue2) != nil {
			t.Errorf("bucket %q still there after the upgrade", bucketQueue2)
		}
		return nil
	})
}
