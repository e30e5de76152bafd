package storage

import (
	"archive/zip"
	"bufio"
	"bytes"
	"container/heap"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// WACZVersion is the version of the WACZ specification PackWACZ follows.
const WACZVersion = "1.1.1"

// WACZOptions configure PackWACZ. The zero value of each field picks the
// default given beside it.
type WACZOptions struct {
	// Title and Description go into datapackage.json. Zero: "politecrawl
	// crawl" and none.
	Title, Description string
	// Software names the packager in datapackage.json. Zero: DefaultSoftware.
	Software string
	// Now dates the package and its entries. Zero: time.Now.
	Now func() time.Time
	// ToolOptions say what becomes of damaged WARC files (refused by default) and of
	// files not named as a crawl's (left out).
	ToolOptions
	// Files are more files to package, listed in datapackage.json like the others,
	// such as the crawl's audit report. A path must be relative and clean, outside
	// archive/, indexes/ and pages/, and not one of the datapackage files.
	Files []WACZFile
}

// WACZFile is one more file of a WACZ package.
type WACZFile struct {
	Path string // in the package, such as "audit/politeness.json"
	Data []byte
}

// check refuses a path that is not a clean relative path of its own.
func (f WACZFile) check() error {
	p := f.Path
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || strings.HasPrefix(p, "../") || p == ".." ||
		strings.HasPrefix(p, "archive/") || strings.HasPrefix(p, "indexes/") || strings.HasPrefix(p, "pages/") ||
		strings.HasPrefix(p, "datapackage") {
		return fmt.Errorf("storage: %w: WACZ file path %q", ErrInvalid, p)
	}
	return nil
}

// WACZStats says what PackWACZ packaged.
type WACZStats struct {
	WARCFiles  int   // WARC files stored
	WARCBytes  int64 // bytes of WARC stored
	Dropped    int64 // bytes of torn or damaged records left out of WARC files
	Damaged    int   // damaged WARC files of which only the whole records were packed (Damaged)
	IndexLines int   // lines of indexes/index.cdxj
	Pages      int   // lines of pages/pages.jsonl, its header excluded
}

// PackWACZ writes to out a WACZ 1.1.1 package of a crawl: the WARC files of
// warcDir under archive/ (STORED, as replay tools read records in place),
// their CDXJ indexes merged into indexes/index.cdxj, the HTML pages of the
// pages file pagesPath (pages.jsonl; empty or missing: none) as
// pages/pages.jsonl in the WACZ page format, and datapackage.json with the
// size and SHA-256 of each file, then datapackage-digest.json.
//
// It checks every WARC file first, as Verify does, and refuses a damaged one
// (a *DamageError naming the file and the byte), unless opts.Damaged, which
// packs its whole records only; files not named as a crawl's WARC files are
// left out (see ToolOptions). Every byte is read twice (once to check it) and
// memory stays bounded whatever the crawl's size, but for the index lines of
// WARC files without a finished index. It works on a crawl that was killed:
// the WARC file a crash left open is indexed here and stored without its torn
// tail, and torn lines of the pages file are skipped, as are pages whose record
// is not in the package. It refuses a directory a running crawl writes to
// (ErrInUse).
func PackWACZ(out io.Writer, warcDir, pagesPath string, opts WACZOptions) (WACZStats, error) {
	var st WACZStats
	if opts.Software == "" {
		opts.Software = DefaultSoftware
	}
	if opts.Title == "" {
		opts.Title = "politecrawl crawl"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	now := opts.Now().UTC()
	for _, f := range opts.Files {
		if err := f.check(); err != nil {
			return st, err
		}
	}
	unlock, err := lockDir(warcDir)
	if err != nil {
		return st, err
	}
	defer unlock()
	files, err := checkWARCs(warcDir, &opts.ToolOptions)
	if err != nil {
		return st, err
	}

	p := &packer{zw: zip.NewWriter(out), now: now}
	// Each WARC file: its whole length and its index, finished or made here.
	whole := map[string]int64{}
	var sources []indexSource
	var paths []string
	for _, w := range files {
		name := filepath.Base(w.path)
		paths = append(paths, w.path)
		if w.whole == w.size {
			if f, err := os.Open(w.path + IndexSuffix); err == nil {
				whole[name] = w.size
				sources = append(sources, &fileSource{f: f, br: bufio.NewReaderSize(f, 64<<10)})
				defer f.Close()
				continue
			}
		} else if !w.crashed {
			st.Damaged++
		}
		lines, n, err := indexFile(w.path, w.whole)
		if err != nil {
			return st, err
		}
		whole[name] = n
		st.Dropped += w.size - n
		sources = append(sources, &memSource{lines: lines})
	}
	for _, path := range paths {
		name := filepath.Base(path)
		f, err := os.Open(path)
		if err != nil {
			return st, fmt.Errorf("storage: wacz: %w", err)
		}
		err = p.store("archive/"+name, io.LimitReader(f, whole[name]))
		f.Close()
		if err != nil {
			return st, err
		}
		st.WARCFiles++
		st.WARCBytes += whole[name]
	}

	w, err := p.create("indexes/index.cdxj", zip.Deflate)
	if err != nil {
		return st, err
	}
	if st.IndexLines, err = mergeIndexes(w, sources); err != nil {
		return st, fmt.Errorf("storage: wacz: index: %w", err)
	}

	w, err = p.create("pages/pages.jsonl", zip.Deflate)
	if err != nil {
		return st, err
	}
	main, err := waczPages(w, pagesPath, whole, &st.Pages)
	if err != nil {
		return st, err
	}
	if err := p.finishEntry(); err != nil {
		return st, err
	}
	for _, f := range opts.Files {
		w, err := p.create(f.Path, zip.Deflate)
		if err != nil {
			return st, err
		}
		if _, err := w.Write(f.Data); err != nil {
			return st, fmt.Errorf("storage: wacz: %w", err)
		}
	}
	if err := p.finishEntry(); err != nil {
		return st, err
	}

	dp := map[string]any{
		"profile":      "data-package",
		"wacz_version": WACZVersion,
		"title":        opts.Title,
		"created":      now.Format(time.RFC3339),
		"modified":     now.Format(time.RFC3339),
		"software":     opts.Software,
		"resources":    p.resources,
	}
	if opts.Description != "" {
		dp["description"] = opts.Description
	}
	if main != nil {
		dp["mainPageUrl"], dp["mainPageDate"] = main.URL, main.TS
	}
	dpJSON, err := json.MarshalIndent(dp, "", "  ")
	if err != nil {
		return st, fmt.Errorf("storage: wacz: %w", err)
	}
	if err := p.store("datapackage.json", bytes.NewReader(dpJSON)); err != nil {
		return st, err
	}
	sum := sha256.Sum256(dpJSON)
	digest, _ := json.MarshalIndent(map[string]string{
		"path": "datapackage.json",
		"hash": "sha256:" + hex.EncodeToString(sum[:]),
	}, "", "  ")
	p.resources = nil // datapackage-digest.json is not a resource of datapackage.json
	if err := p.store("datapackage-digest.json", bytes.NewReader(digest)); err != nil {
		return st, err
	}
	if err := p.zw.Close(); err != nil {
		return st, fmt.Errorf("storage: wacz: %w", err)
	}
	return st, nil
}

// indexFile indexes the first limit bytes of the WARC file at path and returns
// their lines, sorted, and the length of their whole records.
func indexFile(path string, limit int64) ([][]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("storage: wacz: %w", err)
	}
	defer f.Close()
	var lines [][]byte
	n, err := IndexWARC(io.LimitReader(f, limit), filepath.Base(path), func(l []byte) error {
		lines = append(lines, bytes.Clone(l))
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("storage: wacz: index %s: %w", filepath.Base(path), err)
	}
	slices.SortFunc(lines, bytes.Compare)
	return lines, n, nil
}

// waczResource is one entry of datapackage.json's resources.
type waczResource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"`
	Bytes int64  `json:"bytes"`
}

// packer writes zip entries, hashing each as it goes.
type packer struct {
	zw        *zip.Writer
	now       time.Time
	resources []waczResource

	cur  *waczResource
	h    hash.Hash
	n    int64
	body io.Writer
}

// create starts an entry written through the returned writer; the entry is
// finished by the next create, store or finishEntry.
func (p *packer) create(path string, method uint16) (io.Writer, error) {
	if err := p.finishEntry(); err != nil {
		return nil, err
	}
	w, err := p.zw.CreateHeader(&zip.FileHeader{Name: path, Method: method, Modified: p.now})
	if err != nil {
		return nil, fmt.Errorf("storage: wacz: %w", err)
	}
	p.cur = &waczResource{Name: strings.ToLower(filepath.Base(path)), Path: path}
	p.h, p.n, p.body = sha256.New(), 0, w
	return p, nil
}

// Write writes to the current entry and its hash.
func (p *packer) Write(b []byte) (int, error) {
	p.h.Write(b)
	n, err := p.body.Write(b)
	p.n += int64(n)
	return n, err
}

// finishEntry records the current entry, if any, as a resource.
func (p *packer) finishEntry() error {
	if p.cur == nil {
		return nil
	}
	p.cur.Hash = "sha256:" + hex.EncodeToString(p.h.Sum(nil))
	p.cur.Bytes = p.n
	p.resources = append(p.resources, *p.cur)
	p.cur = nil
	return nil
}

// store copies r into a new STORED entry.
func (p *packer) store(path string, r io.Reader) error {
	w, err := p.create(path, zip.Store)
	if err != nil {
		return err
	}
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	if _, err := io.CopyBuffer(onlyWriter{w}, r, *buf); err != nil {
		return fmt.Errorf("storage: wacz: %s: %w", path, err)
	}
	return p.finishEntry()
}

// copyBuffers holds the buffers of store: 1 MiB, so a copy makes few calls.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// onlyWriter hides a writer's other methods (ReadFrom) so io.CopyBuffer uses
// the buffer given.
type onlyWriter struct{ io.Writer }

// indexSource is a sorted stream of CDXJ lines.
type indexSource interface {
	next() ([]byte, error) // io.EOF at the end
}

type fileSource struct {
	f  *os.File
	br *bufio.Reader
}

func (s *fileSource) next() ([]byte, error) {
	line, err := s.br.ReadBytes('\n')
	if len(line) > 0 && line[len(line)-1] == '\n' {
		return line, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return nil, io.EOF // a line without its newline is not whole
	}
	return nil, err
}

type memSource struct{ lines [][]byte }

func (s *memSource) next() ([]byte, error) {
	if len(s.lines) == 0 {
		return nil, io.EOF
	}
	l := s.lines[0]
	s.lines = s.lines[1:]
	return l, nil
}

// mergeIndexes writes the lines of the sorted sources to w in one sorted
// stream and returns how many it wrote.
func mergeIndexes(w io.Writer, sources []indexSource) (int, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	h := &lineHeap{}
	for _, s := range sources {
		l, err := s.next()
		if errors.Is(err, io.EOF) {
			continue
		}
		if err != nil {
			return 0, err
		}
		h.items = append(h.items, heapItem{l, s})
	}
	heap.Init(h)
	n := 0
	for h.Len() > 0 {
		top := &h.items[0]
		bw.Write(replayLine(top.line)) // an error is kept and returned by Flush
		n++
		l, err := top.src.next()
		switch {
		case errors.Is(err, io.EOF):
			heap.Pop(h)
		case err != nil:
			return n, err
		default:
			top.line = l
			heap.Fix(h, 0)
		}
	}
	return n, bw.Flush()
}

type heapItem struct {
	line []byte
	src  indexSource
}

type lineHeap struct{ items []heapItem }

func (h *lineHeap) Len() int           { return len(h.items) }
func (h *lineHeap) Less(i, j int) bool { return bytes.Compare(h.items[i].line, h.items[j].line) < 0 }
func (h *lineHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *lineHeap) Push(x any)         { h.items = append(h.items, x.(heapItem)) }
func (h *lineHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// waczPage is one line of a WACZ pages file.
type waczPage struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	TS    string `json:"ts"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text,omitempty"`
}

// waczPages writes the WACZ pages file made of the pages file at path: a
// header line, then one line per HTML page with status 2xx whose record lies
// within the whole part of its WARC file; page requisites (a frame's document)
// are not pages of their own. It returns the first page (the
// collection's main page), or nil when there is none.
func waczPages(w io.Writer, path string, whole map[string]int64, count *int) (*waczPage, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}` + "\n")
	var main *waczPage
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) || path == "" {
		return nil, bw.Flush()
	}
	if err != nil {
		return nil, fmt.Errorf("storage: wacz: pages: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for sc.Scan() {
		var pg Page
		if err := pg.UnmarshalJSON(sc.Bytes()); err != nil {
			continue // a torn line a crash left
		}
		end, ok := whole[pg.WARCFile]
		if !ok || pg.WARCOffset+pg.WARCLength > end || pg.Status < 200 || pg.Status > 299 || !htmlType(pg.ContentType) || pg.Requisite != "" {
			continue
		}
		u := pg.FinalURL
		if u == "" {
			u = pg.URL
		}
		ts := pg.FetchedAt.UTC().Truncate(time.Second)
		id := sha1.Sum([]byte(u + " " + ts.Format(time.RFC3339)))
		wp := waczPage{ID: hex.EncodeToString(id[:8]), URL: u, TS: ts.Format(time.RFC3339), Title: pg.Title, Text: pg.Text}
		if err := enc.Encode(&wp); err != nil {
			return nil, fmt.Errorf("storage: wacz: pages: %w", err)
		}
		if main == nil {
			main = &wp
		}
		*count++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("storage: wacz: pages: %w", err)
	}
	return main, bw.Flush()
}

// htmlType reports whether a Content-Type names an HTML document.
func htmlType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// PackWACZFile writes the WACZ package of PackWACZ to the file at path,
// through a temporary file in the same directory renamed into place once
// whole and synced, so path never holds a partial package. The file's mode is
// that of the crawl's other files: 0644 less the umask.
func PackWACZFile(path, warcDir, pagesPath string, opts WACZOptions) (WACZStats, error) {
	f, err := createTemp(path)
	if err != nil {
		return WACZStats{}, fmt.Errorf("storage: wacz: %w", err)
	}
	tmp := f.Name()
	bw := bufio.NewWriterSize(f, 1<<20)
	st, err := PackWACZ(bw, warcDir, pagesPath, opts)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		if !errors.Is(err, ErrInUse) && !strings.HasPrefix(err.Error(), "storage: ") {
			err = fmt.Errorf("storage: wacz: %w", err)
		}
		return st, err
	}
	return st, nil
}

// createTemp creates a new file beside path, named path.<random>.tmp, with the mode
// of every file of a crawl: 0644 less the umask (os.CreateTemp would make it 0600
// whatever the umask).
func createTemp(path string) (*os.File, error) {
	for {
		f, err := os.OpenFile(path+"."+rand.Text()[:10]+".tmp", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
}

// notModifiedStatus is the status field of a server-not-modified revisit's
// CDXJ line (cdxjEntry.appendPrefix), the only line with mime warc/revisit and
// status 304.
var notModifiedStatus = []byte(`"mime":"warc/revisit","status":"304",`)

// replayLine returns the line of the WACZ index for a CDXJ line of a WARC
// file: the same line, but for a server-not-modified revisit, whose status
// 304 is left out. ReplayWeb.page (wabac.js 2.x) answers a capture by the
// status its index line gives, without loading the record when that status
// has no body (101, 204, 205, 304): a 304 line replays as an empty 304. With
// no status it takes 200, loads the revisit record and, from its
// WARC-Refers-To-Target-URI and -Date, the earlier capture's payload: the page
// replays at the revisit's timestamp with the body it stood for. pywb reads a
// line without status as "-" and resolves the revisit the same way. The
// line's key (SURT and timestamp) is unchanged, so the index stays sorted.
func replayLine(line []byte) []byte {
	i := bytes.Index(line, notModifiedStatus)
	if i < 0 {
		return line
	}
	out := make([]byte, 0, len(line))
	out = append(out, line[:i]...)
	out = append(out, `"mime":"warc/revisit",`...)
	return append(out, line[i+len(notModifiedStatus):]...)
}
