package storage

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// ParquetSuffix ends the name of a WARC file's Parquet index files: one per
// subset, crawl=NAME/subset=S/crawl-…-00001.warc.gz.parquet.
const ParquetSuffix = ".parquet"

// maxParquetFileSize bounds MaxFileSize when the writer keeps a Parquet index:
// warc_record_offset is an INT (32 bits) in Common Crawl's schema.
const maxParquetFileSize = 1<<31 - 1

// parquetIndex keeps the Parquet index of each WARC file a WARCWriter writes: the
// rows of its response and revisit records, in memory until the file is closed,
// then written sorted by SURT key, one file per subset. A crash loses the rows of
// the open file; OpenWARC rebuilds them from the WARC file. Errors are sticky
// and returned by finish and Close; they never fail a WARC write.
type parquetIndex struct {
	dir     string // the index of the crawl: <Parquet>/crawl=<name>
	warcRel string // the WARC directory as warc_filename names it: its base name
	noSync  bool

	mu    sync.Mutex
	files map[string][]subsetRow // by WARC file name
	err   error
}

type subsetRow struct {
	subset string
	row    ccRow
}

func newParquetIndex(opts *WARCOptions) *parquetIndex {
	if opts.Parquet == "" {
		return nil
	}
	return &parquetIndex{
		dir:     filepath.Join(opts.Parquet, "crawl="+opts.CrawlName),
		warcRel: filepath.Base(filepath.Clean(opts.Dir)),
		noSync:  opts.NoSync,
		files:   make(map[string][]subsetRow),
	}
}

// add queues the row of capture c, whose record lies at off, length bytes long,
// in WARC file name.
func (p *parquetIndex) add(name string, off, length int64, c *ccCapture) {
	r := c.row(p.warcRel+"/"+name, off, length, segment(name))
	p.mu.Lock()
	p.files[name] = append(p.files[name], subsetRow{c.subset(), r})
	p.mu.Unlock()
}

// finish writes the index files of WARC file name, closed.
func (p *parquetIndex) finish(name string) error {
	p.mu.Lock()
	rows := p.files[name]
	delete(p.files, name)
	p.mu.Unlock()
	err := writeParquetFiles(p.dir, name, rows, p.noSync)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil && p.err == nil {
		p.err = err
	}
	return p.err
}

// close returns the sticky error.
func (p *parquetIndex) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// segment names the segment of WARC file name, Common Crawl's batch of fetches:
// here the time its file started (the 14 digits of its name).
func segment(name string) string {
	parts := strings.Split(strings.TrimSuffix(name, ".warc.gz"), "-")
	if len(parts) >= 3 {
		return parts[len(parts)-2]
	}
	return name
}

// parquetSubsets are Common Crawl's subsets, the partitions of a crawl.
var parquetSubsets = []string{"warc", "robotstxt", "crawldiagnostics"}

// writeParquetFiles writes rows, by subset, to dir/subset=S/name.parquet, each
// through a temporary file renamed into place; a subset without rows has no file
// (and loses the one an earlier build left).
func writeParquetFiles(dir, name string, rows []subsetRow, noSync bool) error {
	for _, s := range parquetSubsets {
		var sub []ccRow
		for i := range rows {
			if rows[i].subset == s {
				sub = append(sub, rows[i].row)
			}
		}
		path := filepath.Join(dir, "subset="+s, name+ParquetSuffix)
		if len(sub) == 0 {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("storage: parquet index: %w", err)
			}
			continue
		}
		slices.SortStableFunc(sub, func(a, b ccRow) int {
			return cmp.Or(strings.Compare(a.URLSurtkey, b.URLSurtkey), a.FetchTime.Compare(b.FetchTime))
		})
		if err := writeParquet(path, sub, noSync); err != nil {
			return fmt.Errorf("storage: parquet index: %w", err)
		}
	}
	return nil
}

