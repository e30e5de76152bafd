package storage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// warcPos is where a response or revisit record lies: its WARC file's base name
// (files sort by name in the order they were written) and its member's offset.
type warcPos struct {
	file string
	off  int64
}

// before reports whether p comes before q in the order records were written.
func (p warcPos) before(q warcPos) bool {
	return p.file < q.file || p.file == q.file && p.off < q.off
}

// Rebuild appends to the pages file, durably and in WARC order, the lines that
// the WARC in warcDir carries (the pages-line field of a metadata record, see
// Exchange.Page) and the file lacks: lines a crash lost because pages.jsonl had
// not been synced when their records were (Group). It returns how many it
// appended.
//
// The lines of the file's last MiB (tailWindow; the whole file when smaller) say
// what it holds: the scan starts at the earliest record they point at, reads
// only the WARC files from that one on, and skips the records they point at.
// With none of them pointing into a WARC file, a file of the last MiB alone is
// not scanned (it is older than anything a crash loses); an empty one is, from the
// first WARC file. A record that does not parse ends the scan: OpenWARC has cut a
// torn tail before. A carried line that is not a page's line is left out and
// counted. Call it after OpenWARC and before the first write.
func (p *PagesWriter) Rebuild(warcDir string) (Rebuilt, error) {
	var r Rebuilt
	have, from, ok, err := p.tailPositions()
	if err != nil || !ok {
		return r, err
	}
	paths, err := WARCFiles(warcDir)
	if err != nil {
		return r, err
	}
	var lines []byte
	for _, path := range paths {
		name := filepath.Base(path)
		if name < from.file {
			continue
		}
		start := int64(0)
		if name == from.file {
			start = from.off
		}
		whole, err := carriedLines(path, start, func(pos warcPos, length int64, line []byte) error {
			if _, dup := have[pos]; dup {
				return nil
			}
			var pg Page
			if err := pg.UnmarshalJSON(line); err != nil {
				r.Unreadable++
				return nil
			}
			pg.WARCFile, pg.WARCOffset, pg.WARCLength = pos.file, pos.off, length
			b, err := pg.MarshalJSON()
			if err != nil {
				r.Unreadable++
				return nil
			}
			have[pos] = struct{}{}
			lines = append(append(lines, b...), '\n')
			r.Lines++
			return nil
		})
		if err != nil {
			return Rebuilt{}, err
		}
		if !whole {
			break
		}
	}
	if r.Lines > 0 {
		if err := p.file.writeSync(lines); err != nil {
			return Rebuilt{}, err
		}
	}
	return r, nil
}

// Rebuilt is what Rebuild did: the lines it appended, and the carried lines it
// left out because they were not a page's line.
type Rebuilt struct {
	Lines, Unreadable int
}

// tailPositions returns the records the lines of the pages file's last tailWindow
// bytes point at, the earliest of them, and whether the WARC must be scanned.
func (p *PagesWriter) tailPositions() (map[warcPos]struct{}, warcPos, bool, error) {
	have := make(map[warcPos]struct{})
	var from warcPos
	start, err := eachPagesLine(p.path, false, func(_ int64, line []byte) error {
		loc, ok := lineLoc(line)
		if !ok {
			return nil
		}
		pos := warcPos{loc.File, loc.Offset}
		if len(have) == 0 || pos.before(from) {
			from = pos
		}
		have[pos] = struct{}{}
		return nil
	})
	if err != nil {
		return nil, warcPos{}, false, err
	}
	if len(have) == 0 {
		return have, warcPos{}, start == 0, nil
	}
	return have, from, true, nil
}

// carriedLines reads the WARC file at path from offset start, a record's start,
// and calls fn with the place and length of each response or revisit record
// followed by a metadata record concurrent to it that carries a pages-line, and
// that line. It returns whether the file ended cleanly (false: a record did not
// parse, or the file was shorter than start).
func carriedLines(path string, start int64, fn func(pos warcPos, length int64, line []byte) error) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("storage: rebuild pages: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return false, fmt.Errorf("storage: rebuild pages: %w", err)
	}
	name := filepath.Base(path)
	c := &byteCounter{br: bufio.NewReaderSize(f, 64<<10), n: start}
	var last struct {
		id     string
		pos    warcPos
		length int64
	}
	var fnErr error // fn's: every other error ends the scan as a file that did not end cleanly
	err = eachRecord(c, func(at int64, br *bufio.Reader) error {
		typ, id, to, line, ok := readCarried(br)
		if !ok {
			return errNotWhole
		}
		switch typ {
		case "response", "revisit":
			last.id, last.pos, last.length = id, warcPos{name, at}, c.n-at
		case "metadata":
			if line != nil && to != "" && to == last.id {
				if fnErr = fn(last.pos, last.length, line); fnErr != nil {
					return fnErr
				}
			}
			last.id = ""
		default:
			last.id = ""
		}
		return nil
	})
	if fnErr != nil {
		return false, fnErr
	}
	return err == nil, nil
}

// errNotWhole ends a scan at a record that is not whole.
var errNotWhole = errors.New("record not whole")

// readCarried reads one decompressed record to the end of its gzip member and
// returns its WARC-Type, WARC-Record-ID and WARC-Concurrent-To and, for a
// metadata record, the value of its pages-line field (nil: none); ok is false
// when the record is not whole (as checkRecord finds).
func readCarried(br *bufio.Reader) (typ, id, to string, line []byte, ok bool) {
	length, err := readRecordHead(br, func(name, value string) {
		switch {
		case strings.EqualFold(name, "WARC-Type"):
			typ = value
		case strings.EqualFold(name, "WARC-Record-ID"):
			id = value
		case strings.EqualFold(name, "WARC-Concurrent-To"):
			to = value
		}
	})
	if err != nil {
		return "", "", "", nil, false
	}
	if typ == "metadata" {
		// Read as the bytes come, not sized by the header: a damaged
		// Content-Length must not allocate what the member does not hold.
		block, err := io.ReadAll(io.LimitReader(br, length))
		if err != nil || int64(len(block)) != length {
			return "", "", "", nil, false
		}
		line = pagesLine(block)
	} else if n, err := br.Discard(int(min(length, 1<<40))); err != nil || int64(n) != length {
		return "", "", "", nil, false
	}
	if readRecordEnd(br) != nil {
		return "", "", "", nil, false
	}
	return typ, id, to, line, true
}

// pagesLine returns the value of the pages-line field of a metadata record's
// block, nil when it has none.
func pagesLine(block []byte) []byte {
	prefix := []byte(pagesLineField + ": ")
	for len(block) > 0 {
		l := block
		if i := bytes.Index(block, []byte("\r\n")); i >= 0 {
			l, block = block[:i], block[i+2:]
		} else {
			block = nil
		}
		if v, found := bytes.CutPrefix(l, prefix); found {
			return v
		}
	}
	return nil
}
