package storage

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// warcLoc is where a pages.jsonl line says its response or revisit record lies.
type warcLoc struct {
	File   string `json:"warc_file"`
	Offset int64  `json:"warc_offset"`
	Length int64  `json:"warc_length"`
}

// lineLoc returns the record a pages.jsonl line points at, and false for a line
// that is not JSON or names no WARC file.
func lineLoc(line []byte) (warcLoc, bool) {
	var loc warcLoc
	if json.Unmarshal(line, &loc) != nil || loc.File == "" {
		return warcLoc{}, false
	}
	return loc, true
}

// eachPagesLine calls fn with the offset and the bytes (newline included, if it has
// one) of each line of the pages file at path: every line with all true; else only
// the lines of its last tailWindow bytes, where a crash leaves its marks (the first
// line of the window is skipped, as it may begin before it). It returns where it
// started reading: 0 when it read the whole file. fn's line is valid until fn
// returns; an error from fn stops the reading and is returned as it is.
func eachPagesLine(path string, all bool, fn func(at int64, line []byte) error) (start int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("storage: pages: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("storage: pages: %w", err)
	}
	if !all {
		start = max(fi.Size()-tailWindow, 0)
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return start, fmt.Errorf("storage: pages: %w", err)
	}
	br := bufio.NewReaderSize(f, 64<<10)
	at := start
	if start > 0 { // the first line in the window may be partial
		skip, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			at += int64(len(skip))
			skip, err = br.ReadSlice('\n')
		}
		at += int64(len(skip))
	}
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			if err := fn(at, line); err != nil {
				return start, err
			}
			at += int64(len(line))
		}
		if err == io.EOF {
			return start, nil
		}
		if err != nil {
			return start, fmt.Errorf("storage: pages: %w", err)
		}
	}
}

// readLine returns the next line of br, newline included, however long.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	buf := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = br.ReadSlice('\n')
		buf = append(buf, line...)
	}
	return buf, err
}
