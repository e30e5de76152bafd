package crawl

import (
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/storage"
)

// commitFarm is a small farm for the tests of a page's one wait.
func commitFarm(t *testing.T) *crawltest.Farm {
	t.Helper()
	farm, err := crawltest.Start(crawltest.Generate(crawltest.GenerateOptions{
		Seed: 7, Hosts: 6, PagesPerHost: 15, LinksPerPage: 5, PageSize: 2 << 10, CrossHostLinks: 0.2, IconEvery: 2,
	})...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { farm.Close() })
	return farm
}

func commitConfig(farm *crawltest.Farm, dir string) config.Config {
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.Seeds = farm.Seeds()
	cfg.Workers = 8
	cfg.Network.AllowPrivate = true
	cfg.Network.Resolve = farm.Resolve()
	cfg.Politeness.MinDelay = config.Duration(time.Millisecond)
	return cfg
}

// TestOneWaitPerPage crawls a farm and counts the durability waits (issue 14): a
// page waits once, in the frontier's Done, whose commit first runs the storage
// round that makes the page's WARC records and lines durable. No page waits on a
// storage writer or the Group itself: the Group's waits are the frontier's calls,
// one per commit that carries Dones, and those calls cover every lease done.
// robots.txt exchanges, which have no pages.jsonl line, wait once each in the WARC
// writer, as before.
func TestOneWaitPerPage(t *testing.T) {
	farm := commitFarm(t)
	cfg := commitConfig(farm, t.TempDir())
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = new(strings.Builder)
	var calls, dones atomic.Int64
	c.synced = func(n int) {
		calls.Add(1)
		dones.Add(int64(n))
	}
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	sum := c.Summary()
	if !sum.Complete || len(sum.Skipped) > 0 {
		t.Fatalf("want a complete crawl with nothing skipped:\n%s", sum)
	}
	pages, icons := map[string]int{}, map[string]int{}
	f, err := os.Open(filepath.Join(cfg.DataDir, "pages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = storage.ReadPages(f, func(p *storage.Page) error {
		if p.Requisite == "icon" {
			icons[p.URL]++
		} else {
			pages[p.URL]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !onceEach(pages, farm.Expected()) || !onceEach(icons, farm.ExpectedIcons()) {
		t.Fatalf("pages.jsonl lines of pages %v, of host icons %v: want one for each of the farm's %d pages and %d host icons",
			pages, icons, len(farm.Expected()), len(farm.ExpectedIcons()))
	}
	lines := int64(len(pages) + len(icons))
	ws := c.warc.Stats()
	writers := ws.Waits + c.pages.SyncStats().Waits + c.skipped.SyncStats().Waits
	if writers != uint64(ws.Robots) {
		t.Errorf("%d waits in the storage writers for %d robots.txt: want one each, none for pages", writers, ws.Robots)
	}
	if g := c.commit.SyncStats().Waits; g != uint64(calls.Load()) {
		t.Errorf("%d waits in the Group, %d frontier commits with Dones: want the Group's waits to be those commits'", g, calls.Load())
	}
	if dones.Load() < lines {
		t.Errorf("the storage rounds covered %d Dones, the crawl wrote %d pages: want every page's Done covered", dones.Load(), lines)
	}
	t.Logf("%d pages, %d Dones in %d commits with a storage round", lines, dones.Load(), calls.Load())
}

// TestCrashBetweenStorageAndCommit copies the data directory at the point a crash
// hurts most (issue 14): a commit's storage round has made its pages' records and
// lines durable, and frontier.db does not yet hold their Dones. A crawl resumed from
// the copy fetches those leases again, so their URLs have two pages.jsonl lines,
// both pointing at whole records: no line points at a record the crash lost, and
// at most the leases in flight (the workers) are fetched twice.
func TestCrashBetweenStorageAndCommit(t *testing.T) {
	farm := commitFarm(t)
	dir, snap := t.TempDir(), t.TempDir()
	cfg := commitConfig(farm, dir)
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = new(strings.Builder)
	var (
		mu        sync.Mutex
		taken     bool
		seen      int // commits that cut a page's Done so far
		snapLines int
		snapDone  int64
	)
	c.synced = func(int) {
		mu.Lock()
		defer mu.Unlock()
		if taken {
			return
		}
		// The committer waits here: frontier.db is as the last commit left it.
		if err := copyDir(dir, snap); err != nil {
			t.Error(err)
			taken = true
			return
		}
		f, err := frontier.Open(filepath.Join(snap, "frontier.db"), frontier.Options{ReadOnly: true})
		if err != nil {
			t.Error(err)
			taken = true
			return
		}
		done := f.Stats().Done
		f.Close()
		n := len(pageURLs(t, snap))
		if int64(n) > done { // a page of this commit has its line and is not done
			seen++
			// The third such commit: the crawl is under way on several hosts.
			taken, snapLines, snapDone = seen == 3, n, done
		}
	}
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if !taken || snapLines == 0 {
		mu.Unlock()
		t.Fatal("no commit carried a page's Done: nothing copied")
	}
	mu.Unlock()
	t.Logf("copied with %d pages.jsonl lines, %d URLs done in frontier.db", snapLines, snapDone)

	farm.Reset()
	cfg = commitConfig(farm, snap)
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.Stderr = new(strings.Builder)
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sum := r.Summary(); !sum.Complete {
		t.Fatalf("resumed crawl not complete:\n%s", sum)
	}
	urls := pageURLs(t, snap)
	count := map[string]int{}
	for _, u := range urls {
		count[u]++
	}
	twice := 0
	for u := range union(farm.Expected(), farm.ExpectedIcons()) {
		switch n := count[u]; {
		case n == 0:
			t.Errorf("%s: no pages.jsonl line after the resume", u)
		case n == 2:
			twice++
		case n > 2:
			t.Errorf("%s: %d pages.jsonl lines", u, n)
		}
	}
	if twice == 0 || twice > cfg.Workers {
		t.Errorf("%d URLs fetched twice: want the leases of the cut commit, at least 1 and at most %d workers", twice, cfg.Workers)
	}
	checkLinesWhole(t, snap)
}

// onceEach reports whether lines has one line for each URL of want, and no other.
func onceEach(lines map[string]int, want map[string]bool) bool {
	for u, n := range lines {
		if n != 1 || !want[u] {
			return false
		}
	}
	return len(lines) == len(want)
}

// union returns the URLs of a and b.
func union(a, b map[string]bool) map[string]bool {
	u := maps.Clone(a)
	maps.Copy(u, b)
	return u
}

// pageURLs returns the URL of every pages.jsonl line in dir, in order.
func pageURLs(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "pages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var urls []string
	if err := storage.ReadPages(f, func(p *storage.Page) error { urls = append(urls, p.URL); return nil }); err != nil {
		t.Fatal(err)
	}
	return urls
}

// checkLinesWhole fails unless every pages.jsonl line of dir points at whole records.
func checkLinesWhole(t *testing.T, dir string) {
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

// copyDir copies the regular files under src into dst, as they are now.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(to)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
