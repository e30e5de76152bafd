package frontier

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

func TestEntryEncoding(t *testing.T) {
	tests := []struct {
		in, want Entry
		attempts int
	}{
		{Entry{URL: "http://a.test/"}, Entry{URL: "http://a.test/"}, 0},
		{Entry{URL: "https://a.test/x?y#z", Depth: 3, Priority: -2, FoundOn: "https://a.test/", Kind: 255, Hops: 5},
			Entry{URL: "https://a.test/x?y#z", Depth: 3, Priority: -2, FoundOn: "https://a.test/", Kind: 255, Hops: 5}, 7},
		{Entry{URL: "u", Depth: math.MaxInt, Priority: math.MinInt, Hops: -1},
			Entry{URL: "u", Depth: math.MaxInt32, Priority: math.MinInt32, Hops: -1}, 1},
	}
	for _, tt := range tests {
		got, attempts, err := decodeEntry(encodeEntry(&tt.in, tt.attempts))
		if err != nil || got != tt.want || attempts != tt.attempts {
			t.Errorf("decodeEntry(encodeEntry(%+v, %d)):\n\tgot %+v, %d, %v\n\twant %+v, %d, nil",
				tt.in, tt.attempts, got, attempts, err, tt.want, tt.attempts)
		}
	}
	for _, bad := range [][]byte{nil, {}, {2}, {1}, {1, 0, 0, 0, 0, 0, 5, 'a'}, append(encodeEntry(&Entry{URL: "x"}, 0), 0)} {
		if _, _, err := decodeEntry(bad); err != errCorrupt {
			t.Errorf("decodeEntry(%q): got %v, want errCorrupt", bad, err)
		}
	}
}

func testStaged() []prepared {
	var ps []prepared
	for _, e := range []Entry{
		{URL: "http://a.test/x", Depth: 2, Priority: -1, FoundOn: "http://a.test/"},
		{URL: "https://b.test:8443/y?z", Depth: math.MaxInt32, Priority: math.MinInt32, Kind: 3, Hops: 2},
	} {
		h, _ := hostOf(e.URL)
		ps = append(ps, prepared{e: Entry{Depth: e.Depth, Priority: e.Priority}, host: h,
			fp: fingerprint(h, e.URL), val: encodeEntry(&e, 0), seq: uint64(7 + len(ps))})
	}
	return ps
}

func stagedRecord(ps ...prepared) []byte {
	rec := []byte{stagedVersion}
	for i := range ps {
		rec = appendStaged(rec, &ps[i])
	}
	return rec
}

// samePrepared compares what a staged record keeps of a link.
func samePrepared(a, b prepared) bool {
	return a.host == b.host && a.fp == b.fp && a.e.Depth == b.e.Depth && a.e.Priority == b.e.Priority &&
		a.seq == b.seq && bytes.Equal(a.val, b.val)
}

func TestStagedEncoding(t *testing.T) {
	want := testStaged()
	rec := stagedRecord(want...)
	got, err := decodeStaged(nil, rec)
	if err != nil || !slices.EqualFunc(got, want, samePrepared) {
		t.Fatalf("decodeStaged(stagedRecord(%+v)):\n\tgot %+v, %v", want, got, err)
	}
	// Records staged before sequence numbers (no version byte, no seq) still decode.
	var old []byte
	for _, p := range want {
		old = binary.AppendUvarint(old, uint64(len(p.host)))
		old = append(append(old, p.host...), p.fp[:]...)
		old = binary.AppendVarint(binary.AppendVarint(old, int64(p.e.Priority)), int64(p.e.Depth))
		old = append(binary.AppendUvarint(old, uint64(len(p.val))), p.val...)
	}
	got, err = decodeStaged(nil, old)
	for i := range want {
		want[i].seq = 0
	}
	if err != nil || !slices.EqualFunc(got, want, samePrepared) {
		t.Fatalf("decodeStaged(a record without sequence numbers):\n\tgot %+v, %v\n\twant %+v", got, err, want)
	}
	for _, bad := range [][]byte{{0}, {1, 'h'}, {0, 1, 'h'}, rec[:len(rec)-1], append(bytes.Clone(rec), 3, 'x'), {5, 'a', 'b', 'c', 'd', 'e', 1}} {
		if _, err := decodeStaged(nil, bad); err != errCorrupt {
			t.Errorf("decodeStaged(%q): got %v, want errCorrupt", bad, err)
		}
	}
}

