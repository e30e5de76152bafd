package storage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// maxHTTPHead bounds the HTTP head read from a record block when indexing.
const maxHTTPHead = 64 << 10

// IndexWARC reads a WARC file (gzip members, one record each, as WARCWriter
// writes them) from r and calls fn with the CDXJ line, '\n' included, of each
// response and revisit record, in file order; file is the name the lines
// give. It returns the length of the file's longest prefix of whole records:
// it stops without error at the first record that is torn or damaged (the
// tail a crash leaves), so an index never points past it. The line passed to
// fn is only valid until fn returns. Memory stays bounded whatever r holds.
func IndexWARC(r io.Reader, file string, fn func(line []byte) error) (whole int64, err error) {
	c := &byteCounter{br: bufio.NewReaderSize(r, 256<<10)}
	var line []byte
	// Only fn's error is returned: any other ends the index at the last whole record.
	_ = eachRecord(c, func(start int64, br *bufio.Reader) error {
		e, ok := readIndexRecord(br)
		if !ok {
			return errNotWhole
		}
		whole = c.n
		if e == nil {
			return nil
		}
		e.length = c.n - start
		line = e.appendLine(line[:0], file, start)
		err = fn(line)
		return err
	})
	return whole, err
}

// readIndexRecord reads one decompressed record to its end. It returns its
// index entry (nil for records that have none) and whether the record was
// whole.
func readIndexRecord(br *bufio.Reader) (*cdxjEntry, bool) {
	line, err := br.ReadSlice('\n')
	if err != nil || !bytes.HasPrefix(line, []byte("WARC/")) {
		return nil, false
	}
	var e cdxjEntry
	typ := ""
	length := int64(-1)
	headBytes := len(line)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return nil, false
		}
		if headBytes += len(line); headBytes > maxRecordHead {
			return nil, false
		}
		if string(line) == "\r\n" {
			break
		}
		name, value, ok := strings.Cut(string(line), ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "warc-type":
			typ = value
		case "warc-target-uri":
			e.url = value
		case "warc-date":
			e.date = value
		case "warc-payload-digest":
			e.digest = value
		case "warc-identified-payload-type":
			e.detected = value
		case "content-length":
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 {
				return nil, false
			}
			length = n
		}
	}
	if length < 0 {
		return nil, false
	}
	indexed := typ == "response" || typ == "revisit"
	if indexed {
		peek, _ := br.Peek(int(min(length, maxHTTPHead)))
		head := peek
		if i := bytes.Index(peek, []byte("\r\n\r\n")); i >= 0 {
			head = peek[:i+2]
		} else if i := bytes.Index(peek, []byte("\n\n")); i >= 0 {
			head = peek[:i+1]
		}
		e.status, e.mime = httpStatusAndType(head)
		if typ == "revisit" {
			e.mime, e.detected = "warc/revisit", ""
		}
	}
	if n, err := br.Discard(int(min(length, 1<<40))); err != nil || int64(n) != length {
		return nil, false
	}
	var tail [4]byte
	if _, err := io.ReadFull(br, tail[:]); err != nil || string(tail[:]) != "\r\n\r\n" {
		return nil, false
	}
	if n, err := io.Copy(io.Discard, br); err != nil || n != 0 {
		return nil, false
	}
	if !indexed {
		return nil, true
	}
	return &e, true
}

// RebuildIndex indexes the WARC file at path again and writes its sorted
// CDXJ index beside it (path + IndexSuffix), replacing any index there and
// removing a leftover open index. It returns the number of lines written.
func RebuildIndex(path string) (int, error) {
	n, _, err := rebuildIndex(path, -1, false)
	return n, err
}

