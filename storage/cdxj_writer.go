package storage

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// cdxjWriter keeps the CDXJ index of each WARC file a WARCWriter writes. A
// record's line is queued when the record is written and goes to the file's
// open index (NAME.cdxj.open) only once the record is durable, so the index
// never points at a record that a crash could lose. When the WARC file is
// closed its lines are sorted into NAME.cdxj and the open index is removed.
// Index errors are sticky and returned by finish and Close; they never fail a
// WARC write, as the index can be rebuilt from the WARC files.
type cdxjWriter struct {
	dir    string
	noSync bool

	mu    sync.Mutex
	files map[string]*cdxjFile
	err   error
}

// cdxjFile is the open index of one WARC file.
type cdxjFile struct {
	f       *os.File
	pending []pendingLine // written to the WARC, not yet known durable
	buf     []byte
}

type pendingLine struct {
	end  int64 // offset just past the record's data in the WARC file
	line []byte
}

func newCDXJWriter(dir string, noSync bool) *cdxjWriter {
	return &cdxjWriter{dir: dir, noSync: noSync, files: make(map[string]*cdxjFile)}
}

// add queues the line of a record of WARC file name that ends at offset end.
func (x *cdxjWriter) add(name string, end int64, line []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		return
	}
	cf := x.files[name]
	if cf == nil {
		f, err := os.OpenFile(filepath.Join(x.dir, name+IndexSuffix+OpenIndexSuffix), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
		if err != nil {
			x.err = fmt.Errorf("storage: index: %w", err)
			return
		}
		cf = &cdxjFile{f: f}
		x.files[name] = cf
	}
	cf.pending = append(cf.pending, pendingLine{end: end, line: line})
}

// durable writes the queued lines of records of WARC file name that end
// at or before size, which is now durable.
func (x *cdxjWriter) durable(name string, size int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	cf := x.files[name]
	if cf == nil || x.err != nil {
		return
	}
	cf.buf = cf.buf[:0]
	kept := cf.pending[:0]
	for _, p := range cf.pending {
		if p.end <= size {
			cf.buf = append(cf.buf, p.line...)
		} else {
			kept = append(kept, p)
		}
	}
	clear(cf.pending[len(kept):])
	cf.pending = kept
	if len(cf.buf) == 0 {
		return
	}
	if _, err := cf.f.Write(cf.buf); err != nil {
		x.err = fmt.Errorf("storage: index: %w", err)
	}
}

// finish ends the index of WARC file name, closed and durable at size
// bytes: its lines are sorted into NAME.cdxj.
func (x *cdxjWriter) finish(name string, size int64) error {
	x.durable(name, size)
	x.mu.Lock()
	defer x.mu.Unlock()
	cf := x.files[name]
	if cf == nil {
		return x.err
	}
	delete(x.files, name)
	open := cf.f.Name()
	if err := cf.f.Close(); err != nil && x.err == nil {
		x.err = fmt.Errorf("storage: index: %w", err)
	}
	if x.err != nil {
		return x.err
	}
	data, err := os.ReadFile(open)
	if err == nil {
		err = writeSortedIndex(filepath.Join(x.dir, name+IndexSuffix), data, x.noSync)
	}
	if err == nil {
		err = os.Remove(open)
	}
	if err != nil {
		x.err = fmt.Errorf("storage: index: %w", err)
	}
	return x.err
}

// close closes the open indexes without finishing them (the WARCWriter
// failed) and returns the sticky error.
func (x *cdxjWriter) close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for name, cf := range x.files {
		cf.f.Close()
		delete(x.files, name)
	}
	return x.err
}

// writeSortedIndex writes the lines of data sorted bytewise (as LC_ALL=C
// sort does) to path, through a temporary file renamed into place.
func writeSortedIndex(path string, data []byte, noSync bool) error {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	slices.SortFunc(lines, bytes.Compare)
	return writeReplacing(path, noSync, func(w io.Writer) error {
		for _, l := range lines {
			if _, err := w.Write(l); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeReplacing writes path whole through a temporary file (path + tempSuffix) that
// write fills, synced unless noSync, then renamed into place: a reader sees the old
// file or the new one, never a part. On an error the temporary file is removed.
func writeReplacing(path string, noSync bool, write func(io.Writer) error) error {
	tmp := path + tempSuffix
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	err = write(bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err == nil && !noSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
