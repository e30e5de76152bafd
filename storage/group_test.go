package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// groupFiles opens a WARC writer, pages.jsonl and skipped.jsonl in a new directory
// and a Group over them.
type groupFiles struct {
	dir     string
	warc    *WARCWriter
	pages   *PagesWriter
	skipped *SkippedWriter
	g       *Group
}

func openGroup(t *testing.T, warcOpts WARCOptions) *groupFiles {
	t.Helper()
	dir := t.TempDir()
	warcOpts.Dir = filepath.Join(dir, "warc")
	gf := &groupFiles{dir: dir, warc: openTest(t, warcOpts)}
	var err error
	if gf.pages, err = OpenPages(filepath.Join(dir, "pages.jsonl"), PagesOptions{}); err != nil {
		t.Fatal(err)
	}
	if gf.skipped, err = OpenSkipped(filepath.Join(dir, "skipped.jsonl"), PagesOptions{}); err != nil {
		t.Fatal(err)
	}
	gf.g = newGroup(gf.warc, gf.pages, gf.skipped, time.Hour) // no timed sync: the tests count syncs
	return gf
}

func (gf *groupFiles) close(t *testing.T) {
	t.Helper()
	for _, err := range []error{gf.g.Close(), gf.skipped.Close(), gf.pages.Close(), gf.warc.Close()} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (gf *groupFiles) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(gf.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pageAt is the pages.jsonl line of a page archived at loc.
func pageAt(uri string, loc Location) *Page {
	return &Page{URL: uri, FinalURL: uri, Status: 200, FetchedAt: t0, PayloadDigest: loc.PayloadDigest,
		WARCFile: loc.File, WARCOffset: loc.Offset, WARCLength: loc.Length}
}

// TestGroupWritesLinesAfterWARCSync: a round syncs the WARC file before the lines
// reach pages.jsonl and skipped.jsonl at all (not even unsynced), so no line can be
// on disk while the record it points at is not; and the page waited once.
func TestGroupWritesLinesAfterWARCSync(t *testing.T) {
	ctx := context.Background()
	gf := openGroup(t, WARCOptions{})
	loc, err := gf.warc.Append(ctx, exchange("http://a.example/", []byte("<p>hello</p>"), ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := gf.warc.fl.durableSeq(); got != 0 {
		t.Fatalf("Append made its write durable (durable seq %d): it should leave that to the Group", got)
	}
	rounds := 0
	gf.g.afterWARC = func() {
		rounds++
		gf.warc.mu.Lock()
		seq, size := gf.warc.seq, gf.warc.size
		gf.warc.mu.Unlock()
		if got := gf.warc.fl.durableSeq(); got != seq {
			t.Errorf("in the round, after the WARC sync: durable seq %d, written %d", got, seq)
		}
		if end := loc.Offset + loc.Length; end > size {
			t.Errorf("record ends at %d, file is %d bytes", end, size)
		}
		if s := gf.read(t, "pages.jsonl"); s != "" {
			t.Errorf("pages.jsonl holds %q before its round wrote it", s)
		}
		if s := gf.read(t, "skipped.jsonl"); s != "" {
			t.Errorf("skipped.jsonl holds %q before its round wrote it", s)
		}
	}
	skip := &Skip{URL: "http://a.example/x", Reason: "scope", Time: t0}
	if err := gf.g.Write(ctx, pageAt("http://a.example/", loc), skip); err != nil {
		t.Fatal(err)
	}
	if rounds != 1 {
		t.Errorf("%d rounds, want 1", rounds)
	}
	if s := gf.read(t, "pages.jsonl"); !strings.Contains(s, `"warc_offset":`+fmt.Sprint(loc.Offset)) || strings.Count(s, "\n") != 1 {
		t.Errorf("pages.jsonl after Write: %q", s)
	}
	if s := gf.read(t, "skipped.jsonl"); !strings.Contains(s, "http://a.example/x") {
		t.Errorf("skipped.jsonl after Write: %q", s)
	}
	st, ws := gf.g.SyncStats(), gf.warc.Stats()
	ps, ss := gf.pages.SyncStats(), gf.skipped.SyncStats()
	if st.Waits != 1 || ws.Waits != 0 || ps.Waits != 0 || ss.Waits != 0 {
		t.Errorf("waits: group %d, warc %d, pages %d, skipped %d; want 1, 0, 0, 0", st.Waits, ws.Waits, ps.Waits, ss.Waits)
	}
	gf.close(t)
	r := readAt(t, filepath.Join(gf.dir, "warc"), loc.File, loc.Offset, loc.Length)
	if r.get("WARC-Target-URI") != "http://a.example/" {
		t.Errorf("record at the line's location: %v", r.Header)
	}
}

// TestGroupConcurrentPages: pages written from many goroutines share rounds; every
// line is written once and points at its record; each page waited once.
func TestGroupConcurrentPages(t *testing.T) {
	ctx := context.Background()
	gf := openGroup(t, WARCOptions{MaxFileSize: 16 << 10}) // rotations during the rounds
	const workers, each = 16, 10
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				uri := fmt.Sprintf("http://h%d.example/%d", w, i)
				loc, err := gf.warc.Append(ctx, exchange(uri, noise(w*each+i, 2000), ""))
				if err != nil {
					t.Error(err)
					return
				}
				var skips []*Skip
				if i%3 == 0 {
					skips = append(skips, &Skip{URL: uri + "/out", Reason: "scope", Time: t0})
				}
				if err := gf.g.Write(ctx, pageAt(uri, loc), skips...); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := gf.g.SyncStats()
	gf.close(t)
	if st.Waits != workers*each || st.Syncs == 0 || st.Syncs > workers*each {
		t.Errorf("group stats %+v for %d pages", st, workers*each)
	}
	n := 0
	err := ReadPages(strings.NewReader(gf.read(t, "pages.jsonl")), func(pg *Page) error {
		n++
		r := readAt(t, filepath.Join(gf.dir, "warc"), pg.WARCFile, pg.WARCOffset, pg.WARCLength)
		if got := r.get("WARC-Target-URI"); got != pg.URL {
			return fmt.Errorf("line of %s points at the record of %s", pg.URL, got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != workers*each {
		t.Errorf("%d pages.jsonl lines, want %d", n, workers*each)
	}
	if got, want := strings.Count(gf.read(t, "skipped.jsonl"), "\n"), workers*((each+2)/3); got != want {
		t.Errorf("%d skipped.jsonl lines, want %d", got, want)
	}
	t.Logf("%d pages, %d rounds", workers*each, st.Syncs)
}

// TestGroupCloseWritesAbandonedLines: a Write whose caller stopped waiting leaves its
// line queued; Close writes it, and a Write after Close is refused.
func TestGroupCloseWritesAbandonedLines(t *testing.T) {
	gf := openGroup(t, WARCOptions{})
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	gf.g.afterWARC = func() {
		select {
		case entered <- struct{}{}:
			<-release // the first round holds until the test lets it go
		default:
		}
	}
	first := make(chan error, 1)
	go func() { first <- gf.g.Write(context.Background(), &Page{URL: "http://a.example/1", FetchedAt: t0}) }()
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() { second <- gf.g.Write(ctx, &Page{URL: "http://a.example/2", FetchedAt: t0}) }()
	// Once the second Write has queued its line (and counted its wait), it can only
	// wait: the round that would take its line cannot start before the first ends.
	for gf.g.SyncStats().Waits < 2 {
		runtime.Gosched()
	}
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("second Write: %v, want context.Canceled", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := gf.g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gf.g.Write(context.Background(), &Page{URL: "http://a.example/3"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
	gf.close(t)
	s := gf.read(t, "pages.jsonl")
	if !strings.Contains(s, "http://a.example/1") || !strings.Contains(s, "http://a.example/2") || strings.Count(s, "\n") != 2 {
		t.Errorf("pages.jsonl: %q", s)
	}
}

// TestGroupWriteErrorIsSticky: a round that fails (pages.jsonl closed under it)
// fails its waiters and every later Write.
func TestGroupWriteErrorIsSticky(t *testing.T) {
	ctx := context.Background()
	gf := openGroup(t, WARCOptions{})
	if err := gf.pages.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gf.g.Write(ctx, &Page{URL: "http://a.example/1", FetchedAt: t0}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Write into a closed pages.jsonl: %v", err)
	}
	if err := gf.g.Write(ctx, nil, &Skip{URL: "http://a.example/2", Time: t0}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Write after a failed round: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(gf.dir, "skipped.jsonl")); len(bytes.TrimSpace(b)) != 0 {
		t.Errorf("skipped.jsonl got %q after the Group failed", b)
	}
	if err := gf.skipped.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gf.warc.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestGroupQueueThenSync: Queue writes nothing, not even to the page cache, and
// waits for no round; one Sync then makes every page queued by several callers
// durable in one round, the WARC file synced before the lines are written; a Sync
// with nothing new queued starts no round; Queue after Close is refused.
func TestGroupQueueThenSync(t *testing.T) {
	ctx := context.Background()
	gf := openGroup(t, WARCOptions{})
	var locs []Location
	for i := range 3 {
		uri := fmt.Sprintf("http://a.example/%d", i)
		loc, err := gf.warc.Append(ctx, exchange(uri, noise(i, 500), ""))
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
		var skips []*Skip
		if i == 1 {
			skips = append(skips, &Skip{URL: uri + "/out", Reason: "scope", Time: t0})
		}
		if err := gf.g.Queue(pageAt(uri, loc), skips...); err != nil {
			t.Fatal(err)
		}
	}
	if err := gf.g.Queue(nil); err != nil {
		t.Errorf("Queue of nothing: %v", err)
	}
	if st := gf.g.SyncStats(); st.Syncs != 0 || st.Waits != 0 {
		t.Errorf("after Queue: group stats %+v, want no round and no wait", st)
	}
	if got := gf.warc.fl.durableSeq(); got != 0 {
		t.Errorf("after Queue: WARC durable up to write %d, want 0", got)
	}
	if s := gf.read(t, "pages.jsonl") + gf.read(t, "skipped.jsonl"); s != "" {
		t.Errorf("after Queue, before Sync: the files hold %q", s)
	}
	rounds := 0
	gf.g.afterWARC = func() {
		rounds++
		gf.warc.mu.Lock()
		seq := gf.warc.seq
		gf.warc.mu.Unlock()
		if got := gf.warc.fl.durableSeq(); got != seq {
			t.Errorf("in the round, after the WARC sync: durable seq %d, written %d", got, seq)
		}
		if s := gf.read(t, "pages.jsonl"); s != "" {
			t.Errorf("pages.jsonl holds %q before the round wrote it", s)
		}
	}
	if err := gf.g.Sync(); err != nil {
		t.Fatal(err)
	}
	if rounds != 1 {
		t.Errorf("Sync ran %d rounds, want 1", rounds)
	}
	if s := gf.read(t, "pages.jsonl"); strings.Count(s, "\n") != 3 {
		t.Errorf("pages.jsonl after Sync: %q", s)
	}
	if s := gf.read(t, "skipped.jsonl"); strings.Count(s, "\n") != 1 || !strings.Contains(s, "http://a.example/1/out") {
		t.Errorf("skipped.jsonl after Sync: %q", s)
	}
	if err := gf.g.Sync(); err != nil || rounds != 1 {
		t.Errorf("Sync with nothing queued: %v, %d rounds; want nil, still 1", err, rounds)
	}
	if err := gf.g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gf.g.Queue(&Page{URL: "http://a.example/late", FetchedAt: t0}); !errors.Is(err, ErrClosed) {
		t.Errorf("Queue after Close: %v, want ErrClosed", err)
	}
	if err := gf.g.Sync(); err != nil {
		t.Errorf("Sync after Close, everything durable: %v", err)
	}
	gf.close(t)
	for _, loc := range locs {
		readAt(t, filepath.Join(gf.dir, "warc"), loc.File, loc.Offset, loc.Length)
	}
}

// TestGroupCloseSyncsQueuedLines: lines queued and never synced (the crawl stopped
// before their pages' Dones) are made durable by Close, after the WARC file.
func TestGroupCloseSyncsQueuedLines(t *testing.T) {
	ctx := context.Background()
	gf := openGroup(t, WARCOptions{})
	loc, err := gf.warc.Append(ctx, exchange("http://a.example/", noise(1, 500), ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := gf.g.Queue(pageAt("http://a.example/", loc)); err != nil {
		t.Fatal(err)
	}
	if err := gf.g.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := gf.warc.fl.durableSeq(), uint64(1); got < want {
		t.Errorf("after Close: WARC durable up to write %d, want %d", got, want)
	}
	if s := gf.read(t, "pages.jsonl"); strings.Count(s, "\n") != 1 {
		t.Errorf("pages.jsonl after Close: %q", s)
	}
	gf.close(t)
}

// TestGroupSyncErrorIsSticky: a round that fails fails the Sync that ran it and
// every later one, as it does Write.
func TestGroupSyncErrorIsSticky(t *testing.T) {
	gf := openGroup(t, WARCOptions{})
	if err := gf.pages.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gf.g.Queue(&Page{URL: "http://a.example/1", FetchedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := gf.g.Sync(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Sync into a closed pages.jsonl: %v", err)
	}
	if err := gf.g.Sync(); !errors.Is(err, ErrClosed) {
		t.Errorf("Sync after a failed round: %v", err)
	}
	for _, err := range []error{gf.skipped.Close(), gf.warc.Close()} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestGroupSyncRecordsWithoutLines: Sync makes the records Append wrote before it
// durable even when no line was queued after them (every line queued before is
// durable already), as its doc says.
func TestGroupSyncRecordsWithoutLines(t *testing.T) {
	ctx := context.Background()
	gf := openGroup(t, WARCOptions{})
	defer gf.close(t)
	loc, err := gf.warc.Append(ctx, exchange("http://a.example/0", noise(0, 500), ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := gf.g.Queue(pageAt("http://a.example/0", loc)); err != nil {
		t.Fatal(err)
	}
	if err := gf.g.Sync(); err != nil {
		t.Fatal(err)
	}
	// A record with no line queued after it.
	if _, err := gf.warc.Append(ctx, exchange("http://a.example/1", noise(1, 500), "")); err != nil {
		t.Fatal(err)
	}
	gf.warc.mu.Lock()
	written := gf.warc.seq
	gf.warc.mu.Unlock()
	if err := gf.g.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := gf.warc.fl.durableSeq(); got < written {
		t.Errorf("after Sync: WARC durable up to write %d, want %d (written before the call)", got, written)
	}
}
