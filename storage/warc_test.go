package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
)

var (
	recordIDRE = regexp.MustCompile(`^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>$`)
	warcDateRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
)

// checkRecordBasics checks what every record must carry.
func checkRecordBasics(t *testing.T, r readRecord) {
	t.Helper()
	if r.get("WARC-Type") == "" {
		t.Errorf("%s@%d: no WARC-Type", r.File, r.Offset)
	}
	if id := r.get("WARC-Record-ID"); !recordIDRE.MatchString(id) {
		t.Errorf("%s@%d: WARC-Record-ID %q is not a v4 UUID URN", r.File, r.Offset, id)
	}
	if d := r.get("WARC-Date"); !warcDateRE.MatchString(d) {
		t.Errorf("%s@%d: WARC-Date %q", r.File, r.Offset, d)
	}
	if got, want := r.get("WARC-Block-Digest"), sha1B32(r.Content); got != want {
		t.Errorf("%s@%d: WARC-Block-Digest:\n\tgot  %s\n\twant %s", r.File, r.Offset, got, want)
	}
	if got, want := r.get("Content-Length"), fmt.Sprint(len(r.Content)); got != want {
		t.Errorf("%s@%d: Content-Length %s, block has %s bytes", r.File, r.Offset, got, want)
	}
}

func TestWriteExchangeReadBack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, Operator: "Test Operator <ops@example.org>", Config: map[string]string{"user-agent": "ExampleBot/1.0", "max depth": "3"}})

	html := []byte("<!doctype html><title>Hello</title><a href=/a>a</a>\n")
	robots := []byte("User-agent: *\nDisallow: /private\n")
	cases := []struct {
		name    string
		ex      *Exchange
		revisit bool
	}{
		{"chunked page", exchange("http://a.example/", html, "chunked"), false},
		{"same payload elsewhere", exchange("http://b.example/copy", html, ""), true},
		{"truncated", func() *Exchange {
			ex := exchange("http://a.example/big", bytes.Repeat([]byte("x"), 5000), "")
			ex.Truncated = true
			return ex
		}(), false},
		{"truncated again is not a revisit", func() *Exchange {
			ex := exchange("http://a.example/big2", bytes.Repeat([]byte("x"), 5000), "")
			ex.Truncated = true
			return ex
		}(), false},
		{"robots", func() *Exchange {
			ex := exchange("http://a.example/robots.txt", robots, "gzip, chunked")
			ex.Kind = "robots"
			return ex
		}(), false},
		{"empty body", exchange("http://a.example/empty", nil, ""), false},
		{"empty body again", exchange("http://b.example/empty", nil, ""), false},
		{"no IP", func() *Exchange {
			ex := exchange("http://c.example/", []byte("other"), "")
			ex.IP = ""
			return ex
		}(), false},
	}
	locs := make([]Location, len(cases))
	for i, c := range cases {
		loc, err := w.WriteExchange(ctx, c.ex)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if loc.Revisit != c.revisit {
			t.Errorf("%s: Revisit = %v, want %v", c.name, loc.Revisit, c.revisit)
		}
		if got, want := loc.PayloadDigest, sha1B32(c.ex.Body); got != want {
			t.Errorf("%s: PayloadDigest %s, want %s", c.name, got, want)
		}
		locs[i] = loc
	}
	meta := &Metadata{
		TargetURI:    "http://a.example/",
		ConcurrentTo: locs[0].RecordID,
		Date:         t0,
		Outlinks:     []string{"http://a.example/a", "http://a.example/b\r\nInjected: yes"},
		Robots: &RobotsDecision{URL: "http://a.example/robots.txt", FetchedAt: t0, Status: 200,
			Digest: locs[4].PayloadDigest, Rule: "disallow: /private", Allowed: true},
	}
	if err := w.WriteMetadata(ctx, meta); err != nil {
		t.Fatal(err)
	}
	st := w.Stats()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if want := (Stats{Files: 1, Requests: 8, Responses: 7, Revisits: 1, Metadata: 1, Robots: 1}); st.Files != want.Files ||
		st.Requests != want.Requests || st.Responses != want.Responses || st.Revisits != want.Revisits ||
		st.Metadata != want.Metadata || st.Robots != want.Robots {
		t.Errorf("Stats() = %+v, want counts %+v", st, want)
	}

	files := warcFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("%d WARC files, want 1", len(files))
	}
	recs := readWARC(t, files[0])
	if got, want := len(recs), 1+2*len(cases)+1; got != want {
		t.Fatalf("read %d records, want %d", got, want)
	}
	for _, r := range recs {
		checkRecordBasics(t, r)
	}

	info := recs[0]
	if info.get("WARC-Type") != "warcinfo" || info.get("Content-Type") != "application/warc-fields" {
		t.Errorf("first record: type %q, content type %q", info.get("WARC-Type"), info.get("Content-Type"))
	}
	if info.get("WARC-Filename") != info.File {
		t.Errorf("WARC-Filename %q, file is %q", info.get("WARC-Filename"), info.File)
	}
	for _, want := range []string{"software: politecrawl\r\n", "format: WARC File Format 1.1\r\n", "hostname: test-host\r\n",
		"operator: Test Operator <ops@example.org>\r\n", "robots: obey\r\n", "max-depth: 3\r\n", "user-agent: ExampleBot/1.0\r\n"} {
		if !bytes.Contains(info.Content, []byte(want)) {
			t.Errorf("warcinfo block lacks %q:\n%s", want, info.Content)
		}
	}

	for i, c := range cases {
		req, resp := recs[1+2*i], recs[2+2*i]
		loc := locs[i]
		if req.get("WARC-Type") != "request" || req.get("Content-Type") != "application/http;msgtype=request" {
			t.Errorf("%s: record %d: type %q, content type %q", c.name, 1+2*i, req.get("WARC-Type"), req.get("Content-Type"))
		}
		if !bytes.Equal(req.Content, c.ex.Request) {
			t.Errorf("%s: request block:\n\tgot  %q\n\twant %q", c.name, req.Content, c.ex.Request)
		}
		if req.get("WARC-Concurrent-To") != resp.get("WARC-Record-ID") {
			t.Errorf("%s: request WARC-Concurrent-To %q, response is %q", c.name, req.get("WARC-Concurrent-To"), resp.get("WARC-Record-ID"))
		}
		for _, r := range []readRecord{req, resp} {
			if r.get("WARC-Target-URI") != c.ex.TargetURI {
				t.Errorf("%s: WARC-Target-URI %q", c.name, r.get("WARC-Target-URI"))
			}
			if r.get("WARC-IP-Address") != c.ex.IP {
				t.Errorf("%s: WARC-IP-Address %q, want %q", c.name, r.get("WARC-IP-Address"), c.ex.IP)
			}
			if r.get("WARC-Date") != "2026-11-22T01:02:03.000Z" {
				t.Errorf("%s: WARC-Date %q", c.name, r.get("WARC-Date"))
			}
		}
		wantType := "response"
		if c.revisit {
			wantType = "revisit"
		}
		if resp.get("WARC-Type") != wantType || resp.get("Content-Type") != "application/http;msgtype=response" {
			t.Errorf("%s: type %q, content type %q", c.name, resp.get("WARC-Type"), resp.get("Content-Type"))
		}
		if resp.get("WARC-Record-ID") != loc.RecordID {
			t.Errorf("%s: WARC-Record-ID %q, Location says %q", c.name, resp.get("WARC-Record-ID"), loc.RecordID)
		}
		if resp.get("WARC-Payload-Digest") != sha1B32(c.ex.Body) {
			t.Errorf("%s: WARC-Payload-Digest %q, want %q", c.name, resp.get("WARC-Payload-Digest"), sha1B32(c.ex.Body))
		}
		payload := httpPayload(t, resp.Content)
		if c.revisit {
			if len(payload) != 0 {
				t.Errorf("%s: revisit carries a payload of %d bytes", c.name, len(payload))
			}
		} else if !bytes.Equal(payload, c.ex.Body) {
			t.Errorf("%s: payload differs from body", c.name)
		} else if got := sha1B32(payload); got != resp.get("WARC-Payload-Digest") {
			t.Errorf("%s: payload digest of the stored payload is %s", c.name, got)
		}
		if got, want := resp.get("WARC-Truncated"), map[bool]string{true: "length"}[c.ex.Truncated]; got != want {
			t.Errorf("%s: WARC-Truncated %q, want %q", c.name, got, want)
		}
		// The location reaches exactly this record, as gowarc counts it too.
		if resp.Offset != loc.Offset || resp.Size != loc.Length || resp.File != loc.File {
			t.Errorf("%s: gowarc sees %s@%d+%d, Location says %s@%d+%d", c.name, resp.File, resp.Offset, resp.Size, loc.File, loc.Offset, loc.Length)
		}
		at := readAt(t, dir, loc.File, loc.Offset, loc.Length)
		if at.get("WARC-Record-ID") != loc.RecordID {
			t.Errorf("%s: record at Location is %q, want %q", c.name, at.get("WARC-Record-ID"), loc.RecordID)
		}
	}

	// Chunked coding: dropped from the stored head, other codings kept.
	chunked := recs[2]
	if bytes.Contains(bytes.ToLower(chunked.Content), []byte("transfer-encoding")) {
		t.Errorf("chunked response still names Transfer-Encoding:\n%s", chunked.Content)
	}
	if chunked.get("WARC-Politecrawl-Dechunked") != "yes" {
		t.Errorf("chunked response: WARC-Politecrawl-Dechunked %q", chunked.get("WARC-Politecrawl-Dechunked"))
	}
	robotsResp := recs[2+2*4]
	if !bytes.Contains(robotsResp.Content, []byte("\r\nTransfer-Encoding: gzip\r\n")) {
		t.Errorf("robots response lost its gzip transfer coding:\n%s", robotsResp.Content)
	}
	if recs[4].get("WARC-Politecrawl-Dechunked") != "" {
		t.Errorf("unchunked response marked dechunked")
	}

	// The revisit refers to the first record of the payload.
	rv := recs[4]
	for k, want := range map[string]string{
		"WARC-Profile":              "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
		"WARC-Refers-To":            locs[0].RecordID,
		"WARC-Refers-To-Target-URI": "http://a.example/",
		"WARC-Refers-To-Date":       "2026-11-22T01:02:03.000Z",
	} {
		if got := rv.get(k); got != want {
			t.Errorf("revisit %s: got %q, want %q", k, got, want)
		}
	}
	if !bytes.HasPrefix(rv.Content, []byte("HTTP/1.1 200 OK\r\n")) {
		t.Errorf("revisit block does not hold the HTTP head: %q", rv.Content)
	}

	md := recs[len(recs)-1]
	if md.get("WARC-Type") != "metadata" || md.get("Content-Type") != "application/warc-fields" ||
		md.get("WARC-Concurrent-To") != locs[0].RecordID || md.get("WARC-Target-URI") != "http://a.example/" {
		t.Errorf("metadata record header: %v", md.Header)
	}
	wantBlock := "outlink: http://a.example/a\r\n" +
		"outlink: http://a.example/b  Injected: yes\r\n" +
		"robots-txt: http://a.example/robots.txt\r\n" +
		"robots-fetched: 2026-11-22T01:02:03.000Z\r\n" +
		"robots-status: 200\r\n" +
		"robots-digest: " + locs[4].PayloadDigest + "\r\n" +
		"robots-rule: disallow: /private\r\n" +
		"robots-decision: allow\r\n"
	if string(md.Content) != wantBlock {
		t.Errorf("metadata block:\n\tgot  %q\n\twant %q", md.Content, wantBlock)
	}
}

