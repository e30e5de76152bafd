package storage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// FileCheck is what CheckWARC found in one WARC file.
type FileCheck struct {
	File    string // base name of the file
	Size    int64  // bytes in the file
	Records int    // whole records read before End
	// End is where the whole records stop: Size when the file is whole.
	End int64
	// Problem says what is wrong at End (a torn gzip member, a record header cut
	// short, a Content-Length that does not match the block, ...); empty when the
	// file is whole.
	Problem string
	// Starts holds the offset of each whole record's gzip member, in order.
	Starts []int64
}

// Whole reports whether the file is made of whole records and nothing else.
func (c *FileCheck) Whole() bool { return c.Problem == "" && c.End == c.Size }

// CheckWARC reads the WARC file at path gzip member by gzip member and checks
// that each holds one whole record: intact member (CRC and size), WARC version
// line, header, a block of Content-Length bytes followed by CRLF CRLF. It stops
// at the first damage, which FileCheck describes; the error is for a file it
// cannot read. Memory stays bounded but for Starts.
func CheckWARC(path string) (FileCheck, error) {
	c := FileCheck{File: filepath.Base(path)}
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("storage: check: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return c, fmt.Errorf("storage: check: %w", err)
	}
	c.Size = fi.Size()
	end, records, problem := scan(io.NewSectionReader(f, 0, c.Size), &c.Starts)
	c.End, c.Records = end, records
	switch {
	case problem != nil:
		c.Problem = problem.Error()
	case records == 0:
		c.Problem = "no record"
	}
	return c, nil
}

// tailWindows are the sizes of the file ends checkTail reads, in turn, to find
// the start of a run of whole records that reaches the end of the file.
var tailWindows = []int64{256 << 10, 4 << 20, 64 << 20}

// checkTail checks the end of the WARC file at path, cheaply: it looks in its
// last bytes for a gzip member from which whole records run to the end of the
// file, in larger windows if needed, and reads the whole file as a last resort.
// written is the size the digest index recorded as durable for the file (0 if
// unknown): a shorter file was cut. Records in the result counts those read.
func checkTail(path string, written int64) (FileCheck, error) {
	c := FileCheck{File: filepath.Base(path)}
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("storage: check: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return c, fmt.Errorf("storage: check: %w", err)
	}
	c.Size = fi.Size()
	if c.Size < written {
		c.End = c.Size
		c.Problem = fmt.Sprintf("file is %d bytes, %d were written: cut short", c.Size, written)
		return c, nil
	}
	magic := []byte{0x1f, 0x8b, 0x08}
	for _, w := range tailWindows {
		if w >= c.Size {
			break
		}
		buf := make([]byte, w)
		start := c.Size - w
		if _, err := f.ReadAt(buf, start); err != nil {
			return c, fmt.Errorf("storage: check: %w", err)
		}
		for i := 0; ; i++ {
			j := bytes.Index(buf[i:], magic)
			if j < 0 {
				break
			}
			i += j
			end, records, problem := scan(io.NewSectionReader(f, start+int64(i), c.Size-start-int64(i)), nil)
			if problem == nil && records > 0 && start+int64(i)+end == c.Size {
				c.End, c.Records = c.Size, records
				return c, nil
			}
		}
	}
	full, err := CheckWARC(path)
	full.Starts = nil
	return full, err
}

// PageProblem is a line of pages.jsonl that does not match the WARC files.
type PageProblem struct {
	Line    int    // 1 for the first line
	URL     string // the page's URL, when the line could be read
	Problem string
}

// PagesCheck is what CheckPages found.
type PagesCheck struct {
	Lines    int           // lines read
	Problems int           // lines with a problem
	First    []PageProblem // the first maxProblems of them
}

// maxProblems bounds PagesCheck.First.
const maxProblems = 100

