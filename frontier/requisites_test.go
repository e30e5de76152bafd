package frontier

import "testing"

// TestDoneRequisites checks that a Done's Requisites are queued in its transaction
// even when its Links are staged, come out of their host's queue before its other
// URLs by their priority, and are duplicates once seen, and that they survive a
// close and open (kill -9 stands for a close: the commit is what counts).
func TestDoneRequisites(t *testing.T) {
	f, path := openTest(t, Options{LinkBatch: 1000})
	mustAdd(t, f, 2, Entry{URL: "http://a.test/"}, Entry{URL: "http://a.test/next"})
	l := lease(t, f)
	if l.URL != "http://a.test/" {
		t.Fatalf("leased %s first", l.URL)
	}
	done(t, f, l, Outcome{
		Links:      []Entry{{URL: "http://a.test/link", Depth: 1}},
		Requisites: []Entry{{URL: "http://a.test/s.css", Priority: 1000, Kind: 7}, {URL: "http://cdn.test/f.woff2", Priority: 1000, Kind: 9}, {URL: "http://a.test/next", Priority: 1000}},
	})
	if s := f.Stats(); s.Staged != 1 || s.Queued != 3 || s.Duplicates != 1 {
		t.Fatalf("staged %d, queued %d, duplicates %d; want the link staged, 3 queued, 1 duplicate", s.Staged, s.Queued, s.Duplicates)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	g, err := Open(path, Options{LinkBatch: 1000, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	got := map[string]uint8{}                              // URL → kind, of the first lease of each host
	for _, l := range []*Lease{lease(t, g), lease(t, g)} { // one lease per host at a time
		got[l.URL] = l.Kind
	}
	if len(got) != 2 || got["http://a.test/s.css"] != 7 || got["http://cdn.test/f.woff2"] != 9 {
		t.Errorf("first leases %v, want a.test's stylesheet before its next page, and cdn.test's font, with their kinds", got)
	}
}
