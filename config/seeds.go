package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxSeedLine is the longest line, in bytes, that ParseSeeds reads as a URL; a longer
// line is skipped.
const MaxSeedLine = 16 << 10

// SeedSkip is a line of a seeds file that ParseSeeds did not use.
type SeedSkip struct {
	Line int    // the line number in the file, from 1
	Text string // the line, trimmed and cut to 200 bytes
	Err  error  // why it is not a seed URL
}

func (s SeedSkip) String() string {
	return fmt.Sprintf("line %d: %q: %v", s.Line, s.Text, s.Err)
}

// ParseSeeds reads a seeds file: one URL a line. Blank lines and lines whose first
// non-blank character is '#' are ignored; a UTF-8 byte order mark at the start of the
// file (Windows Notepad writes one) is dropped; lines may end in CRLF. A line that is not
// an absolute http or https URL (including one with text after the URL, such as
// "http://host/p.html  trailing junk") is not an error: it is returned in skipped with
// its line number, and the other lines are still read. err reports only a failure to
// read r. ParseSeeds holds the whole list: a large file is read a batch at a time
// with a SeedReader.
func ParseSeeds(r io.Reader) (seeds []string, skipped []SeedSkip, err error) {
	sr := NewSeedReader(r, 0, 0)
	for {
		more, skip, err := sr.Read(1 << 16)
		seeds, skipped = append(seeds, more...), append(skipped, skip...)
		if errors.Is(err, io.EOF) {
			return seeds, skipped, nil
		}
		if err != nil {
			return seeds, skipped, err
		}
	}
}

// A SeedReader reads a seeds file as ParseSeeds does, a batch at a time, from any
// line boundary an earlier reader reached: its Offset and Line say how far it has read
// and are where a later reader of the same file starts. It holds one line (at most
// MaxSeedLine bytes) besides a 64 KiB buffer and the batch it returns. A SeedReader is
// not safe for simultaneous use.
type SeedReader struct {
	br     *bufio.Reader
	offset int64 // bytes read, to the end of the last line returned
	line   int   // lines read
	err    error // the error that ended reading, returned by every later Read
}

// NewSeedReader returns a SeedReader of r, whose first byte is byte offset of the
// file, the start of line line+1. A reader of a whole file starts at 0, 0; the byte
// order mark is dropped only at offset 0.
func NewSeedReader(r io.Reader, offset int64, line int) *SeedReader {
	return &SeedReader{br: bufio.NewReaderSize(r, 64<<10), offset: offset, line: line}
}

// Offset returns the byte offset just past the last line read: the end of a line,
// after its line ending.
func (s *SeedReader) Offset() int64 { return s.offset }

// Line returns how many lines have been read, counting from the start of the file.
func (s *SeedReader) Line() int { return s.line }

// Read reads lines until it has max seed URLs (max <= 0: 1) or the input ends. It
// returns the seeds and the lines skipped among those read, with io.EOF at the end of
// the input, or another error of the underlying reader; a line cut short by an error
// is not returned and not counted in Offset.
func (s *SeedReader) Read(max int) (seeds []string, skipped []SeedSkip, err error) {
	if s.err != nil {
		return nil, nil, s.err
	}
	if max < 1 {
		max = 1
	}
	for len(seeds) < max {
		line, n, tooLong, err := readLine(s.br, MaxSeedLine)
		if err != nil && !errors.Is(err, io.EOF) {
			s.err = err // a line cut short: read again from its start next time
			return seeds, skipped, err
		}
		if n == 0 {
			s.err = io.EOF
			return seeds, skipped, s.err
		}
		if s.offset == 0 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		s.offset += int64(n)
		s.line++
		text := strings.TrimSpace(string(line))
		switch {
		case tooLong:
			skipped = append(skipped, SeedSkip{Line: s.line, Text: shorten(text), Err: fmt.Errorf("longer than %d bytes", MaxSeedLine)})
		case text == "" || strings.HasPrefix(text, "#"):
		default:
			if err := validateSeed(text); err != nil {
				skipped = append(skipped, SeedSkip{Line: s.line, Text: shorten(text), Err: err})
			} else {
				seeds = append(seeds, text)
			}
		}
		if err != nil {
			s.err = io.EOF
			return seeds, skipped, s.err
		}
	}
	return seeds, skipped, nil
}

// readLine reads one line and returns it without its line ending, with n the bytes it
// took from br, line ending included. A line longer than limit is read to its end and
// returned cut to limit, with tooLong set. err is io.EOF when the input ended after
// this line (which had no line ending); n is 0 when there was no line left.
func readLine(br *bufio.Reader, limit int) (line []byte, n int, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		chunk = bytes.TrimSuffix(chunk, []byte("\n"))
		if err == nil {
			chunk = bytes.TrimSuffix(chunk, []byte("\r"))
		}
		if len(line)+len(chunk) > limit {
			tooLong = true
			chunk = chunk[:max(0, limit-len(line))]
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, n, tooLong, err
		}
	}
}

// shorten cuts s to 200 bytes, on a rune boundary, for messages.
func shorten(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