// TestExchangeMetadata checks Exchange.Metadata: a metadata record right after the
// response or revisit record, pointing at it, with the Location unchanged.
func TestExchangeMetadata(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir})
	body := []byte("<html><a href=/a>a</a></html>")
	var locs []Location
	for _, uri := range []string{"http://a.example/", "http://b.example/"} {
		ex := exchange(uri, body, "")
		ex.Metadata = &Metadata{TargetURI: uri, ConcurrentTo: "<urn:uuid:ignored>",
			Outlinks: []string{uri + "a"}}
		loc, err := w.WriteExchange(ctx, ex)
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	st := w.Stats()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st.Requests != 2 || st.Responses != 1 || st.Revisits != 1 || st.Metadata != 2 {
		t.Errorf("Stats() = %+v, want 2 requests, 1 response, 1 revisit, 2 metadata", st)
	}
	recs := readDir(t, dir)
	if got, want := len(recs), 1+3*len(locs); got != want {
		t.Fatalf("read %d records, want %d", got, want)
	}
	for i, loc := range locs {
		resp, md := recs[2+3*i], recs[3+3*i]
		checkRecordBasics(t, md)
		uri := resp.get("WARC-Target-URI")
		if resp.get("WARC-Record-ID") != loc.RecordID || resp.Offset != loc.Offset || resp.Size != loc.Length {
			t.Errorf("%s: record %s@%d+%d, Location says %s@%d+%d", uri, resp.get("WARC-Record-ID"),
				resp.Offset, resp.Size, loc.RecordID, loc.Offset, loc.Length)
		}
		if got := md.get("WARC-Type"); got != "metadata" {
			t.Fatalf("%s: record after the response is %q, want metadata", uri, got)
		}
		if got := md.get("WARC-Concurrent-To"); got != loc.RecordID {
			t.Errorf("%s: metadata WARC-Concurrent-To %q, want %q", uri, got, loc.RecordID)
		}
		if got := md.get("WARC-Date"); got != "2026-11-22T01:02:03.000Z" {
			t.Errorf("%s: metadata WARC-Date %q, want the exchange's", uri, got)
		}
		if got, want := string(md.Content), "outlink: "+uri+"a\r\n"; got != want {
			t.Errorf("%s: metadata block:\n\tgot  %q\n\twant %q", uri, got, want)
		}
	}
}

