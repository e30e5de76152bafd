package storage

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
)

// TailRepair says what opening a JSON-lines file (pages.jsonl) repaired at its end,
// where a crash may leave a torn line.
type TailRepair struct {
	// Cut is how many bytes were cut off the end: a torn last line, or last lines
	// that are not JSON objects. Zero: nothing was cut.
	Cut int64
	// Lines is how many lines, the torn one included, Cut held.
	Lines int
	// Dropped is the start of what was cut, at most maxDropped bytes, for logs.
	Dropped string
	// Newline says the last line was a whole JSON object but for its newline, which
	// was added rather than the line cut.
	Newline bool
}

// maxDropped bounds TailRepair.Dropped, in bytes.
const maxDropped = 256

// repairTail cuts the torn tail of the JSON-lines file f (see wholeLines), keeping
// a last line that lacks only its newline, and leaves f positioned at its end.
func repairTail(f *os.File, noSync bool) (TailRepair, error) {
	var r TailRepair
	size, keep, err := wholeLines(f)
	if err != nil {
		return r, err
	}
	if keep < size {
		cut := make([]byte, size-keep)
		if _, err := f.ReadAt(cut, keep); err != nil && err != io.EOF {
			return r, err
		}
		atLineStart := keep == 0
		if !atLineStart {
			var prev [1]byte
			if _, err := f.ReadAt(prev[:], keep-1); err != nil {
				return r, err
			}
			atLineStart = prev[0] == '\n'
		}
		if atLineStart && bytes.IndexByte(cut, '\n') < 0 && len(cut) > 0 && cut[0] == '{' && json.Valid(cut) {
			r.Newline = true
			if _, err := f.WriteAt([]byte{'\n'}, size); err != nil {
				return r, err
			}
		} else {
			r.Cut = size - keep
			r.Lines = bytes.Count(cut, []byte{'\n'})
			if cut[len(cut)-1] != '\n' {
				r.Lines++
			}
			r.Dropped = string(cut[:min(len(cut), maxDropped)])
			if err := f.Truncate(keep); err != nil {
				return r, err
			}
		}
		if !noSync {
			if err := f.Sync(); err != nil {
				return r, err
			}
		}
	}
	_, err = f.Seek(0, io.SeekEnd)
	return r, err
}
