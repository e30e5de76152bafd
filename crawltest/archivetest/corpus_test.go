package archivetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	warc "github.com/internetarchive/gowarc"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/storage"
)

// ccCrawlName is the crawl partition of the farm crawl's Parquet index.
const ccCrawlName = "POLITECRAWL-FARM"

// ccSites give four of Common Crawl's example queries matching data: a host under
// commoncrawl.org (get-records-of-domain.sql), a PDF (get-records-of-mime-type.sql), and
// an Icelandic home page (get-records-for-language.sql, get-home-pages-languages.sql).
var ccSites = []crawltest.Site{{
	Host:   "www.commoncrawl.org",
	Robots: &crawltest.Robots{Body: "User-agent: *\nAllow: /\n"},
	Pages: map[string]*crawltest.Page{
		"/":          {Links: []string{"/paper.pdf"}},
		"/paper.pdf": {ContentType: "application/pdf", Body: "%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"},
	},
}, {
	Host:   "www.example.is",
	Robots: &crawltest.Robots{Body: "User-agent: *\nAllow: /\n"},
	Pages: map[string]*crawltest.Page{
		"/": {Body: `<!DOCTYPE html><html lang="is"><head><title>Íslenska</title></head><body><main>
<p>Íslenska er vesturnorrænt, germanskt og indóevrópskt tungumál sem er einkum talað og ritað á
Íslandi og er móðurmál langflestra Íslendinga. Það hefur tekið minni breytingum frá fornnorrænu
en önnur norræn mál og er skyldara norsku og færeysku en sænsku og dönsku.</p></main></body></html>`},
	},
}}

// htmlPages returns the URLs of the pages.jsonl lines of the crawl in dir that are
// HTML pages fetched whole or revisited (2xx).
func htmlPages(t *testing.T, dir string) map[string]bool {
	t.Helper()
	pages := map[string]bool{}
	for _, l := range readLines(t, filepath.Join(dir, "pages.jsonl")) {
		var p struct {
			URL         string `json:"url"`
			Status      int    `json:"status"`
			ContentType string `json:"content_type"`
		}
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatal(err)
		}
		if p.Status >= 200 && p.Status < 300 && strings.Contains(p.ContentType, "html") {
			pages[p.URL] = true
		}
	}
	return pages
}

// TestWETWarcio reads every WET file of the farm crawl with webrecorder's warcio
// (npm): each starts with a warcinfo record, then holds conversion records of
// Content-Type text/plain, one per HTML page of pages.jsonl, each referring to
// the response (or revisit) record of its URL in the WARC file of the same name.
func TestWETWarcio(t *testing.T) {
	dir := crawlDir(t)
	node := need(t, "node", lookPath("node"))
	cli := need(t, "warcio", filepath.Join(nodeModules(), "warcio", "dist", "cli.js"))
	warcs, err := storage.WARCFiles(filepath.Join(dir, "warc"))
	if err != nil || len(warcs) == 0 {
		t.Fatalf("WARC files %v, %v", warcs, err)
	}
	want := htmlPages(t, dir)
	if len(want) < 10 {
		t.Fatalf("%d HTML pages in the farm crawl, want at least 10", len(want))
	}
	seen := map[string]int{}
	for _, w := range warcs {
		ids := map[string]string{} // record ID → target URI
		for _, r := range readGowarc(t, w) {
			ids[r.Get("WARC-Record-ID")] = r.Get("WARC-Target-URI")
		}
		wet := filepath.Join(filepath.Dir(w), storage.WETName(filepath.Base(w)))
		langs := 0
		cmd := exec.Command(node, cli, "index", wet, "-f", "offset", "-f", "warc-type", "-f", "warc-target-uri",
			"-f", "warc-refers-to", "-f", "content-type", "-f", "warc-filename", "-f", "warc-identified-content-language")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("warcio index %s: %v\n%s", wet, err, stderr.String())
		}
		for i, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("warcio line %q: %v", l, err)
			}
			typ, _ := rec["warc-type"].(string)
			if i == 0 {
				if typ != "warcinfo" || rec["warc-filename"] != filepath.Base(wet) {
					t.Errorf("%s starts with %v, want its warcinfo record", filepath.Base(wet), rec)
				}
				continue
			}
			uri, _ := rec["warc-target-uri"].(string)
			to, _ := rec["warc-refers-to"].(string)
			if typ != "conversion" || rec["content-type"] != "text/plain" || ids[to] != uri {
				t.Errorf("%s: record %v: want a text/plain conversion record referring to %s's response in %s", filepath.Base(wet), rec, uri, filepath.Base(w))
			}
			seen[uri]++
			if l, _ := rec["warc-identified-content-language"].(string); l != "" {
				langs++
			}
			if uri == "http://www.example.is/" && rec["warc-identified-content-language"] != "isl" {
				t.Errorf("%s: WARC-Identified-Content-Language %v, want isl", uri, rec["warc-identified-content-language"])
			}
		}
		if langs == 0 {
			t.Errorf("%s: no record names its languages", filepath.Base(wet))
		}
	}
	for u := range want {
		if seen[u] != 1 {
			t.Errorf("%s: %d conversion records, want 1", u, seen[u])
		}
	}
	for u, n := range seen {
		if !want[u] {
			t.Errorf("%s: %d conversion records, but no HTML page in pages.jsonl", u, n)
		}
	}
	t.Logf("warcio read %d conversion records in %d WET files, one per HTML page", len(seen), len(warcs))
}

