package storage

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// LostPage is a line of pages.jsonl whose response record is no longer on disk:
// its WARC file ends before the record does, or was removed by a repair.
type LostPage struct {
	Page
	Offset int64 // of the line in pages.jsonl, in bytes
	Size   int64 // of the line, newline included, in bytes
}

// FindLost returns the lines of the pages file whose response record lies past the
// end of its WARC file in warcDir. Files named in removed count as empty; any other
// file that is missing is taken to have been moved away on purpose, and its lines are
// left alone. With all false only the last part of the pages file is read (where a
// crash leaves its marks: a cheap check for every start); with all true, the whole
// file. Lines that are not pages are skipped. Call it before the first Write.
func (p *PagesWriter) FindLost(warcDir string, removed []string, all bool) ([]LostPage, error) {
	sizes := make(map[string]int64) // WARC file → size; -1: moved away
	for _, name := range removed {
		sizes[name] = 0
	}
	var lost []LostPage
	_, err := eachPagesLine(p.path, all, func(at int64, line []byte) error {
		loc, ok := lineLoc(line)
		if !ok || filepath.Base(loc.File) != loc.File {
			return nil
		}
		size, ok := sizes[loc.File]
		if !ok {
			size = -1
			if fi, err := os.Stat(filepath.Join(warcDir, loc.File)); err == nil {
				size = fi.Size()
			} else if !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("storage: pages: %w", err)
			}
			sizes[loc.File] = size
		}
		if size < 0 || loc.Offset+loc.Length <= size {
			return nil
		}
		lp := LostPage{Offset: at, Size: int64(len(line))}
		if lp.Page.UnmarshalJSON(line) != nil {
			return nil
		}
		lost = append(lost, lp)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return lost, nil
}

// Drop removes the lines of lost (from FindLost) from the pages file, durably: by
// cutting the file when they are its last lines, or else by writing the other lines
// to a new file that replaces it. Call it before the first Write.
func (p *PagesWriter) Drop(lost []LostPage) error {
	if len(lost) == 0 {
		return nil
	}
	p.file.mu.Lock()
	defer p.file.mu.Unlock()
	lost = slices.Clone(lost)
	slices.SortFunc(lost, func(a, b LostPage) int { return cmp.Compare(a.Offset, b.Offset) })
	fi, err := p.file.f.Stat()
	if err != nil {
		return fmt.Errorf("storage: pages: %w", err)
	}
	suffix := true
	for i, l := range lost {
		next := fi.Size()
		if i+1 < len(lost) {
			next = lost[i+1].Offset
		}
		if l.Offset+l.Size != next {
			suffix = false
		}
	}
	if suffix {
		err = p.file.f.Truncate(lost[0].Offset)
		if err == nil && !p.file.noSync {
			err = p.file.f.Sync()
		}
		if err == nil {
			_, err = p.file.f.Seek(0, io.SeekEnd)
		}
		if err != nil {
			return fmt.Errorf("storage: pages: %w", err)
		}
		return nil
	}
	if err := p.rewrite(lost, fi.Size()); err != nil {
		return fmt.Errorf("storage: pages: %w", err)
	}
	return nil
}

// rewrite replaces the file by a copy without the lines of lost, sorted by offset,
// and reopens it. p.mu is held.
func (p *PagesWriter) rewrite(lost []LostPage, size int64) error {
	tmp := p.path + tempSuffix
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // after the rename, there is nothing to remove
	var from int64
	for _, l := range append(lost, LostPage{Offset: size}) {
		if _, err := io.Copy(out, io.NewSectionReader(p.file.f, from, l.Offset-from)); err != nil {
			out.Close()
			return err
		}
		from = l.Offset + l.Size
	}
	if !p.file.noSync {
		if err := out.Sync(); err != nil {
			out.Close()
			return err
		}
	}
	if err := out.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, p.path); err != nil {
		return err
	}
	if !p.file.noSync {
		d, err := os.Open(filepath.Dir(p.path))
		if err != nil {
			return err
		}
		err = d.Sync()
		d.Close()
		if err != nil {
			return err
		}
	}
	f, err := os.OpenFile(p.path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return err
	}
	p.file.f.Close()
	p.file.f = f
	return nil
}
