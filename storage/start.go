package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// tempSuffix ends the name a WARC file has while its warcinfo record is
// written; OpenWARC removes files left with it.
const tempSuffix = ".tmp"

// startFile creates WARC file name in the directory holding only info (its
// warcinfo record) and returns it open for appending. The record is written
// under a temporary name, synced, and renamed, so the file either appears
// whole or not at all; on failure nothing is left behind. w.mu is held.
func (w *WARCWriter) startFile(name string, info []byte) (*os.File, int64, error) {
	path := filepath.Join(w.opts.Dir, name)
	if _, err := os.Lstat(path); err == nil {
		return nil, 0, fmt.Errorf("storage: start %s: file exists", name)
	}
	tmp := path + tempSuffix
	open := w.openFile
	if open == nil {
		open = os.OpenFile
	}
	f, err := open(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, 0, ioError("start", name, err)
	}
	fail := func(err error) (*os.File, int64, error) {
		f.Close()
		os.Remove(tmp)
		return nil, 0, ioError("start", name, err)
	}
	if _, err := f.Write(info); err != nil {
		return fail(err)
	}
	if !w.opts.NoSync {
		// Synced before the rename, so the name never points at an empty file
		// after a machine crash.
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail(err)
	}
	if !w.opts.NoSync {
		// The directory entry must be durable before any record is acknowledged.
		if err := syncDir(w.opts.Dir); err != nil {
			f.Close()
			os.Remove(path)
			return nil, 0, err
		}
	}
	return f, int64(len(info)), nil
}

// ioError describes a failed file operation op on name, saying plainly when
// the disk is full.
func ioError(op, name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is named already
	}
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("storage: %s %s: disk full: %w", op, name, err)
	}
	return fmt.Errorf("storage: %s %s: %w", op, name, err)
}
