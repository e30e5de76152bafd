package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DamageError reports a damaged WARC file of a crawl, which the file tools (index,
// WACZ) refuse rather than index or package in part: its whole records end at Offset,
// where Problem starts.
type DamageError struct {
	File    string // the file's path
	Offset  int64  // where its whole records end
	Size    int64  // the file's size
	Problem string // what is wrong at Offset, as CheckWARC says
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("storage: %s is damaged at byte %d of %d: %s", e.File, e.Offset, e.Size, e.Problem)
}

// ToolOptions say how the file tools (IndexWARCDir, PackWACZ) treat the files of a
// WARC directory. The zero value refuses damage and says nothing of what it skips.
type ToolOptions struct {
	// Damaged takes the whole records of a damaged WARC file, up to its damage, rather
	// than refusing it with a *DamageError; Warn is told of each such file.
	Damaged bool
	// Warn, if not nil, is told of each file left out or taken in part, with why: a
	// *.warc.gz file whose name is not that of a crawl's WARC file (CrawlWARCName), the
	// torn end of the file a crash left open, a damaged file taken in part (Damaged), an
	// index kept because the one made now would be shorter.
	Warn func(path, what string)
}

func (o *ToolOptions) warn(path, format string, args ...any) {
	if o.Warn != nil {
		o.Warn(path, fmt.Sprintf(format, args...))
	}
}

// CrawlWARCName reports whether name is the name of a WARC file a crawl writes:
// <prefix>-<UTC timestamp, 14 digits>-<serial>.warc.gz, whatever the prefix.
func CrawlWARCName(name string) bool {
	rest, ok := strings.CutSuffix(name, ".warc.gz")
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '-')
	if i < 0 {
		return false
	}
	serial := rest[i+1:]
	if _, err := strconv.Atoi(serial); err != nil || strings.Trim(serial, "0123456789") != "" {
		return false
	}
	rest = rest[:i]
	j := strings.LastIndexByte(rest, '-')
	if j <= 0 {
		return false
	}
	ts := rest[j+1:]
	return len(ts) == 14 && strings.Trim(ts, "0123456789") == ""
}

// checkedWARC is one WARC file of a crawl, checked as `crawl verify` checks it.
type checkedWARC struct {
	path  string
	size  int64
	whole int64 // the length of its whole records: size unless damaged or torn
	// crashed says a crash left the file open (its open index beside it, no finished
	// one): a torn end is what a kill leaves there, not damage.
	crashed bool
}

// checkWARCs returns the crawl's WARC files in dir, in order, each checked as Verify
// checks it (CheckWARC, and its size against the size the digest index records as
// written). Files whose names are not a crawl's are left out (and warned of). A
// damaged file is a *DamageError, unless it is the file a crash left open (its torn
// end is left out) or opts.Damaged (its whole records are taken): both are warned of.
func checkWARCs(dir string, opts *ToolOptions) ([]checkedWARC, error) {
	paths, err := WARCFiles(dir)
	if err != nil {
		return nil, err
	}
	written, err := writtenSizes(dir)
	if err != nil {
		return nil, err
	}
	var out []checkedWARC
	for _, p := range paths {
		if !CrawlWARCName(filepath.Base(p)) {
			opts.warn(p, "left out: not named as a crawl's WARC file (PREFIX-TIMESTAMP-SERIAL.warc.gz)")
			continue
		}
		c, err := CheckWARC(p)
		if err != nil {
			return nil, err
		}
		if n := written[c.File]; c.Size < n && c.Problem == "" {
			c.Problem = fmt.Sprintf("file is %d bytes, %d were written: cut short", c.Size, n)
		}
		w := checkedWARC{path: p, size: c.Size, whole: c.End}
		if _, err := os.Stat(p + IndexSuffix + OpenIndexSuffix); err == nil {
			if _, err := os.Stat(p + IndexSuffix); errors.Is(err, os.ErrNotExist) {
				w.crashed = true
			}
		}
		switch {
		case c.Whole():
		case w.crashed:
			opts.warn(p, "the crawl was killed while writing it: %d bytes of torn records at its end left out (from byte %d: %s)",
				c.Size-c.End, c.End, c.Problem)
		case opts.Damaged:
			opts.warn(p, "DAMAGED at byte %d of %d (%s): only its %d whole records before it taken",
				c.End, c.Size, c.Problem, c.Records)
		default:
			return nil, &DamageError{File: p, Offset: c.End, Size: c.Size, Problem: c.Problem}
		}
		out = append(out, w)
	}
	return out, nil
}
