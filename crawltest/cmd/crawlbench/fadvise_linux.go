//go:build linux && (amd64 || arm64)

package main

import (
	"os"
	"syscall"
)

// dropCache writes the file at path to disk and drops its pages from the page cache,
// so that the next read comes from the disk. It reports whether it could.
func dropCache(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return false
	}
	const fadvDontNeed = 4 // POSIX_FADV_DONTNEED
	_, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0)
	return errno == 0
}
