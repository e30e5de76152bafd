//go:build linux

package frontier

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// dropTx drops the pages of the mapping of tx's database, [Info().Data,
// Info().Data+tx.Size()), from the process (see dropMapped for why that range is
// mapped for as long as tx is open). tx must be a read transaction: a write
// transaction may remap the file when it allocates.
func dropTx(tx *bolt.Tx) error {
	if tx.Writable() {
		return errDropWritable
	}
	size := tx.Size()
	if size <= 0 {
		return nil
	}
	// The mapping starts on a page boundary (mmap's result); the kernel rounds the
	// length up to whole pages, which stay inside the mapping as it is mapped in
	// whole pages too.
	addr := tx.DB().Info().Data
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, addr, uintptr(size), syscall.MADV_DONTNEED); errno != 0 {
		return os.NewSyscallError("madvise", errno)
	}
	return nil
}

// residentFile reads the process's file-backed resident size from /proc/self/statm,
// kept open: a read at offset 0 regenerates it, in about 2 µs.
type residentFile struct {
	f   *os.File
	buf [256]byte
}

func openResidentFile() *residentFile {
	f, err := os.Open("/proc/self/statm")
	if err != nil {
		return nil
	}
	r := &residentFile{f: f}
	if r.bytes() < 0 {
		f.Close()
		return nil
	}
	return r
}

// bytes returns the process's resident pages backed by files (RssFile, and RssShmem,
// which statm counts with them), in bytes; -1 if it cannot be read.
func (r *residentFile) bytes() int64 {
	if r == nil {
		return -1
	}
	n, err := r.f.ReadAt(r.buf[:], 0)
	if n == 0 && err != nil {
		return -1
	}
	// size resident shared text lib data dt, in pages.
	fields := bytes.Fields(r.buf[:n])
	if len(fields) < 3 {
		return -1
	}
	pages, err := strconv.ParseInt(string(fields[2]), 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

func (r *residentFile) close() {
	if r != nil {
		r.f.Close()
	}
}