func testLog() ([]logHost, []logOp, []prepared) {
	hosts := []logHost{
		{name: "http://a.test", rec: hostRecord{id: 1, ready: 5, queued: 2, done: 1, stamp: 9}},
		{name: "https://b.test:8443", rec: hostRecord{id: 2, queued: 1, later: 1, laterDue: 7, stamp: 9}},
	}
	ops := []logOp{
		{key: queueKey(1, 0, 0, 1, 3)},
		{key: queueKey(2, 0, 1, 0, 4), val: encodeEntry(&Entry{URL: "https://b.test:8443/r"}, 2)},
		{key: queueKey(2, 7, 1, 0, 8), val: encodeEntry(&Entry{URL: "https://b.test:8443/s", FoundOn: "x"}, 0)},
	}
	return hosts, ops, testStaged()
}

func sameLogOp(a, b logOp) bool { return bytes.Equal(a.key, b.key) && bytes.Equal(a.val, b.val) }

func TestLogEncoding(t *testing.T) {
	hosts, ops, links := testLog()
	rec := encodeLog(hosts, ops, links)
	gotHosts, gotOps, rest, err := decodeLog(rec)
	if err != nil || !slices.Equal(gotHosts, hosts) || !slices.EqualFunc(gotOps, ops, sameLogOp) {
		t.Fatalf("decodeLog(encodeLog(...)):\n\tgot %+v %+v, %v\n\twant %+v %+v", gotHosts, gotOps, err, hosts, ops)
	}
	if got, err := decodeStagedLinks(nil, rest, true); err != nil || !slices.EqualFunc(got, links, samePrepared) {
		t.Fatalf("links of a log record: got %+v, %v; want %+v", got, err, links)
	}
	if got, err := decodeRecord(nil, rec); err != nil || !slices.EqualFunc(got, links, samePrepared) {
		t.Fatalf("decodeRecord of a log record: got %+v, %v; want %+v", got, err, links)
	}
	if got, err := decodeRecord(nil, encodeLog(hosts, ops, nil)); err != nil || len(got) != 0 {
		t.Fatalf("decodeRecord of a log record without links: got %+v, %v", got, err)
	}
	noLinks := encodeLog(hosts, ops, nil)
	for _, bad := range [][]byte{
		{}, {logVersion}, {logVersion, 1}, {logVersion, 0, 1, 1, 2},
		noLinks[:len(noLinks)-1],
		append([]byte{logVersion, 1, 1, 'h', 2}, 9, 9), // host record undecodable
		encodeLog(nil, []logOp{{key: queueKey(1, 0, 0, 0, 1), val: []byte("junk")}}, nil),
	} {
		if _, _, _, err := decodeLog(bad); err != errCorrupt {
			t.Errorf("decodeLog(%q): got %v, want errCorrupt", bad, err)
		}
	}
}

func TestHostOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://a.test/x", "http://a.test"},
		{"HTTPS://A.Test:8443/x", "https://a.test:8443"},
		{"http://[::1]:80/", "http://[::1]:80"},
		{"http://user@a.test/", "http://a.test"},
		{"/relative", ""},
		{"mailto:a@b", ""},
		{"http://[bad", ""},
	}
	for _, tt := range tests {
		got, err := hostOf(tt.in)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("hostOf(%q):\n\tgot %q, %v\n\twant %q", tt.in, got, err, tt.want)
		}
	}
}