// TestGzipLevels checks that every level writes records gowarc reads back.
func TestGzipLevels(t *testing.T) {
	for _, level := range []int{1, 5, 9} {
		dir := t.TempDir()
		w := openTest(t, WARCOptions{Dir: dir, GzipLevel: level, NoSync: true})
		ex := exchange("http://a.example/", []byte("<html>level</html>"), "")
		if _, err := w.WriteExchange(context.Background(), ex); err != nil {
			t.Fatalf("level %d: %v", level, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		recs := readDir(t, dir)
		if len(recs) != 3 {
			t.Fatalf("level %d: read %d records, want 3", level, len(recs))
		}
		if got := httpPayload(t, recs[2].Content); !bytes.Equal(got, ex.Body) {
			t.Errorf("level %d: payload %q, want %q", level, got, ex.Body)
		}
	}
}

func TestRevisitAcrossRuns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	body := []byte("the same payload, twice")
	w := openTest(t, WARCOptions{Dir: dir})
	first, err := w.WriteExchange(ctx, exchange("http://a.example/one", body, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	w = openTest(t, WARCOptions{Dir: dir})
	second, err := w.WriteExchange(ctx, exchange("http://a.example/two", body, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !second.Revisit || first.Revisit {
		t.Fatalf("Revisit: first %v, second %v; want false, true", first.Revisit, second.Revisit)
	}
	if first.File == second.File {
		t.Errorf("second run wrote into the first run's file %s", first.File)
	}
	rv := readAt(t, dir, second.File, second.Offset, second.Length)
	if got := rv.get("WARC-Refers-To"); got != first.RecordID {
		t.Errorf("WARC-Refers-To %q, want %q", got, first.RecordID)
	}
	if got := rv.get("WARC-Refers-To-Target-URI"); got != "http://a.example/one" {
		t.Errorf("WARC-Refers-To-Target-URI %q", got)
	}
}

// TestRevisitConcurrent writes one payload under many URIs at once: it is stored
// once, every other write is a revisit of that record, however the writes overlap
// (WARCWriter.claim; before it, two writes that both missed the digest index each
// stored the payload).
func TestRevisitConcurrent(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, WARCOptions{Dir: t.TempDir(), NoSync: true})
	body := noise(1, 1<<20) // incompressible: each write takes a while to compress
	const n = 8
	locs := make([]Location, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			locs[i], errs[i] = w.Append(ctx, exchange(fmt.Sprintf("http://h%d.example/site.css", i), body, ""))
		})
	}
	close(start)
	wg.Wait()
	var stored []Location
	for i, loc := range locs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !loc.Revisit {
			stored = append(stored, loc)
		}
	}
	if len(stored) != 1 {
		t.Fatalf("the payload stored %d times, want once", len(stored))
	}
	for _, loc := range locs {
		if loc.Revisit && loc.RefersTo != stored[0].RecordID {
			t.Errorf("a revisit refers to %s, want %s", loc.RefersTo, stored[0].RecordID)
		}
	}
}

func TestRotation(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, Prefix: "rot", MaxFileSize: 4000, NoSync: true})
	var locs []Location
	for i := range 12 {
		// Incompressible bodies, so files fill up.
		body := []byte(strings.Repeat(fmt.Sprintf("%x", i*7919+1), 1)) // distinct payloads
		body = append(body, noise(i, 1500)...)
		loc, err := w.WriteExchange(ctx, exchange(fmt.Sprintf("http://a.example/%d", i), body, ""))
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := warcFiles(t, dir)
	if len(files) < 4 {
		t.Fatalf("%d files after 12 exchanges of ~1.5 KB with MaxFileSize 4000", len(files))
	}
	total := 0
	prevSerial := -1
	for _, p := range files {
		recs := readWARC(t, p)
		name := recs[0].File
		serial, ok := parseName("rot", name)
		if !ok || serial <= prevSerial {
			t.Errorf("file name %q: serial %d after %d", name, serial, prevSerial)
		}
		prevSerial = serial
		if !regexp.MustCompile(`^rot-20261122010203-\d{5}\.warc\.gz$`).MatchString(name) {
			t.Errorf("file name %q", name)
		}
		if recs[0].get("WARC-Type") != "warcinfo" {
			t.Errorf("%s starts with %q", name, recs[0].get("WARC-Type"))
		}
		// Pairs are never split across files.
		for i := 1; i < len(recs); i += 2 {
			if recs[i].get("WARC-Type") != "request" || i+1 >= len(recs) || recs[i].get("WARC-Concurrent-To") != recs[i+1].get("WARC-Record-ID") {
				t.Errorf("%s: record %d does not start a request/response pair", name, i)
			}
		}
		total += (len(recs) - 1) / 2
	}
	if total != 12 {
		t.Errorf("%d pairs in all files, want 12", total)
	}
	for _, loc := range locs {
		if r := readAt(t, dir, loc.File, loc.Offset, loc.Length); r.get("WARC-Record-ID") != loc.RecordID {
			t.Errorf("Location %+v reaches %q", loc, r.get("WARC-Record-ID"))
		}
	}
}

