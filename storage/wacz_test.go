package storage

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// crawlDir writes n pages into dir/warc (several files) and dir/pages.jsonl
// and returns the writers, open, and the pages' locations.
func crawlDir(t *testing.T, dir string, n int) (*WARCWriter, *PagesWriter, []Location) {
	t.Helper()
	ctx := context.Background()
	w := openTest(t, WARCOptions{Dir: filepath.Join(dir, "warc"), MaxFileSize: 8 << 10})
	pw, err := OpenPages(filepath.Join(dir, "pages.jsonl"), PagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var locs []Location
	for i := range n {
		u := fmt.Sprintf("http://a.example/p/%d", i)
		body := append([]byte(fmt.Sprintf("<!doctype html><title>Page %d</title>", i)), noise(i, 1500)...)
		loc, err := w.WriteExchange(ctx, exchange(u, body, ""))
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
		pg := &Page{URL: u, FinalURL: u, Status: 200, ContentType: "text/html; charset=utf-8", FetchedAt: t0,
			PayloadDigest: loc.PayloadDigest, WARCFile: loc.File, WARCOffset: loc.Offset, WARCLength: loc.Length,
			Title: fmt.Sprintf("Page %d", i), Text: "text"}
		if err := pw.Write(ctx, pg); err != nil {
			t.Fatal(err)
		}
	}
	return w, pw, locs
}

// checkWACZ checks a WACZ against the WACZ 1.1.1 specification: the files it
// requires, WARC files STORED, every file listed in datapackage.json with its
// size and SHA-256, and datapackage-digest.json's hash of datapackage.json. It
// returns the package's files by path.
func checkWACZ(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string][]byte{}
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "archive/") && f.Method != zip.Store {
			t.Errorf("%s is compressed (method %d), want STORE", f.Name, f.Method)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc) // checks the CRC-32 too
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		files[f.Name] = b
	}
	for _, want := range []string{"datapackage.json", "datapackage-digest.json", "pages/pages.jsonl", "indexes/index.cdxj"} {
		if _, ok := files[want]; !ok {
			t.Errorf("no %s", want)
		}
	}
	var dp struct {
		Profile   string `json:"profile"`
		Version   string `json:"wacz_version"`
		Resources []struct {
			Name, Path, Hash string
			Bytes            int64
		} `json:"resources"`
	}
	if err := json.Unmarshal(files["datapackage.json"], &dp); err != nil {
		t.Fatalf("datapackage.json: %v", err)
	}
	if dp.Profile != "data-package" || dp.Version != "1.1.1" {
		t.Errorf("datapackage.json: profile %q, wacz_version %q", dp.Profile, dp.Version)
	}
	listed := map[string]bool{}
	for _, r := range dp.Resources {
		listed[r.Path] = true
		b, ok := files[r.Path]
		sum := sha256.Sum256(b)
		if !ok || r.Hash != "sha256:"+hex.EncodeToString(sum[:]) || r.Bytes != int64(len(b)) || r.Name != filepath.Base(r.Path) {
			t.Errorf("resource %+v does not match the file (%d bytes)", r, len(b))
		}
	}
	for p := range files {
		if !listed[p] && p != "datapackage.json" && p != "datapackage-digest.json" {
			t.Errorf("%s is not listed in datapackage.json", p)
		}
	}
	var dg struct{ Path, Hash string }
	if err := json.Unmarshal(files["datapackage-digest.json"], &dg); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(files["datapackage.json"])
	if dg.Path != "datapackage.json" || dg.Hash != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("datapackage-digest.json %+v", dg)
	}
	pages := strings.Split(strings.TrimSuffix(string(files["pages/pages.jsonl"]), "\n"), "\n")
	if !strings.Contains(pages[0], `"format": "json-pages-1.0"`) {
		t.Errorf("pages.jsonl header %q", pages[0])
	}
	for _, l := range pages[1:] {
		var p map[string]any
		if json.Unmarshal([]byte(l), &p) != nil || p["url"] == nil || p["ts"] == nil {
			t.Errorf("page line %q", l)
		}
	}
	return files
}