// FuzzRecords checks that the record decoders never panic on arbitrary bytes and that
// whatever they accept survives a round trip.
func FuzzRecords(f *testing.F) {
	f.Add(encodeEntry(&Entry{URL: "http://a.test/", Depth: 1, Priority: 2, FoundOn: "http://b.test/", Kind: 1, Hops: 1}, 2))
	f.Add((&hostRecord{id: 7, ready: 1e18, queued: 3, done: 4, failed: 5, skipped: 6, errors: 1}).encode())
	f.Add([]byte{1, 0x80, 0x80, 0x80})
	f.Add([]byte{})
	f.Add(stagedRecord(testStaged()...))
	f.Add((&hostRecord{id: 3, ready: 9, queued: 4, later: 2, laterDue: 7}).encode())
	f.Add([]byte{1, 1, 0, 4, 0, 0, 0, 0}) // a host record of format 2
	f.Add(encodeLog(testLog()))
	f.Fuzz(func(t *testing.T, b []byte) {
		if hosts, ops, rest, err := decodeLog(b); err == nil {
			links, err := decodeStagedLinks(nil, rest, true)
			if err == nil {
				hosts2, ops2, rest2, err := decodeLog(encodeLog(hosts, ops, links))
				links2, err2 := decodeStagedLinks(nil, rest2, true)
				if err != nil || err2 != nil || !slices.Equal(hosts, hosts2) || !slices.EqualFunc(ops, ops2, sameLogOp) || !slices.EqualFunc(links, links2, samePrepared) {
					t.Fatalf("log round trip: %+v %+v %+v → %+v %+v %+v %v %v", hosts, ops, links, hosts2, ops2, links2, err, err2)
				}
			}
		}
		// The fold's index finds the links the decoder finds, where it finds them.
		idx, withSeq, ierr := indexRecord(nil, 0, b)
		ps, derr := decodeRecord(nil, b)
		if (ierr == nil) != (derr == nil) || ierr == nil && len(idx) != len(ps) {
			t.Fatalf("indexRecord: %d links, %v; decodeRecord: %d links, %v", len(idx), ierr, len(ps), derr)
		}
		for i, l := range idx[:min(len(idx), len(ps))] {
			if ierr != nil {
				break
			}
			one, err := decodeStagedLinks(nil, b[l.off:l.off+l.n], withSeq)
			if err != nil || len(one) != 1 || !samePrepared(one[0], ps[i]) || l.fp != ps[i].fp {
				t.Fatalf("link %d at %d+%d: %+v %v, want %+v", i, l.off, l.n, one, err, ps[i])
			}
		}
		if ps, err := decodeStaged(nil, b); err == nil && len(b) > 0 && b[0] == stagedVersion {
			ps2, err := decodeStaged(nil, stagedRecord(ps...))
			if err != nil || !slices.EqualFunc(ps, ps2, samePrepared) {
				t.Fatalf("staged round trip: %+v → %+v %v", ps, ps2, err)
			}
		}
		if e, attempts, err := decodeEntry(b); err == nil {
			e2, attempts2, err := decodeEntry(encodeEntry(&e, attempts))
			if err != nil || e2 != e || attempts2 != attempts {
				t.Fatalf("entry round trip: %+v %d → %+v %d %v", e, attempts, e2, attempts2, err)
			}
		}
		if r, err := decodeHost(b); err == nil {
			r2, err := decodeHost(r.encode())
			if err != nil || r2 != r {
				t.Fatalf("host round trip: %+v → %+v %v", r, r2, err)
			}
		}
	})
}

// FuzzQueueKey checks that queue keys sort as the lease order says: host, then due
// time, then priority descending, then depth ascending, then sequence.
func FuzzQueueKey(f *testing.F) {
	f.Add(uint64(1), int64(0), 0, 0, uint64(1), uint64(1), int64(0), 0, 0, uint64(2))
	f.Add(uint64(1), int64(7), 5, 3, uint64(9), uint64(1), int64(0), -1, 0, uint64(2))
	f.Add(uint64(2), int64(-3), math.MaxInt, -4, uint64(0), uint64(1), int64(math.MaxInt64), math.MinInt32, math.MaxInt32, uint64(math.MaxUint64))
	f.Fuzz(func(t *testing.T, h1 uint64, t1 int64, p1, d1 int, s1 uint64, h2 uint64, t2 int64, p2, d2 int, s2 uint64) {
		k1, k2 := queueKey(h1, t1, p1, d1, s1), queueKey(h2, t2, p2, d2, s2)
		norm := func(d int) int { return max(0, min(d, math.MaxInt32)) }
		want := cmp.Or(
			cmp.Compare(h1, h2),
			cmp.Compare(max(t1, 0), max(t2, 0)),
			cmp.Compare(clamp32(p2), clamp32(p1)),
			cmp.Compare(norm(d1), norm(d2)),
			cmp.Compare(s1, s2))
		if got := bytes.Compare(k1, k2); got != want {
			t.Fatalf("keys (%d,%d,%d,%d,%d) vs (%d,%d,%d,%d,%d): compare %d, want %d", h1, t1, p1, d1, s1, h2, t2, p2, d2, s2, got, want)
		}
		if !bytes.HasPrefix(k1, hostPrefix(h1)) || hostIDOf(k1) != h1 || dueOf(k1) != max(t1, 0) {
			t.Fatalf("key %x does not start with host %d, due %d", k1, h1, t1)
		}
		if later := bytes.Compare(k1, laterPrefix(h1)) >= 0; later != (t1 > 0) {
			t.Fatalf("key %x due %d: at or after laterPrefix %v", k1, t1, later)
		}
	})
}

// FuzzHostOf checks that hostOf never panics and returns a lower-case
// scheme://authority that it maps to itself.
func FuzzHostOf(f *testing.F) {
	for _, s := range []string{"http://a.test/x", "HTTPS://A.Test:8443/x?q", "http://[::1]:80/", "/rel", "http://%zz/", "x://y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := hostOf(s)
		if err != nil {
			return
		}
		h2, err := hostOf(h + "/")
		if err != nil || h2 != h {
			t.Fatalf("hostOf(%q) = %q, but hostOf(%q/) = %q, %v", s, h, h, h2, err)
		}
	})
}
