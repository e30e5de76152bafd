package storage

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	warc "github.com/internetarchive/gowarc"
)

// t0 is the fixed clock of the tests.
var t0 = time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)

func fixedNow() time.Time { return t0 }

// readRecord is one record as the independent reader (gowarc) sees it.
type readRecord struct {
	File    string
	Header  warc.Header
	Content []byte
	Offset  int64
	Size    int64
}

func (r readRecord) get(k string) string { return r.Header.Get(k) }

// warcFiles lists the WARC files of dir in name order.
func warcFiles(t testing.TB, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

// readWARC reads every record of one WARC file with gowarc.
func readWARC(t testing.TB, path string) []readRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := readRecords(f)
	if err != nil {
		t.Fatalf("gowarc reading %s: %v", filepath.Base(path), err)
	}
	for i := range recs {
		recs[i].File = filepath.Base(path)
	}
	return recs
}

func readRecords(r io.Reader) ([]readRecord, error) {
	rd, err := warc.NewReader(r)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var out []readRecord
	for {
		rec, err := rd.ReadRecord()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if _, err := rec.Content.Seek(0, io.SeekStart); err != nil {
			return out, err
		}
		content, err := io.ReadAll(rec.Content)
		rec.Content.Close()
		if err != nil {
			return out, err
		}
		out = append(out, readRecord{Header: rec.Header, Content: content, Offset: rec.Offset, Size: rec.Size})
	}
}

// readDir reads every record of every WARC file in dir.
func readDir(t testing.TB, dir string) []readRecord {
	t.Helper()
	var all []readRecord
	for _, p := range warcFiles(t, dir) {
		all = append(all, readWARC(t, p)...)
	}
	return all
}

// readAt reads the single record whose gzip member is at [off, off+n) in
// dir/file, the way a replay tool follows an index.
func readAt(t testing.TB, dir, file string, off, n int64) readRecord {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := readRecords(io.NewSectionReader(f, off, n))
	if err != nil || len(recs) != 1 {
		t.Fatalf("record at %s:%d+%d: %d records, err %v", file, off, n, len(recs), err)
	}
	return recs[0]
}

func sha1B32(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

// httpPayload returns the part of an application/http block after its head.
func httpPayload(t testing.TB, block []byte) []byte {
	t.Helper()
	i := bytes.Index(block, []byte("\r\n\r\n"))
	if i < 0 {
		t.Fatalf("no end of HTTP head in block %q", block)
	}
	return block[i+4:]
}

// exchange builds a realistic exchange for uri with body; te sets a
// Transfer-Encoding header instead of Content-Length.
func exchange(uri string, body []byte, te string) *Exchange {
	host := strings.TrimPrefix(strings.TrimPrefix(uri, "http://"), "https://")
	path := "/"
	if i := strings.IndexByte(host, '/'); i >= 0 {
		host, path = host[:i], host[i:]
	}
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: ExampleBot/1.0 (+https://example.org/bot)\r\nAccept-Encoding: gzip\r\n\r\n", path, host)
	length := fmt.Sprintf("Content-Length: %d", len(body))
	if te != "" {
		length = "Transfer-Encoding: " + te
	}
	resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n%s\r\nServer: test\r\n\r\n", length)
	return &Exchange{
		TargetURI:      uri,
		IP:             "127.0.0.1",
		Date:           t0,
		Request:        []byte(req),
		ResponseHeader: []byte(resp),
		Body:           body,
		Kind:           "page",
	}
}

// openTest opens a WARC writer in a new temporary directory.
func openTest(t testing.TB, opts WARCOptions) *WARCWriter {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if opts.Now == nil {
		opts.Now = fixedNow
	}
	if opts.Hostname == "" {
		opts.Hostname = "test-host"
	}
	w, err := OpenWARC(opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