func packTest(t *testing.T, dir string) (string, WACZStats) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "crawl.wacz")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	st, err := PackWACZ(f, filepath.Join(dir, "warc"), filepath.Join(dir, "pages.jsonl"), WACZOptions{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return out, st
}

func TestPackWACZ(t *testing.T) {
	dir := t.TempDir()
	w, pw, _ := crawlDir(t, dir, 12)
	if _, err := PackWACZ(io.Discard, filepath.Join(dir, "warc"), "", WACZOptions{}); !errors.Is(err, ErrInUse) {
		t.Errorf("PackWACZ during a crawl: %v, want ErrInUse", err)
	}
	w.Close()
	pw.Close()
	out, st := packTest(t, dir)
	files := checkWACZ(t, out)

	var want []string
	for _, p := range warcFiles(t, filepath.Join(dir, "warc")) {
		b, _ := os.ReadFile(p)
		if !bytes.Equal(files["archive/"+filepath.Base(p)], b) {
			t.Errorf("archive/%s differs from the WARC file", filepath.Base(p))
		}
		want = append(want, readLines(t, p+IndexSuffix)...)
	}
	slices.Sort(want)
	if got := string(files["indexes/index.cdxj"]); got != strings.Join(want, "") {
		t.Errorf("index.cdxj:\n%s\nwant the files' indexes merged:\n%s", got, strings.Join(want, ""))
	}
	if st.WARCFiles < 2 || st.IndexLines != 12 || st.Pages != 12 || st.Dropped != 0 {
		t.Errorf("stats %+v", st)
	}
	var dp map[string]any
	json.Unmarshal(files["datapackage.json"], &dp)
	if dp["mainPageUrl"] != "http://a.example/p/0" || dp["mainPageDate"] != "2026-11-22T01:02:03Z" {
		t.Errorf("main page %v %v", dp["mainPageUrl"], dp["mainPageDate"])
	}
	if !strings.Contains(string(files["pages/pages.jsonl"]), `"url":"http://a.example/p/3","ts":"2026-11-22T01:02:03Z","title":"Page 3","text":"text"}`) {
		t.Errorf("pages.jsonl:\n%s", files["pages/pages.jsonl"])
	}
}

// TestPackWACZFile checks that the package goes to its path whole, with the mode of
// the crawl's other files (0644 less the umask: shared as the WARC files are under
// umask 022, the owner's alone under 077, where a temporary file would be 0600 under
// either), with nothing left beside it.
func TestPackWACZFile(t *testing.T) {
	dir := t.TempDir()
	w, pw, _ := crawlDir(t, dir, 3)
	w.Close()
	pw.Close()
	for _, c := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o077, 0o600}} {
		outDir := t.TempDir()
		out := filepath.Join(outDir, "crawl.wacz")
		old := syscall.Umask(c.umask)
		_, err := PackWACZFile(out, filepath.Join(dir, "warc"), filepath.Join(dir, "pages.jsonl"), WACZOptions{Now: fixedNow})
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		checkWACZ(t, out)
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != c.want {
			t.Errorf("umask %03o: mode %v, want %v", c.umask, got, c.want)
		}
		entries, _ := os.ReadDir(outDir)
		if len(entries) != 1 {
			t.Errorf("%d files in the output directory, want the package alone", len(entries))
		}
	}
}

// TestPackWACZKilled packages a copy of a crawl taken while it ran (a kill),
// its last record torn and its pages file ending in a torn line.
func TestPackWACZKilled(t *testing.T) {
	dir := t.TempDir()
	w, pw, locs := crawlDir(t, dir, 12)
	killed := t.TempDir()
	if err := os.Rename(snapshot(t, filepath.Join(dir, "warc")), filepath.Join(killed, "warc")); err != nil {
		t.Fatal(err)
	}
	pages, _ := os.ReadFile(filepath.Join(dir, "pages.jsonl"))
	os.WriteFile(filepath.Join(killed, "pages.jsonl"), pages, 0o644)
	w.Close()
	pw.Close()
	last := locs[len(locs)-1]
	p := filepath.Join(killed, "warc", last.File)
	if err := os.Truncate(p, last.Offset+last.Length-10); err != nil {
		t.Fatal(err)
	}
	pf, _ := os.OpenFile(filepath.Join(killed, "pages.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	pf.WriteString(`{"url":"http://a.example/torn`)
	pf.Close()

	out, st := packTest(t, killed)
	files := checkWACZ(t, out)
	if got := int64(len(files["archive/"+last.File])); got != last.Offset || st.Dropped != last.Length-10 {
		t.Errorf("torn file stored with %d bytes (dropped %d), want its %d whole bytes", got, st.Dropped, last.Offset)
	}
	if st.IndexLines != 11 || st.Pages != 11 {
		t.Errorf("stats %+v, want the 11 whole pages", st)
	}
	if strings.Contains(string(files["indexes/index.cdxj"]), "/p/11") || strings.Contains(string(files["pages/pages.jsonl"]), "/p/11") {
		t.Errorf("the torn record is indexed or listed")
	}
}

// TestPackWACZFiles packages more files (an audit report) beside the crawl's: stored
// as given and listed with their hashes; a path among the package's own is refused.
func TestPackWACZFiles(t *testing.T) {
	dir := t.TempDir()
	w, pw, _ := crawlDir(t, dir, 3)
	w.Close()
	pw.Close()
	report := []byte(`{"violations":[]}` + "\n")
	out := filepath.Join(t.TempDir(), "crawl.wacz")
	opts := WACZOptions{Now: fixedNow, Files: []WACZFile{{Path: "audit/politeness.json", Data: report}}}
	if _, err := PackWACZFile(out, filepath.Join(dir, "warc"), filepath.Join(dir, "pages.jsonl"), opts); err != nil {
		t.Fatal(err)
	}
	files := checkWACZ(t, out)
	if !bytes.Equal(files["audit/politeness.json"], report) {
		t.Errorf("audit/politeness.json = %q, want %q", files["audit/politeness.json"], report)
	}
	if !strings.Contains(string(files["datapackage.json"]), `"path": "audit/politeness.json"`) {
		t.Errorf("datapackage.json does not list audit/politeness.json:\n%s", files["datapackage.json"])
	}
	for _, bad := range []string{"", "/abs", "../up", "a/../b", "archive/x.warc.gz", "pages/pages.jsonl", "datapackage.json"} {
		opts.Files = []WACZFile{{Path: bad, Data: report}}
		if _, err := PackWACZ(io.Discard, filepath.Join(dir, "warc"), "", opts); !errors.Is(err, ErrInvalid) {
			t.Errorf("PackWACZ with a file at %q: %v, want ErrInvalid", bad, err)
		}
	}
}