// CheckPages reads the pages file at path and checks each line against the WARC
// files in warcDir, whose checks (from CheckWARC) warcs gives by base name: the line
// must be a page, its warc_file must exist, and warc_offset and warc_length must
// span whole records of that file. A last line without its newline is a problem
// too. The error is for a file it cannot read.
func CheckPages(path, warcDir string, warcs map[string]*FileCheck) (PagesCheck, error) {
	var c PagesCheck
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("storage: check: %w", err)
	}
	defer f.Close()
	report := func(line int, url, format string, args ...any) {
		c.Problems++
		if len(c.First) < maxProblems {
			c.First = append(c.First, PageProblem{Line: line, URL: url, Problem: fmt.Sprintf(format, args...)})
		}
	}
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) == 0 {
			if err != nil && err != io.EOF {
				return c, fmt.Errorf("storage: check: %w", err)
			}
			break
		}
		c.Lines++
		n := c.Lines
		if line[len(line)-1] != '\n' {
			report(n, "", "last line has no newline (torn?)")
		}
		var pg Page
		if err := json.Unmarshal(bytes.TrimRight(line, "\n"), &pg); err != nil {
			report(n, "", "not a page: %v", err)
			continue
		}
		if pg.WARCFile == "" || filepath.Base(pg.WARCFile) != pg.WARCFile {
			report(n, pg.URL, "bad warc_file %q", pg.WARCFile)
			continue
		}
		w, ok := warcs[pg.WARCFile]
		if !ok {
			if _, err := os.Stat(filepath.Join(warcDir, pg.WARCFile)); errors.Is(err, os.ErrNotExist) {
				report(n, pg.URL, "%s: no such WARC file", pg.WARCFile)
			} else {
				report(n, pg.URL, "%s: not checked", pg.WARCFile)
			}
			continue
		}
		end := pg.WARCOffset + pg.WARCLength
		switch {
		case end > w.Size:
			report(n, pg.URL, "%s: record at %d+%d ends past the end of the file (%d bytes)", w.File, pg.WARCOffset, pg.WARCLength, w.Size)
		case end > w.End:
			report(n, pg.URL, "%s: record at %d+%d is in the damaged part of the file (from %d)", w.File, pg.WARCOffset, pg.WARCLength, w.End)
		case !isStart(w, pg.WARCOffset) || !isStart(w, end):
			report(n, pg.URL, "%s: %d+%d is not a whole record", w.File, pg.WARCOffset, pg.WARCLength)
		}
	}
	return c, nil
}

// isStart reports whether off is where a whole record's member starts in w, or
// where the whole records end.
func isStart(w *FileCheck, off int64) bool {
	if off == w.End {
		return true
	}
	_, ok := slices.BinarySearch(w.Starts, off)
	return ok
}

// Verify checks every WARC file in warcDir with CheckWARC, calling fn, if not nil,
// after each, and then the pages file at pagesPath against them with CheckPages (no
// pages file, or an empty pagesPath, skips that). A file shorter than the size the
// digest index records as written is damaged too, even if it ends on a whole record.
// It refuses a directory a running crawl writes to (ErrInUse). The error is for what
// it cannot read; damage is in the results.
func Verify(warcDir, pagesPath string, fn func(*FileCheck)) ([]*FileCheck, *PagesCheck, error) {
	unlock, err := lockDir(warcDir)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	written, err := writtenSizes(warcDir)
	if err != nil {
		return nil, nil, err
	}
	paths, err := WARCFiles(warcDir)
	if err != nil {
		return nil, nil, err
	}
	var checks []*FileCheck
	byName := make(map[string]*FileCheck)
	for _, p := range paths {
		c, err := CheckWARC(p)
		if err != nil {
			return checks, nil, err
		}
		if n := written[c.File]; c.Size < n && c.Problem == "" {
			c.Problem = fmt.Sprintf("file is %d bytes, %d were written: cut short", c.Size, n)
		}
		checks = append(checks, &c)
		byName[c.File] = &c
		if fn != nil {
			fn(&c)
		}
	}
	if pagesPath == "" {
		return checks, nil, nil
	}
	if _, err := os.Stat(pagesPath); errors.Is(err, os.ErrNotExist) {
		return checks, nil, nil
	}
	pc, err := CheckPages(pagesPath, warcDir, byName)
	if err != nil {
		return checks, nil, err
	}
	return checks, &pc, nil
}

// writtenSizes reads the sizes the digest index of warcDir records as written,
// by file; none if there is no index.
func writtenSizes(warcDir string) (map[string]int64, error) {
	sizes := make(map[string]int64)
	path := filepath.Join(warcDir, DigestIndexName)
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join(filepath.Dir(filepath.Clean(warcDir)), DigestIndexName)
		if _, err := os.Stat(path); err != nil {
			return sizes, nil
		}
	}
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: 500 * time.Millisecond, ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("storage: digest index: %w", err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketFiles)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				sizes[string(k)] = n
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("storage: digest index: %w", err)
	}
	return sizes, nil
}
