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

	"github.com/klauspost/compress/gzip"
)

// maxRecordHead bounds the WARC header of one record when scanning a file.
const maxRecordHead = 64 << 10

// byteCounter counts the bytes a gzip reader takes from br. It implements
// io.ByteReader, so the reader takes exactly one member and no more.
type byteCounter struct {
	br *bufio.Reader
	n  int64
}

func (c *byteCounter) Read(p []byte) (int, error) {
	n, err := c.br.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *byteCounter) ReadByte() (byte, error) {
	b, err := c.br.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// scanMembers reads r, which holds gzip members each holding one WARC record,
// and returns the length of its longest prefix made of whole records (each
// member intact, its CRC and size right, its record's Content-Length matching
// its block and followed by CRLF CRLF) and how many records that prefix holds.
// It reads records as streams: memory stays bounded whatever r holds.
func scanMembers(r io.Reader) (end int64, records int) {
	end, records, _ = scan(r, nil)
	return end, records
}

// scan is scanMembers that also says what is wrong at end (nil when r ends
// there cleanly) and, when starts is not nil, appends the offset of each whole
// record's member to it.
func scan(r io.Reader, starts *[]int64) (end int64, records int, problem error) {
	c := &byteCounter{br: bufio.NewReaderSize(r, 64<<10)}
	problem = eachRecord(c, func(_ int64, br *bufio.Reader) error {
		if err := checkRecord(br); err != nil {
			return err
		}
		if starts != nil {
			*starts = append(*starts, end)
		}
		end = c.n
		records++
		return nil
	})
	return end, records, problem
}

// eachRecord reads c's gzip members one after another, from c's position, each
// holding one WARC record, and calls record with the member's offset and a reader
// of its decompressed bytes; record must read the record to its end (c.n is then the
// member's end) and return nil if it is whole. eachRecord returns nil at a clean end
// of input (c ends where a member ended), the error of a read, of a member that is
// no gzip stream, or of record. Memory stays bounded whatever c holds.
func eachRecord(c *byteCounter, record func(start int64, br *bufio.Reader) error) error {
	var zr *gzip.Reader
	br := bufio.NewReaderSize(nil, maxRecordHead)
	for {
		if _, err := c.br.Peek(1); err != nil {
			if err != io.EOF {
				return err
			}
			return nil
		}
		start := c.n
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(c)
		} else {
			err = zr.Reset(c)
		}
		if err != nil {
			return fmt.Errorf("gzip member: %w", err)
		}
		zr.Multistream(false)
		br.Reset(zr)
		if err := record(start, br); err != nil {
			return err
		}
	}
}

// checkRecord reads one decompressed record to its end and reports whether
// it is whole. br must be able to buffer maxRecordHead bytes.
func checkRecord(br *bufio.Reader) error {
	length, err := readRecordHead(br, nil)
	if err != nil {
		return err
	}
	if n, err := br.Discard(int(min(length, 1<<40))); err != nil || int64(n) != length {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("block cut short: %d of %d bytes (Content-Length): %w", n, length, err)
	}
	return readRecordEnd(br)
}

// readRecordHead reads a record's version line and header, calls field (when not
// nil) with the name and value of each field, spaces trimmed, and returns the
// record's Content-Length. It fails on a missing version line, a header cut short
// or longer than maxRecordHead, and a missing or bad Content-Length.
func readRecordHead(br *bufio.Reader, field func(name, value string)) (int64, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, fmt.Errorf("no WARC version line: %w", err)
	}
	if !bytes.HasPrefix(line, []byte("WARC/")) || !bytes.HasSuffix(line, []byte("\r\n")) {
		return 0, errors.New("no WARC version line")
	}
	length := int64(-1)
	headBytes := len(line)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, fmt.Errorf("header cut short: %w", err)
		}
		headBytes += len(line)
		if headBytes > maxRecordHead {
			return 0, errors.New("header too long")
		}
		if string(line) == "\r\n" {
			break
		}
		name, value, ok := strings.Cut(string(line), ":")
		if !ok {
			continue
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if strings.EqualFold(name, "Content-Length") {
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 {
				return 0, errors.New("bad Content-Length")
			}
			length = n
		}
		if field != nil {
			field(name, value)
		}
	}
	if length < 0 {
		return 0, errors.New("no Content-Length")
	}
	return length, nil
}