// readGowarc reads every record header of a WARC file with gowarc.
func readGowarc(t *testing.T, path string) []warc.Header {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return readHeaders(t, f, path)
}

func readHeaders(t *testing.T, r io.Reader, what string) []warc.Header {
	t.Helper()
	rd, err := warc.NewReader(r)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer rd.Close()
	var out []warc.Header
	for {
		rec, err := rd.ReadRecord()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		out = append(out, rec.Header)
		rec.Content.Close()
	}
}

// ccExpect says, for each Common Crawl example query DuckDB runs on an empty
// table of the flat schema, whether it returns rows on the farm crawl's index;
// where not, why the farm has no matching data.
var ccExpect = map[string]string{
	"compare-mime-type-http-vs-detected.sql": "",
	"count-by-partition.sql":                 "",
	"count-by-tld-page-host-domain.sql":      "",
	"count-fetch-status.sql":                 "",
	"count-domains-of-tld.sql":               "no host in .no, and no domain with 100 pages",
	"count-language-tld.sql":                 "no pair of language and TLD has 1000 pages",
	"get-records-for-language.sql":           "",
	"get-records-of-domain.sql":              "",
	"get-records-of-mime-type.sql":           "",
	"correlation-language-charset.sql":       "no pair of language and charset has 100 pages",
	"loglikelihood-language-tld.sql":         "no pair of language and TLD has 1000 pages",
	"get-home-pages-languages.sql":           "",
}

