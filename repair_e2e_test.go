package crawl_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/storage"
)

// lockedBuffer is a bytes.Buffer safe for the crawler's concurrent logging.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// crawlSite crawls s (/, /early, /late) into dir with one worker and returns stderr.
func crawlSite(t *testing.T, s *site, dir string) string {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.Seeds = []string{s.srv.URL + "/"}
	cfg.Workers = 1
	cfg.Network.AllowPrivate = true
	cfg.Politeness.MinDelay = config.Duration(time.Millisecond)
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	c.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), crawlWait)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	return stderr.String()
}

// lastPage returns the last line of dir's pages.jsonl.
func lastPage(t *testing.T, dir string) storage.Page {
	t.Helper()
	var last storage.Page
	f, err := os.Open(filepath.Join(dir, "pages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := storage.ReadPages(f, func(p *storage.Page) error { last = *p; return nil }); err != nil {
		t.Fatal(err)
	}
	return last
}

// checkPagesWhole fails unless every pages.jsonl line of dir points at whole records.
func checkPagesWhole(t *testing.T, dir string) {
	t.Helper()
	warcDir := filepath.Join(dir, "warc")
	files, _ := filepath.Glob(filepath.Join(warcDir, "*.warc.gz"))
	checks := map[string]*storage.FileCheck{}
	for _, p := range files {
		c, err := storage.CheckWARC(p)
		if err != nil {
			t.Fatal(err)
		}
		checks[c.File] = &c
	}
	pc, err := storage.CheckPages(filepath.Join(dir, "pages.jsonl"), warcDir, checks)
	if err != nil {
		t.Fatal(err)
	}
	if pc.Problems > 0 {
		t.Errorf("pages.jsonl: %d problems: %+v", pc.Problems, pc.First)
	}
}

// TestLostRecordRequeued is issue 13 defect 7: a WARC record cut off at the start of a
// run while its URL is done is reported, its pages.jsonl line dropped and its URL
// fetched again.
func TestLostRecordRequeued(t *testing.T) {
	s := newSite(t, http.NotFound)
	dir := t.TempDir()
	crawlSite(t, s, dir)
	last := lastPage(t, dir)
	if !strings.HasSuffix(last.URL, "/late") {
		t.Fatalf("last page %s, want /late", last.URL)
	}
	// The record of /late is torn, as a lost write leaves it.
	if err := os.Truncate(filepath.Join(dir, "warc", last.WARCFile), last.WARCOffset+last.WARCLength/2); err != nil {
		t.Fatal(err)
	}
	stderr := crawlSite(t, s, dir)
	s.mu.Lock()
	hits := s.hits["/late"]
	s.mu.Unlock()
	if hits != 2 {
		t.Errorf("/late fetched %d times, want 2: once more after its record was lost", hits)
	}
	for _, want := range []string{
		"level=WARN msg=\"warc: cut a torn tail off the newest file of the previous run\" file=" + last.WARCFile,
		"level=WARN msg=\"pages.jsonl: dropped lines whose WARC records were lost; their URLs are fetched again\" lines=1 queued=1 urls=" + last.URL,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, msg := range []string{"cut a torn tail", "dropped lines whose WARC records were lost", "line dropped, its WARC record is lost"} {
		if len(logLines(t, dir, msg)) != 1 {
			t.Errorf("crawl.log: %d lines with %q, want 1", len(logLines(t, dir, msg)), msg)
		}
	}
	pages, requisites := pageLines(t, filepath.Join(dir, "pages.jsonl"))
	n := 0
	for _, p := range pages {
		if p["url"] == last.URL {
			n++
		}
	}
	if len(pages) != 3 || n != 1 {
		t.Errorf("pages.jsonl: %d lines of pages, %d for /late; want 3 and 1", len(pages), n)
	}
	if got := urlsOf(requisites); len(got) != 1 || got[0] != s.srv.URL+"/favicon.ico" {
		t.Errorf("pages.jsonl: lines of requisites %q, want the host's /favicon.ico once", got)
	}
	checkPagesWhole(t, dir)
}

// TestPagesLineWithoutNewlineKept is issue 13 defect 7: a whole last pages.jsonl line
// missing only its newline is kept, and that is said.
func TestPagesLineWithoutNewlineKept(t *testing.T) {
	s := newSite(t, http.NotFound)
	dir := t.TempDir()
	crawlSite(t, s, dir)
	path := filepath.Join(dir, "pages.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.TrimSuffix(b, []byte("\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := crawlSite(t, s, dir)
	if got, _ := os.ReadFile(path); string(got) != string(b) {
		t.Errorf("pages.jsonl after the run:\n%s\nwant\n%s", got, b)
	}
	if !strings.Contains(stderr, "level=WARN msg=\"pages.jsonl: the last line lacked only its newline: kept, newline added\"") {
		t.Errorf("stderr does not say the newline was added:\n%s", stderr)
	}
}

// TestDamagedOlderWARCReported is issue 13 defect 7: a torn record in a WARC file other
// than the newest is reported loudly at the start and left as it is; the URLs whose
// records it lost are fetched again.
func TestDamagedOlderWARCReported(t *testing.T) {
	s := newSite(t, http.NotFound)
	dir := t.TempDir()
	crawlSite(t, s, dir)
	last := lastPage(t, dir)
	older := filepath.Join(dir, "warc", last.WARCFile)
	b, err := os.ReadFile(older)
	if err != nil {
		t.Fatal(err)
	}
	// A newer file, whole, makes the first one older; then the older one loses its end.
	newer := filepath.Join(dir, "warc", strings.Replace(last.WARCFile, "-00001.", "-00002.", 1))
	if newer == older {
		t.Fatalf("WARC file %s is not the first", last.WARCFile)
	}
	if err := os.WriteFile(newer, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cut := last.WARCOffset + 10
	if err := os.Truncate(older, cut); err != nil {
		t.Fatal(err)
	}
	stderr := crawlSite(t, s, dir)
	want := "level=ERROR msg=\"warc: damaged file (left as it is; crawl verify tells more)\" file=" + last.WARCFile
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if fi, _ := os.Stat(older); fi.Size() != cut {
		t.Errorf("the damaged file was changed: %d bytes, want %d", fi.Size(), cut)
	}
	s.mu.Lock()
	hits := s.hits["/late"]
	s.mu.Unlock()
	if hits != 2 {
		t.Errorf("/late fetched %d times, want 2: once more after its record was lost", hits)
	}
}

// TestRequeuedLeasesLogged is issue 13 defect 7: leases a dead process left are
// requeued, and that is said.
func TestRequeuedLeasesLogged(t *testing.T) {
	s := newSite(t, http.NotFound)
	dir := t.TempDir()
	f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Add(context.Background(), frontier.Entry{URL: s.srv.URL + "/", Priority: 20}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil { // the lease stays recorded, as after kill -9
		t.Fatal(err)
	}
	stderr := crawlSite(t, s, dir)
	want := "level=WARN msg=\"frontier: URLs leased by the previous run and not finished are queued again\" leases=1"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}
