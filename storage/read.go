package storage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// Record is one WARC record read by [ReadRecords]: its header fields and a reader
// of its block. It is valid only during the call that receives it.
type Record struct {
	// Offset is where the record starts in the file: the offset of its gzip
	// member in a compressed file (of the member that holds it, when a member
	// holds several), of its version line in an uncompressed one.
	Offset int64
	// Fields are the header fields in the order written, names as written.
	Fields []RecordField
	// Block reads the record's block: Content-Length bytes, or fewer when the
	// file was cut. ReadRecords discards what the callback leaves unread.
	Block io.Reader
}

// RecordField is one named field of a WARC record header.
type RecordField struct{ Name, Value string }

// Get returns the value of the first field called name (compared
// case-insensitively), or "".
func (r *Record) Get(name string) string {
	for _, f := range r.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// ErrNotWARC is wrapped by the error of ReadRecords when a file holds no WARC
// record where one should start.
var ErrNotWARC = errors.New("storage: not a WARC record")

// ReadError says where ReadRecords stopped in a damaged file.
type ReadError struct {
	Offset  int64 // of the record (or gzip member) that could not be read
	Records int   // whole records read before it
	Err     error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("storage: record at byte %d (after %d whole records): %v", e.Offset, e.Records, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// ReadRecords reads the WARC records of r in order and calls fn with each: a WARC
// file of any writer, compressed as gzip members (one record each, as most
// writers do, or several) or not compressed at all. A record's header may be at
// most 64 KiB. It stops at fn's first error and returns it; a record it cannot
// read (a torn tail after a crash, a damaged member) ends the file with a
// *ReadError, whose Records counts the whole records before it: fn may have been
// called with the torn one. Memory stays bounded whatever r holds.
func ReadRecords(r io.Reader, fn func(*Record) error) error {
	c := &byteCounter{br: bufio.NewReaderSize(r, 256<<10)}
	magic, _ := c.br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		return readMembers(c, fn)
	}
	// An uncompressed file: a record starts where its version line does, the
	// bytes read from r less those still buffered.
	counted := &byteCounter{br: c.br}
	br := bufio.NewReaderSize(counted, maxRecordHead)
	at := func(line int) int64 { return counted.n - int64(br.Buffered()) - int64(line) }
	n := 0
	for {
		more, err := readNextRecord(br, at, fn)
		if err != nil {
			return asReadError(err, at(0), n)
		}
		if !more {
			return nil
		}
		n++
	}
}

// readMembers reads the gzip members of c, each holding one record or more.
func readMembers(c *byteCounter, fn func(*Record) error) error {
	var zr *gzip.Reader
	br := bufio.NewReaderSize(nil, maxRecordHead)
	n := 0
	for {
		if _, err := c.br.Peek(1); err != nil {
			if err == io.EOF {
				return nil
			}
			return &ReadError{Offset: c.n, Records: n, Err: err}
		}
		start := c.n
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(c)
		} else {
			err = zr.Reset(c)
		}
		if err != nil {
			return &ReadError{Offset: start, Records: n, Err: fmt.Errorf("gzip member: %w", err)}
		}
		zr.Multistream(false)
		br.Reset(zr)
		for first := true; ; first = false {
			more, err := readNextRecord(br, func(int) int64 { return start }, fn)
			if err != nil {
				return asReadError(err, start, n)
			}
			if !more {
				if first {
					return &ReadError{Offset: start, Records: n, Err: fmt.Errorf("%w: empty gzip member", ErrNotWARC)}
				}
				break
			}
			n++
		}
	}
}

// callbackError carries fn's error through readNextRecord, to be returned as is.
type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }

func asReadError(err error, offset int64, records int) error {
	var cb callbackError
	if errors.As(err, &cb) {
		return cb.err
	}
	return &ReadError{Offset: offset, Records: records, Err: err}
}

// readNextRecord reads the next record of br, skipping the blank lines before it,
// and calls fn with it; at(n) is the record's offset once its version line of n
// bytes was read. It reports false at the end of br.
func readNextRecord(br *bufio.Reader, at func(line int) int64, fn func(*Record) error) (bool, error) {
	var line []byte
	for {
		var err error
		line, err = br.ReadSlice('\n')
		if err == io.EOF && len(line) == 0 {
			return false, nil
		}
		if err != nil && err != io.EOF {
			if err == bufio.ErrBufferFull {
				return false, fmt.Errorf("%w: a line longer than 64 KiB", ErrNotWARC)
			}
			return false, err
		}
		if len(bytes.TrimRight(line, "\r\n")) > 0 {
			break
		}
		if err == io.EOF {
			return false, nil
		}
	}
	if !bytes.HasPrefix(line, []byte("WARC/")) {
		return false, fmt.Errorf("%w: line %.40q", ErrNotWARC, line)
	}
	rec := Record{Offset: at(len(line))}
	length := int64(-1)
	headBytes := len(line)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if err == io.EOF || err == bufio.ErrBufferFull {
				err = io.ErrUnexpectedEOF
			}
			return false, fmt.Errorf("header cut short: %w", err)
		}
		if headBytes += len(line); headBytes > maxRecordHead {
			return false, errors.New("header longer than 64 KiB")
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		f := RecordField{Name: string(bytes.TrimSpace(name)), Value: string(bytes.TrimSpace(value))}
		rec.Fields = append(rec.Fields, f)
		if strings.EqualFold(f.Name, "Content-Length") {
			n, err := strconv.ParseInt(f.Value, 10, 64)
			if err != nil || n < 0 {
				return false, fmt.Errorf("bad Content-Length %.40q", f.Value)
			}
			length = n
		}
	}
	if length < 0 {
		return false, errors.New("no Content-Length")
	}
	block := &blockReader{r: io.LimitedReader{R: br, N: length}}
	rec.Block = block
	if err := fn(&rec); err != nil {
		if block.err != nil {
			return false, block.err // fn stopped at the damage
		}
		return false, callbackError{err}
	}
	if _, err := io.Copy(io.Discard, block); err != nil {
		return false, err
	}
	if block.r.N > 0 {
		return false, fmt.Errorf("block cut short: %d of %d bytes: %w", length-block.r.N, length, io.ErrUnexpectedEOF)
	}
	return true, nil
}

// blockReader reads a record's block and keeps the first error that is not the
// block's end: a damaged file, which the callback may see first.
type blockReader struct {
	r   io.LimitedReader
	err error
}

func (b *blockReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}
