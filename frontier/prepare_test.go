package frontier

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestPrepareSplit checks that prepare, which splits a large slice over goroutines,
// prepares each entry as one goroutine does, refusals included.
func TestPrepareSplit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	f := &Frontier{opts: Options{MaxDepth: 5}}
	entries := prepareEntries(0)
	got := f.prepare(entries)
	want := make([]prepared, len(entries))
	for i := range entries {
		f.prepareInto(want[i:i+1], entries[i:i+1])
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.e != w.e || g.host != w.host || g.fp != w.fp || !bytes.Equal(g.val, w.val) || g.reject != w.reject || g.seq != w.seq {
			t.Fatalf("prepare: entry %d:\n\tgot %+v\n\twant %+v", i, g, w)
		}
		if w.reject == "" && !bytes.Equal(w.val, encodeEntry(&entries[i], 0)) {
			t.Fatalf("prepare: entry %d: value %q, encodeEntry says %q", i, w.val, encodeEntry(&entries[i], 0))
		}
	}
}

func TestCmpSeen(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	key := func() seenKey {
		var k seenKey
		for i := range k {
			k[i] = byte(r.IntN(3)) // few values, so that many keys share a prefix
		}
		return k
	}
	for range 20000 {
		a, b := key(), key()
		if got, want := cmpSeen(a[:], b[:]), bytes.Compare(a[:], b[:]); got != want {
			t.Fatalf("cmpSeen(%x, %x) = %d, want %d", a, b, got, want)
		}
	}
}

// prepareEntries returns entries enough for prepare to split them over goroutines,
// over 97 hosts, with every kind of field set, a bad URL and an upper-case one every
// 50; with urls > 0 their paths repeat every urls entries (duplicates).
func prepareEntries(urls int) []Entry {
	var entries []Entry
	for i := range 3*prepareSplit + 17 {
		n := i
		if urls > 0 {
			n = i % urls
		}
		e := Entry{URL: fmt.Sprintf("https://h%d.test/p/%d", i%97, n), Depth: i % 7, Priority: i % 3, FoundOn: "https://f.test/", Kind: uint8(i), Hops: i % 2}
		switch i % 50 {
		case 1:
			e.URL = "not a url"
		case 2:
			e.URL = "HTTP://Upper.Test/x"
		}
		entries = append(entries, e)
	}
	return entries
}
