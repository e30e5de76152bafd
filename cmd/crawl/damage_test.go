package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/politecrawl/crawl/storage"
)

// TestFileToolsRefuseDamage: crawl index and crawl wacz refuse a crawl with a damaged
// WARC file (exit 1, naming the file and the byte), leave its index as it was and write
// no package; with -damaged they take its whole records and say so; a stray *.warc.gz
// is left out with a warning.
func TestFileToolsRefuseDamage(t *testing.T) {
	data := t.TempDir()
	if err := writeWARCs(t, data, 8).Close(); err != nil {
		t.Fatal(err)
	}
	paths, err := storage.WARCFiles(filepath.Join(data, "warc"))
	if err != nil || len(paths) < 2 {
		t.Fatalf("WARC files %v, %v", paths, err)
	}
	victim := paths[0]
	check, err := storage.CheckWARC(victim)
	if err != nil || len(check.Starts) < 2 {
		t.Fatalf("check %+v, %v", check, err)
	}
	before, err := os.ReadFile(victim + storage.IndexSuffix)
	if err != nil {
		t.Fatal(err)
	}
	// A byte of the second record overwritten.
	f, err := os.OpenFile(victim, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	at := check.Starts[1] + 40
	f.ReadAt(b, at)
	f.WriteAt([]byte{b[0] ^ 0xff}, at)
	f.Close()
	os.WriteFile(filepath.Join(data, "warc", "junk.warc.gz"), []byte("junk"), 0o644)

	where := victim + " is damaged at byte "
	code, _, errOut := run(t, "index", "-data", data)
	if code != 1 || !strings.Contains(errOut, where) {
		t.Errorf("index: exit %d, stderr %q; want 1 and %q", code, errOut, where)
	}
	if after, _ := os.ReadFile(victim + storage.IndexSuffix); string(after) != string(before) {
		t.Error("index replaced the damaged file's index")
	}
	wacz := filepath.Join(t.TempDir(), "crawl.wacz")
	code, _, errOut = run(t, "wacz", "-data", data, "-o", wacz)
	if code != 1 || !strings.Contains(errOut, where) {
		t.Errorf("wacz: exit %d, stderr %q; want 1 and %q", code, errOut, where)
	}
	if _, err := os.Stat(wacz); !os.IsNotExist(err) {
		t.Errorf("wacz wrote a package of a damaged crawl: %v", err)
	}

	code, out, errOut := run(t, "wacz", "-data", data, "-o", wacz, "-damaged")
	if code != 0 || !strings.Contains(out, "DAMAGED: 1 WARC files packed in part") ||
		!strings.Contains(errOut, "DAMAGED at byte") || !strings.Contains(errOut, "junk.warc.gz: left out") {
		t.Errorf("wacz -damaged: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = run(t, "index", "-data", data, "-damaged")
	if code != 0 || !strings.Contains(errOut, "kept: it has") {
		t.Errorf("index -damaged: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}
