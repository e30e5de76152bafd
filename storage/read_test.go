package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// readAll reads every record of b with ReadRecords: its fields and its whole block.
func readAll(b []byte) ([]Record, [][]byte, error) {
	var recs []Record
	var blocks [][]byte
	err := ReadRecords(bytes.NewReader(b), func(r *Record) error {
		block, err := io.ReadAll(r.Block)
		if err != nil {
			return err
		}
		rec := *r
		rec.Block = nil
		recs = append(recs, rec)
		blocks = append(blocks, block)
		return nil
	})
	return recs, blocks, err
}

// writeTimed writes two exchanges with metadata records that carry a Timing, and
// returns the WARC file's bytes and the Locations.
func writeTimed(t testing.TB) ([]byte, []Location) {
	t.Helper()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, NoSync: true})
	start := t0.Add(1234567891 * time.Nanosecond) // 01:02:04.234567891
	var locs []Location
	for i, uri := range []string{"http://a.example/", "http://a.example/b"} {
		ex := exchange(uri, []byte(fmt.Sprintf("<p>%d</p>", i)), "")
		ex.Date = start.Add(time.Duration(i) * time.Second)
		ex.Metadata = &Metadata{TargetURI: uri, Timing: &Timing{
			End: ex.Date.Add(250*time.Millisecond + 1), Delay: 1500*time.Millisecond + 1, DelaySource: "crawl-delay"}}
		loc, err := w.WriteExchange(context.Background(), ex)
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := warcFiles(t, dir)
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return b, locs
}

// TestReadRecords reads our own file and checks it against gowarc, record by record;
// then the same records uncompressed, and in one gzip member.
func TestReadRecords(t *testing.T) {
	b, locs := writeTimed(t)
	recs, blocks, err := readAll(b)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := readRecords(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(theirs) || len(recs) != 7 {
		t.Fatalf("ReadRecords read %d records, gowarc %d; want 7", len(recs), len(theirs))
	}
	for i, r := range recs {
		o := theirs[i]
		if r.Offset != o.Offset || !bytes.Equal(blocks[i], o.Content) {
			t.Errorf("record %d: offset %d, block %q;\n\tgowarc: offset %d, block %q", i, r.Offset, blocks[i], o.Offset, o.Content)
		}
		for _, k := range []string{"WARC-Type", "WARC-Record-ID", "WARC-Date", "WARC-Target-URI", "WARC-Concurrent-To", "Content-Length"} {
			if got, want := r.Get(k), o.get(k); got != want {
				t.Errorf("record %d: %s %q, gowarc says %q", i, k, got, want)
			}
		}
	}
	for i, loc := range locs {
		resp := recs[2+3*i]
		if resp.Offset != loc.Offset || resp.Get("WARC-Record-ID") != loc.RecordID {
			t.Errorf("response %d at %d %s, Location says %d %s", i, resp.Offset, resp.Get("WARC-Record-ID"), loc.Offset, loc.RecordID)
		}
	}

	// Uncompressed: the same records, offsets of their version lines.
	var plain bytes.Buffer
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(&plain, zr); err != nil {
		t.Fatal(err)
	}
	precs, pblocks, err := readAll(plain.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(precs) != len(recs) {
		t.Fatalf("uncompressed: %d records, want %d", len(precs), len(recs))
	}
	for i, r := range precs {
		if !bytes.HasPrefix(plain.Bytes()[r.Offset:], []byte("WARC/1.1\r\nWARC-Type: "+r.Get("WARC-Type"))) {
			t.Errorf("uncompressed record %d: offset %d is not its start", i, r.Offset)
		}
		if !bytes.Equal(pblocks[i], blocks[i]) || r.Get("WARC-Record-ID") != recs[i].Get("WARC-Record-ID") {
			t.Errorf("uncompressed record %d differs", i)
		}
	}

	// One gzip member holding every record: all at offset 0.
	var one bytes.Buffer
	zw := gzip.NewWriter(&one)
	zw.Write(plain.Bytes())
	zw.Close()
	orecs, _, err := readAll(one.Bytes())
	if err != nil || len(orecs) != len(recs) || orecs[len(orecs)-1].Offset != 0 {
		t.Errorf("one member: %d records (want %d), err %v", len(orecs), len(recs), err)
	}
}

// TestReadRecordsTorn cuts a file inside its last record: the records before it are
// read, then a *ReadError says where.
func TestReadRecordsTorn(t *testing.T) {
	b, locs := writeTimed(t)
	last := locs[1].Offset + locs[1].Length // the last metadata record starts here
	n := 0
	err := ReadRecords(bytes.NewReader(b[:last+20]), func(*Record) error { n++; return nil })
	var re *ReadError
	if !errors.As(err, &re) || re.Offset != last || re.Records != 6 || n != 6 {
		t.Errorf("ReadRecords of a torn file: %d records, err %v; want 6 and a ReadError at %d", n, err, last)
	}
	stop := errors.New("stop")
	if err := ReadRecords(bytes.NewReader(b), func(*Record) error { return stop }); err != stop {
		t.Errorf("fn's error: got %v, want it as is", err)
	}
	if err := ReadRecords(strings.NewReader("GET / HTTP/1.1\r\n\r\n"), func(*Record) error { return nil }); !errors.Is(err, ErrNotWARC) {
		t.Errorf("not a WARC file: got %v, want ErrNotWARC", err)
	}
}

// TestMetadataTiming checks the dates to the millisecond (truncated) and the Timing
// fields (the end and the delay rounded up).
func TestMetadataTiming(t *testing.T) {
	b, _ := writeTimed(t)
	recs, blocks, err := readAll(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := recs[1].Get("WARC-Date"); got != "2026-11-22T01:02:04.234Z" {
		t.Errorf("request WARC-Date %q, want 2026-11-22T01:02:04.234Z", got)
	}
	for _, r := range recs[1:] {
		if d := r.Get("WARC-Date"); !strings.HasPrefix(d, "2026-11-22T01:02:0") || len(d) != len("2006-01-02T15:04:05.000Z") {
			t.Errorf("%s record: WARC-Date %q", r.Get("WARC-Type"), d)
		}
	}
	if got, want := string(blocks[3]), "response-end: 2026-11-22T01:02:04.485Z\r\ndelay-ms: 1501\r\ndelay-source: crawl-delay\r\n"; got != want {
		t.Errorf("metadata block:\n\tgot  %q\n\twant %q", got, want)
	}
}

// FuzzReadRecords reads any bytes: no panic, offsets that never go back, and on the
// seeds (whole files) the records gowarc reads.
func FuzzReadRecords(f *testing.F) {
	b, _ := writeTimed(f)
	f.Add(b)
	f.Add(b[:len(b)-30])
	f.Add([]byte("WARC/1.1\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"))
	f.Add([]byte("WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 99999999999\r\n\r\nabc"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var last int64 = -1
		n := 0
		err := ReadRecords(bytes.NewReader(b), func(r *Record) error {
			if r.Offset < last || r.Offset < 0 || r.Offset > int64(len(b)) {
				t.Fatalf("record %d at offset %d after %d, in %d bytes", n, r.Offset, last, len(b))
			}
			last = r.Offset
			n++
			_, err := io.Copy(io.Discard, r.Block)
			return err
		})
		var re *ReadError
		if err != nil && !errors.As(err, &re) {
			t.Fatalf("ReadRecords: %v, want nil or a *ReadError", err)
		}
		if re != nil && re.Records != n && re.Records != n-1 { // fn may have seen the torn record
			t.Fatalf("ReadError says %d records, fn saw %d", re.Records, n)
		}
	})
}
