//go:build linux && (amd64 || arm64)

package procstat

import (
	"os"
	"syscall"
)

// DropCache writes the file at path to disk and drops its pages from the page cache,
// so that the next read comes from the disk (or the host's cache, on a virtual
// machine). Only this file is affected.
func DropCache(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return err
	}
	const fadvDontNeed = 4 // POSIX_FADV_DONTNEED
	if _, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0); errno != 0 {
		return &os.PathError{Op: "fadvise", Path: path, Err: errno}
	}
	return nil
}