// noise returns n pseudo-random bytes seeded by seed (xorshift), which gzip
// cannot shrink.
func noise(seed, n int) []byte {
	x := uint64(seed)*0x9E3779B97F4A7C15 + 1
	b := make([]byte, n)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}

func TestInvalidInput(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, WARCOptions{NoSync: true})
	defer w.Close()
	bad := []struct {
		name string
		mod  func(*Exchange)
	}{
		{"no target", func(ex *Exchange) { ex.TargetURI = "" }},
		{"space in target", func(ex *Exchange) { ex.TargetURI = "http://a.example/a b" }},
		{"CRLF in target", func(ex *Exchange) { ex.TargetURI = "http://a.example/\r\nWARC-Type: x" }},
		{"bad IP", func(ex *Exchange) { ex.IP = "256.1.1.1" }},
		{"bad kind", func(ex *Exchange) { ex.Kind = "image" }},
		{"no request", func(ex *Exchange) { ex.Request = nil }},
		{"no response head", func(ex *Exchange) { ex.ResponseHeader = []byte("\r\n\r\n") }},
		{"bad metadata target", func(ex *Exchange) { ex.Metadata = &Metadata{TargetURI: "http://a.example/a b"} }},
	}
	for _, c := range bad {
		ex := exchange("http://a.example/", []byte("x"), "")
		c.mod(ex)
		if _, err := w.WriteExchange(ctx, ex); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", c.name, err)
		}
	}
	if err := w.WriteMetadata(ctx, &Metadata{TargetURI: "http://a.example/"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("metadata without ConcurrentTo: err = %v, want ErrInvalid", err)
	}
	if _, err := OpenWARC(WARCOptions{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("OpenWARC without Dir: err = %v, want ErrInvalid", err)
	}
	if _, err := OpenWARC(WARCOptions{Dir: t.TempDir(), Prefix: "../x"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("OpenWARC with prefix ../x: err = %v, want ErrInvalid", err)
	}
	for _, level := range []int{-1, 10} {
		if _, err := OpenWARC(WARCOptions{Dir: t.TempDir(), GzipLevel: level}); !errors.Is(err, ErrInvalid) {
			t.Errorf("OpenWARC with gzip level %d: err = %v, want ErrInvalid", level, err)
		}
	}
}

func TestClosed(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, WARCOptions{NoSync: true})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteExchange(ctx, exchange("http://a.example/", []byte("x"), "")); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteExchange after Close: %v, want ErrClosed", err)
	}
	if err := w.WriteMetadata(ctx, &Metadata{TargetURI: "http://a.example/", ConcurrentTo: "<urn:uuid:x>"}); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteMetadata after Close: %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	w2 := openTest(t, WARCOptions{NoSync: true})
	defer w2.Close()
	if _, err := w2.WriteExchange(cctx, exchange("http://a.example/", []byte("x"), "")); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteExchange with canceled context: %v", err)
	}
}