// writeParquet writes rows to the Parquet file path, zstd-compressed.
func writeParquet(path string, rows []ccRow, noSync bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeReplacing(path, noSync, func(w io.Writer) error {
		pw := parquet.NewGenericWriter[ccRow](w, parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
			parquet.CreatedBy("politecrawl", "", ""))
		_, err := pw.Write(rows)
		if cerr := pw.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// hasParquet reports whether the Parquet index of WARC file name exists in any
// subset of crawl directory dir.
func hasParquet(dir, name string) bool {
	for _, s := range parquetSubsets {
		if _, err := os.Stat(filepath.Join(dir, "subset="+s, name+ParquetSuffix)); err == nil {
			return true
		}
	}
	return false
}

// rebuildMissingParquet writes the Parquet index of every WARC file in the
// writer's directory that has none (a crash before the file closed, or a crawl
// that did not keep one).
func (w *WARCWriter) rebuildMissingParquet() error {
	if w.pq == nil {
		return nil
	}
	paths, err := WARCFiles(w.opts.Dir)
	if err != nil {
		return err
	}
	for _, path := range paths {
		if hasParquet(w.pq.dir, filepath.Base(path)) {
			continue
		}
		if _, err := rebuildParquet(path, w.pq.dir, w.pq.warcRel, w.opts.NoSync); err != nil {
			return err
		}
	}
	return nil
}

// RebuildParquet writes the Parquet index of every WARC file in warcDir into
// indexDir/crawl=<crawl>/subset=…/, as a WARCWriter with WARCOptions.Parquet
// writes it, reading each WARC file (and its WET file, for languages). fn, when not
// nil, is called after each file with its path and its number of rows. It refuses
// a directory a running crawl writes to (ErrInUse).
func RebuildParquet(warcDir, indexDir, crawl string, fn func(path string, rows int)) error {
	unlock, err := lockDir(warcDir)
	if err != nil {
		return err
	}
	defer unlock()
	paths, err := WARCFiles(warcDir)
	if err != nil {
		return err
	}
	dir := filepath.Join(indexDir, "crawl="+crawl)
	rel := filepath.Base(filepath.Clean(warcDir))
	for _, path := range paths {
		n, err := rebuildParquet(path, dir, rel, false)
		if err != nil {
			return err
		}
		if fn != nil {
			fn(path, n)
		}
	}
	return nil
}

// rebuildParquet writes the index of the WARC file at path into crawl directory
// dir and returns its number of rows.
func rebuildParquet(path, dir, warcRel string, noSync bool) (int, error) {
	rows, err := parquetRows(path, warcRel)
	if err != nil {
		return 0, err
	}
	return len(rows), writeParquetFiles(dir, filepath.Base(path), rows, noSync)
}

// parquetRows reads the rows of the WARC file at path: one per response and
// revisit record, with what its metadata record and the conversion record of
// its WET file add. It reads the whole records that start the file; a damaged
// tail is left out.
func parquetRows(path, warcRel string) ([]subsetRow, error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("storage: parquet index: %w", err)
	}
	defer f.Close()
	type placed struct {
		c        ccCapture
		off, len int64
	}
	var caps []placed
	byID := map[string]int{}
	meta := map[string]metaColumns{}
	c := &byteCounter{br: bufio.NewReaderSize(f, 64<<10)}
	err = eachRecord(c, func(start int64, br *bufio.Reader) error {
		h := map[string]string{}
		length, err := readRecordHead(br, func(name, value string) { h[strings.ToLower(name)] = value })
		if err != nil {
			return err
		}
		block := io.LimitReader(br, length)
		switch h["warc-type"] {
		case "response", "revisit":
			head, err := readHTTPHead(block)
			if err != nil {
				return err
			}
			date, _ := time.Parse(time.RFC3339Nano, h["warc-date"])
			uri := h["warc-target-uri"]
			cc := newCCCapture(uri, date, head, isRobotsURL(uri))
			cc.detected, cc.digest, cc.truncated = h["warc-identified-payload-type"], h["warc-payload-digest"], h["warc-truncated"]
			cc.revisit = h["warc-type"] == "revisit"
			byID[h["warc-record-id"]] = len(caps)
			caps = append(caps, placed{c: cc, off: start})
		case "metadata":
			mc, err := readMetaColumns(block)
			if err != nil {
				return err
			}
			meta[h["warc-concurrent-to"]] = mc
		}
		if _, err := io.Copy(io.Discard, block); err != nil {
			return err
		}
		if err := readRecordEnd(br); err != nil {
			return err
		}
		if i, ok := byID[h["warc-record-id"]]; ok && caps[i].off == start {
			caps[i].len = c.n - start
		}
		return nil
	})
	if err != nil && len(caps) > 0 && caps[len(caps)-1].len == 0 {
		caps = caps[:len(caps)-1] // the damaged record
	}
	langs, err := wetLanguages(filepath.Join(filepath.Dir(path), WETName(name)))
	if err != nil {
		return nil, err
	}
	rows := make([]subsetRow, 0, len(caps))
	for id, i := range byID {
		if i >= len(caps) {
			continue
		}
		p := &caps[i]
		p.c.meta = meta[id]
		p.c.languages = langs[id]
		rows = append(rows, subsetRow{p.c.subset(), p.c.row(warcRel+"/"+name, p.off, p.len, segment(name))})
	}
	return rows, nil
}

// readHTTPHead reads the HTTP head at the start of a record block, to its empty
// line, at most maxRecordHead bytes.
func readHTTPHead(r io.Reader) ([]byte, error) {
	var head bytes.Buffer
	br := bufio.NewReaderSize(io.LimitReader(r, maxRecordHead), 4096)
	for {
		line, err := br.ReadSlice('\n')
		head.Write(line)
		if err != nil || len(bytes.TrimRight(line, "\r\n")) == 0 {
			return head.Bytes(), nil
		}
	}
}

// readMetaColumns reads the fields of a metadata record block that go into a
// row.
func readMetaColumns(r io.Reader) (metaColumns, error) {
	var mc metaColumns
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 16<<20) // a pages-line carries the text with storage.text
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "robots-rule":
			mc.robotsRule = v
		case "robots-content-signal":
			mc.contentSignal = v
		case "opt-out":
			mc.optOut = v
		case pagesLineField:
			var p struct {
				SimHash string `json:"simhash"`
			}
			if json.Unmarshal([]byte(v), &p) == nil {
				mc.simhash = p.SimHash
			}
		}
	}
	if err := sc.Err(); err != nil && err != bufio.ErrTooLong {
		return mc, err
	}
	return mc, nil
}

// wetLanguages returns the WARC-Identified-Content-Language of each conversion
// record of the WET file at path, by the record it refers to; none if there is no
// WET file.
func wetLanguages(path string) (map[string]string, error) {
	langs := map[string]string{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return langs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("storage: parquet index: %w", err)
	}
	defer f.Close()
	c := &byteCounter{br: bufio.NewReaderSize(f, 64<<10)}
	eachRecord(c, func(_ int64, br *bufio.Reader) error {
		var to, lang string
		length, err := readRecordHead(br, func(name, value string) {
			switch {
			case strings.EqualFold(name, "WARC-Refers-To"):
				to = value
			case strings.EqualFold(name, "WARC-Identified-Content-Language"):
				lang = value
			}
		})
		if err != nil {
			return err
		}
		if n, err := br.Discard(int(min(length, 1<<40))); err != nil || int64(n) != length {
			return io.ErrUnexpectedEOF
		}
		if err := readRecordEnd(br); err != nil {
			return err
		}
		if lang != "" {
			langs[to] = lang
		}
		return nil
	})
	return langs, nil
}