// TestCCIndexDuckDB runs Common Crawl's example queries (testdata/cc-index, from
// cc-index-table) in DuckDB against "ccindex"."ccindex", a view over the farm
// crawl's Parquet index: its columns have the flat schema's names and types; every
// query DuckDB runs on an empty table of that schema runs on ours, returning rows
// where the farm has matching data (the crawl name in WHERE replaced by ours); and
// every row's (warc_filename, warc_record_offset, warc_record_length) reads back,
// with gowarc, a record whose WARC-Target-URI is the row's url.
func TestCCIndexDuckDB(t *testing.T) {
	dir := crawlDir(t)
	node := need(t, "node", lookPath("node"))
	need(t, "@duckdb/node-api", filepath.Join(nodeModules(), "@duckdb", "node-api", "package.json"))
	script, _ := filepath.Abs(filepath.Join("testdata", "ccindex.mjs"))
	queries, _ := filepath.Abs(filepath.Join("testdata", "cc-index"))
	cmd := exec.Command(node, script, nodeModules(), queries, filepath.Join(dir, crawl.ParquetDirName), ccCrawlName)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ccindex.mjs: %v\n%s", err, stderr.String())
	}
	var res struct {
		Columns int
		Empty   [][2]string
		Ours    [][2]string
		Queries map[string]struct {
			Empty, Ours struct {
				OK    bool
				Rows  int
				Error string
			}
		}
		Rows []struct {
			URL    string `json:"url"`
			File   string `json:"warc_filename"`
			Offset int64  `json:"warc_record_offset"`
			Length int64  `json:"warc_record_length"`
			Subset string `json:"subset"`
		}
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("ccindex.mjs output: %v\n%s", err, out)
	}

	// The flat schema's columns, in its order and with its types, then ours, then
	// the partitions (hive directories).
	if res.Columns != 32 || len(res.Empty) != 32 {
		t.Fatalf("flat schema read as %d columns (%d in DuckDB), want 30 and crawl, subset", res.Columns, len(res.Empty))
	}
	ours := map[string]string{}
	for _, c := range res.Ours {
		ours[c[0]] = c[1]
	}
	for i, c := range res.Empty {
		if ours[c[0]] != c[1] {
			t.Errorf("column %s: %q in our index, %q in Common Crawl's schema", c[0], ours[c[0]], c[1])
		}
		if i < 30 && (i >= len(res.Ours) || res.Ours[i][0] != c[0]) {
			t.Errorf("column %d is not %s", i, c[0])
		}
	}

	runnable := 0
	for name, q := range res.Queries {
		if !q.Empty.OK {
			t.Logf("%s: DuckDB does not run it on Common Crawl's own schema either: %s", name, q.Empty.Error)
			continue
		}
		runnable++
		if !q.Ours.OK {
			t.Errorf("%s runs on Common Crawl's schema but not on ours: %s", name, q.Ours.Error)
			continue
		}
		why, known := ccExpect[name]
		switch {
		case !known:
			t.Errorf("%s: runs (%d rows) but has no expectation in ccExpect", name, q.Ours.Rows)
		case why == "" && q.Ours.Rows == 0:
			t.Errorf("%s: no rows from the farm crawl", name)
		case why != "" && q.Ours.Rows > 0:
			t.Errorf("%s: %d rows, where ccExpect says none: %s", name, q.Ours.Rows, why)
		default:
			t.Logf("%s: %d rows on ours %s", name, q.Ours.Rows, why)
		}
	}
	if runnable != len(ccExpect) {
		t.Errorf("%d of %d example queries run in DuckDB on Common Crawl's schema, ccExpect lists %d", runnable, len(res.Queries), len(ccExpect))
	}

	// Every row points at a record of its url.
	subsets := map[string]int{}
	files := map[string]*os.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, r := range res.Rows {
		subsets[r.Subset]++
		f := files[r.File]
		if f == nil {
			if f, err = os.Open(filepath.Join(dir, filepath.FromSlash(r.File))); err != nil {
				t.Fatalf("row of %s: %v", r.URL, err)
			}
			files[r.File] = f
		}
		off, n := r.Offset, r.Length
		hs := readHeaders(t, bufio.NewReader(io.NewSectionReader(f, off, n)), r.File)
		if len(hs) != 1 || hs[0].Get("WARC-Target-URI") != r.URL {
			t.Errorf("row of %s: %s@%d+%d holds %d records, not one of its url", r.URL, r.File, off, n, len(hs))
		}
	}
	if subsets["warc"] == 0 || subsets["robotstxt"] == 0 || subsets["crawldiagnostics"] == 0 {
		t.Errorf("rows by subset %v, want some in each", subsets)
	}
	t.Logf("%d of %d example queries run in DuckDB on Common Crawl's schema and on ours; %d rows read back by gowarc (%v)",
		runnable, len(res.Queries), len(res.Rows), subsets)
}
