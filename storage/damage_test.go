package storage

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damagedCrawl makes a closed crawl of 12 pages and damages the record of page 5: flip
// overwrites a byte in the middle of its gzip member, otherwise the file is cut there.
// It returns the data directory, the damaged file's path, the damaged record's offset
// and the file's index as it was before.
func damagedCrawl(t *testing.T, flip bool) (dir, path string, off int64, index []byte) {
	t.Helper()
	dir = t.TempDir()
	w, pw, locs := crawlDir(t, dir, 12)
	w.Close()
	pw.Close()
	loc := locs[5]
	path = filepath.Join(dir, "warc", loc.File)
	index, err := os.ReadFile(path + IndexSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if flip {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 1)
		f.ReadAt(b, loc.Offset+loc.Length/2)
		b[0] ^= 0xff
		f.WriteAt(b, loc.Offset+loc.Length/2)
		f.Close()
	} else if err := os.Truncate(path, loc.Offset+loc.Length/2); err != nil {
		t.Fatal(err)
	}
	return dir, path, loc.Offset, index
}

// warnings collects ToolOptions.Warn's calls.
type warnings []string

func (w *warnings) warn(path, what string) { *w = append(*w, filepath.Base(path)+": "+what) }

func (w warnings) has(s string) bool { return strings.Contains(strings.Join(w, "\n"), s) }

// TestIndexRefusesDamage: IndexWARCDir refuses a crawl with a damaged WARC file (a byte
// overwritten, or the file cut in a record after the crawl finished it), naming the file
// and where its damage starts, and leaves its index as it was; with Damaged it indexes
// the whole records and still keeps the longer index.
func TestIndexRefusesDamage(t *testing.T) {
	for _, flip := range []bool{true, false} {
		dir, path, off, before := damagedCrawl(t, flip)
		warcDir := filepath.Join(dir, "warc")
		err := IndexWARCDir(warcDir, ToolOptions{}, nil)
		var de *DamageError
		if !errors.As(err, &de) || de.File != path || de.Offset != off {
			t.Fatalf("flip %v: IndexWARCDir = %v, want a *DamageError at byte %d of %s", flip, err, off, path)
		}
		if err := RebuildIndexes(warcDir, nil); !errors.As(err, &de) {
			t.Fatalf("flip %v: RebuildIndexes = %v, want a *DamageError", flip, err)
		}
		if after, _ := os.ReadFile(path + IndexSuffix); !bytes.Equal(after, before) {
			t.Fatalf("flip %v: the index changed though the crawl was refused", flip)
		}
		var w warnings
		lines := map[string]int{}
		if err := IndexWARCDir(warcDir, ToolOptions{Damaged: true, Warn: w.warn}, func(p string, n int) { lines[p] = n }); err != nil {
			t.Fatalf("flip %v: IndexWARCDir with Damaged: %v", flip, err)
		}
		if !w.has("DAMAGED at byte") || !w.has("kept: it has") {
			t.Errorf("flip %v: warnings %q", flip, w)
		}
		if after, _ := os.ReadFile(path + IndexSuffix); !bytes.Equal(after, before) {
			t.Errorf("flip %v: a shorter index replaced the one there", flip)
		}
		if want := bytes.Count(before, []byte("\n")); lines[path] != want {
			t.Errorf("flip %v: reported %d lines for the damaged file, want the kept index's %d", flip, lines[path], want)
		}
	}
}

// TestIndexSkipsForeignFiles: a *.warc.gz file not named as a crawl's (junk) is left
// alone, with a warning, and the crawl's files are indexed.
func TestIndexSkipsForeignFiles(t *testing.T) {
	dir := t.TempDir()
	w, pw, _ := crawlDir(t, dir, 3)
	w.Close()
	pw.Close()
	junk := filepath.Join(dir, "warc", "junk.warc.gz")
	if err := os.WriteFile(junk, []byte("not a WARC file"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warned warnings
	files := 0
	if err := IndexWARCDir(filepath.Join(dir, "warc"), ToolOptions{Warn: warned.warn}, func(string, int) { files++ }); err != nil {
		t.Fatal(err)
	}
	if files == 0 || !warned.has("junk.warc.gz: left out: not named as a crawl's WARC file") {
		t.Errorf("%d files indexed, warnings %q", files, warned)
	}
	if _, err := os.Stat(junk + IndexSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("junk.warc.gz was indexed: %v", err)
	}
}

// TestCrawlWARCName: the names a crawl gives its WARC files, whatever the prefix.
func TestCrawlWARCName(t *testing.T) {
	for name, want := range map[string]bool{
		"crawl-20260101120000-00001.warc.gz":        true,
		"my-crawl-20260101120000-00012.warc.gz":     true,
		fileName("x", t0, 3):                        true,
		"junk.warc.gz":                              false,
		"crawl-2026010112000-00001.warc.gz":         false,
		"crawl-20260101120000-0000a.warc.gz":        false,
		"crawl-20260101120000-00001.warc":           false,
		"-20260101120000-00001.warc.gz":             false,
		"crawl-20260101120000-00001.warc.gz.cdxj":   false,
		"crawl-20260101120000-00001.warc.wet.gz":    false,
		"crawl-20260101120000-00001.warc.gz.tmp.gz": false,
	} {
		if got := CrawlWARCName(name); got != want {
			t.Errorf("CrawlWARCName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestPackWACZRefusesDamage: PackWACZFile refuses a crawl with a damaged WARC file and
// writes nothing; with Damaged it packs the whole records only, says so in its stats,
// and lists no page whose record is not in the package.
func TestPackWACZRefusesDamage(t *testing.T) {
	dir, path, off, _ := damagedCrawl(t, true)
	out := filepath.Join(t.TempDir(), "crawl.wacz")
	warcDir, pages := filepath.Join(dir, "warc"), filepath.Join(dir, "pages.jsonl")
	_, err := PackWACZFile(out, warcDir, pages, WACZOptions{Now: fixedNow})
	var de *DamageError
	if !errors.As(err, &de) || de.File != path || de.Offset != off {
		t.Fatalf("PackWACZFile = %v, want a *DamageError at byte %d of %s", err, off, path)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Fatalf("%d files written for a refused package", len(entries))
	}
	var w warnings
	st, err := PackWACZFile(out, warcDir, pages, WACZOptions{Now: fixedNow, ToolOptions: ToolOptions{Damaged: true, Warn: w.warn}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Damaged != 1 || st.Dropped == 0 || !w.has("DAMAGED at byte") {
		t.Errorf("stats %+v, warnings %q", st, w)
	}
	files := checkWACZ(t, out)
	if n := bytes.Count(files["pages/pages.jsonl"], []byte("\n")) - 1; n != st.Pages || n >= 12 {
		t.Errorf("%d pages listed (stats %d), want fewer than the 12 crawled", n, st.Pages)
	}
}
