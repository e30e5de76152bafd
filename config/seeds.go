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
// read r.
func ParseSeeds(r io.Reader) (seeds []string, skipped []SeedSkip, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br, MaxSeedLine)
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return seeds, skipped, nil
			}
			return seeds, skipped, err
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		text := strings.TrimSpace(string(line))
		switch {
		case tooLong:
			skipped = append(skipped, SeedSkip{Line: n, Text: shorten(text), Err: fmt.Errorf("longer than %d bytes", MaxSeedLine)})
		case text == "" || strings.HasPrefix(text, "#"):
		default:
			if err := validateSeed(text); err != nil {
				skipped = append(skipped, SeedSkip{Line: n, Text: shorten(text), Err: err})
			} else {
				seeds = append(seeds, text)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return seeds, skipped, nil
			}
			return seeds, skipped, err
		}
	}
}

// readLine reads one line without its line ending. A line longer than limit is read to
// its end and returned cut to limit, with tooLong set.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(line)+len(chunk) > limit {
			tooLong = true
			chunk = chunk[:max(0, limit-len(line))]
		}
		line = append(line, chunk...)
		if err != nil || !isPrefix {
			return line, tooLong, err
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
