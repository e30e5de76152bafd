package crawl_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/crawl/config"
)

// TestDataDirLayout: warc/ holds WARC files only (the digest index sits beside
// frontier.db, and one left in warc/ by an older version is moved there), and each
// warcinfo record has its robots field once.
func TestDataDirLayout(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Seeds = []string{s.srv.URL + "/"}
	cfg.Politeness.MinDelay = config.Duration(time.Millisecond)
	cfg.Network.AllowPrivate = true
	runCrawl(t, cfg)

	warcDir := filepath.Join(cfg.DataDir, "warc")
	index := filepath.Join(cfg.DataDir, "digests.db")
	checkWARCDir := func() {
		t.Helper()
		entries, err := os.ReadDir(warcDir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if name := e.Name(); name == "digests.db" {
				t.Errorf("warc/ holds %s", name)
			}
		}
		if _, err := os.Stat(index); err != nil {
			t.Errorf("no digest index beside frontier.db: %v", err)
		}
	}
	checkWARCDir()

	files, _ := filepath.Glob(filepath.Join(warcDir, "*.warc.gz"))
	if len(files) == 0 {
		t.Fatal("no WARC file")
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false) // the warcinfo record is the first member
	info, err := io.ReadAll(zr)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(info, []byte("\r\nrobots: ")); n != 1 {
		t.Errorf("warcinfo has %d robots fields, want 1:\n%s", n, info)
	}

	// An older version kept the index in warc/: the next run moves it.
	if err := os.Rename(index, filepath.Join(warcDir, "digests.db")); err != nil {
		t.Fatal(err)
	}
	cfg.Seeds = append(cfg.Seeds, s.srv.URL+"/more")
	runCrawl(t, cfg)
	checkWARCDir()
	if got := logLines(t, cfg.DataDir, "digest index moved"); len(got) != 1 {
		t.Errorf("%d log lines about moving the digest index, want 1", len(got))
	}
}