// rebuildIndex is RebuildIndex reading at most limit bytes of the file (all if
// negative). With keepLonger, an index already there with more lines than the new one
// is kept, and its line count returned as kept (0 otherwise).
func rebuildIndex(path string, limit int64, keepLonger bool) (n, kept int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, fmt.Errorf("storage: index: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if limit >= 0 {
		r = io.LimitReader(f, limit)
	}
	var data []byte
	_, err = IndexWARC(r, filepath.Base(path), func(line []byte) error {
		data = append(data, line...)
		n++
		return nil
	})
	if err == nil && keepLonger {
		if old, rerr := os.ReadFile(path + IndexSuffix); rerr == nil {
			if lines := bytes.Count(old, []byte("\n")); lines > n {
				return n, lines, nil
			}
		}
	}
	if err == nil {
		err = writeSortedIndex(path+IndexSuffix, data, false)
	}
	if err == nil {
		if rerr := os.Remove(path + IndexSuffix + OpenIndexSuffix); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = rerr
		}
	}
	if err != nil {
		return n, 0, fmt.Errorf("storage: index %s: %w", filepath.Base(path), err)
	}
	return n, 0, nil
}

// WARCFiles returns the paths of the WARC files (*.warc.gz) in dir, sorted by
// name, which is the order they were written in.
func WARCFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	var paths []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".warc.gz") {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	return paths, nil
}

// rebuildOpenIndexes rebuilds the index of every WARC file in dir that a
// crash left with an open index (NAME.cdxj.open) or none beside a
// finished WARC file's open index.
func rebuildOpenIndexes(dir string) error {
	paths, err := WARCFiles(dir)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if _, err := os.Stat(p + IndexSuffix + OpenIndexSuffix); err != nil {
			continue
		}
		if _, err := RebuildIndex(p); err != nil {
			return err
		}
	}
	// An open index whose WARC file was removed (it held no whole record).
	left, _ := filepath.Glob(filepath.Join(dir, "*"+IndexSuffix+OpenIndexSuffix))
	for _, o := range left {
		if _, err := os.Stat(strings.TrimSuffix(o, IndexSuffix+OpenIndexSuffix)); errors.Is(err, os.ErrNotExist) {
			os.Remove(o)
		}
	}
	return nil
}

// ErrInUse is returned when a running crawl holds a WARC directory.
var ErrInUse = errors.New("storage: WARC directory in use by a running crawl")

// lockDir takes a shared lock on the digest index of WARC directory dir, so
// that no crawl writes there while the directory is read whole; a running
// crawl holds it exclusively (ErrInUse). A directory without an index needs
// no lock. Call unlock when done.
func lockDir(dir string) (unlock func(), err error) {
	// The index is in dir, or, for a crawl's warc/ directory, beside it in the data
	// directory.
	path := filepath.Join(dir, DigestIndexName)
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join(filepath.Dir(filepath.Clean(dir)), DigestIndexName)
		if _, err := os.Stat(path); err != nil {
			return func() {}, nil
		}
	}
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: 500 * time.Millisecond, ReadOnly: true})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, ErrInUse
	}
	if err != nil {
		return nil, fmt.Errorf("storage: digest index: %w", err)
	}
	return func() { db.Close() }, nil
}

// RebuildIndexes is IndexWARCDir with the zero ToolOptions: it refuses damage.
func RebuildIndexes(dir string, fn func(path string, lines int)) error {
	return IndexWARCDir(dir, ToolOptions{}, fn)
}

// IndexWARCDir rebuilds the CDXJ index of every WARC file of a crawl in dir (see
// RebuildIndex) and calls fn, if not nil, after each with the file's path and its
// number of lines. It first checks every file as CheckWARC does and refuses, writing
// nothing, if one is damaged (a *DamageError naming the file and the byte), unless it
// is the file a crash left open, whose torn end is left out, or opts.Damaged. It never
// replaces an index with a shorter one: such an index is kept (and warned of). Files
// that are not named as a crawl's WARC files are left alone (and warned of). It refuses
// a directory a running crawl writes to (ErrInUse).
func IndexWARCDir(dir string, opts ToolOptions, fn func(path string, lines int)) error {
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	files, err := checkWARCs(dir, &opts)
	if err != nil {
		return err
	}
	for _, w := range files {
		n, kept, err := rebuildIndex(w.path, w.whole, !w.crashed)
		if err != nil {
			return err
		}
		if kept > n {
			opts.warn(w.path+IndexSuffix, "kept: it has %d lines, the file's whole records %d", kept, n)
			n = kept
		}
		if fn != nil {
			fn(w.path, n)
		}
	}
	return nil
}