// readRecordEnd reads what follows a record's block: the CRLF CRLF that ends the
// record, then the end of its gzip member, which must come right there.
func readRecordEnd(br *bufio.Reader) error {
	var tail [4]byte
	if _, err := io.ReadFull(br, tail[:]); err != nil {
		return fmt.Errorf("no record end: %w", err)
	}
	if string(tail[:]) != "\r\n\r\n" {
		return errors.New("no CRLF CRLF after the block: Content-Length wrong")
	}
	// The member must end right here; reading to EOF checks its CRC and size.
	if n, err := io.Copy(io.Discard, br); err != nil {
		return fmt.Errorf("gzip member damaged: %w", err)
	} else if n != 0 {
		return fmt.Errorf("gzip member holds %d bytes after its record", n)
	}
	return nil
}

// Recovery says what OpenWARC found at the end of the newest WARC file of a
// previous run and cut off: the torn tail a crash leaves behind. In Repairs it
// also describes a temporary file (NAME.warc.gz.tmp) that a crash left while a
// WARC file started, removed whole.
type Recovery struct {
	File    string // base name of the file
	Kept    int64  // bytes of whole records kept
	Cut     int64  // bytes cut off the end, or removed
	Removed bool   // the file held no whole record and was removed
}

// Repairs returns what OpenWARC repaired: the torn tail cut from the newest
// file of an earlier run, or that file removed when it held no whole record,
// and the temporary files of a WARC file whose start failed, removed. It is
// empty when nothing needed repair.
func (w *WARCWriter) Repairs() []Recovery {
	return append([]Recovery(nil), w.repairs...)
}

// Damaged returns the WARC files (and WET files) of earlier runs, other than the
// newest, whose end OpenWARC found damaged: cut short, or not ending in whole records. They
// are reported, not repaired; CheckWARC tells more.
func (w *WARCWriter) Damaged() []FileCheck {
	return append([]FileCheck(nil), w.damaged...)
}

// checkOlder checks the end of every WARC file but the newest (see checkTail).
func (w *WARCWriter) checkOlder(entries []os.DirEntry, newest string, written map[string]int64) error {
	for _, e := range entries {
		if _, ok := parseName(w.opts.Prefix, e.Name()); !ok || e.Name() == newest {
			continue
		}
		c, err := checkTail(filepath.Join(w.opts.Dir, e.Name()), written[e.Name()])
		if err != nil {
			return err
		}
		if !c.Whole() {
			w.damaged = append(w.damaged, c)
		}
		wet := filepath.Join(w.opts.Dir, WETName(e.Name()))
		if _, err := os.Lstat(wet); err != nil {
			continue // no WET file kept
		}
		if c, err = checkTail(wet, written[WETName(e.Name())]); err != nil {
			return err
		}
		if !c.Whole() {
			w.damaged = append(w.damaged, c)
		}
	}
	return nil
}

// removeTemps removes the temporary files startFile leaves when the process
// dies while a WARC file starts.
func (w *WARCWriter) removeTemps(entries []os.DirEntry) error {
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), tempSuffix)
		if !ok {
			continue
		}
		if _, ok := parseName(w.opts.Prefix, base); !ok {
			continue
		}
		if err := w.removeLeftover(e); err != nil {
			return err
		}
	}
	return nil
}

// repairFile cuts path after its last whole record, scanning from from (a
// record boundary known to be durable). It returns what it did; Cut is 0 when
// the file was whole.
func repairFile(path string, from int64, noSync bool) (Recovery, error) {
	rec := Recovery{File: filepath.Base(path)}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return rec, fmt.Errorf("storage: repair: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return rec, fmt.Errorf("storage: repair: %w", err)
	}
	size := fi.Size()
	if from < 0 || from > size {
		from = 0
	}
	end, _ := scanMembers(io.NewSectionReader(f, from, size-from))
	rec.Kept = from + end
	rec.Cut = size - rec.Kept
	if rec.Cut == 0 && rec.Kept > 0 {
		return rec, nil
	}
	if rec.Kept == 0 {
		rec.Removed = true
		f.Close()
		if err := os.Remove(path); err != nil {
			return rec, fmt.Errorf("storage: repair: %w", err)
		}
		return rec, nil
	}
	if err := f.Truncate(rec.Kept); err != nil {
		return rec, fmt.Errorf("storage: repair: %w", err)
	}
	if !noSync {
		if err := f.Sync(); err != nil {
			return rec, fmt.Errorf("storage: repair: %w", err)
		}
	}
	return rec, nil
}

// removeLeftover removes a file a crash left in the WARC directory (a temporary file,
// an orphan WET file) and records the removal among the repairs.
func (w *WARCWriter) removeLeftover(e os.DirEntry) error {
	var size int64
	if fi, err := e.Info(); err == nil {
		size = fi.Size()
	}
	if err := os.Remove(filepath.Join(w.opts.Dir, e.Name())); err != nil {
		return fmt.Errorf("storage: repair: %w", err)
	}
	w.repairs = append(w.repairs, Recovery{File: e.Name(), Cut: size, Removed: true})
	return nil
}
