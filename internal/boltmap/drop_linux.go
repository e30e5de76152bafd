//go:build linux

package boltmap

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// DropTx drops the pages of the mapping of tx's database from the process:
// [Info().Data, Info().Data+tx.Size()), the file's committed pages.
//
// tx must be a read transaction, and that is what makes the range safe: a read
// transaction holds bbolt's mmap lock for reading until it ends, and bbolt remaps the
// file (when a write transaction allocates past the mapping) only under that lock
// for writing, so the mapping stays where it is, as large as it is, for the whole
// call. A read transaction's size is never beyond the mapping (bbolt grows the
// mapping before a write transaction allocates a page past it, and never shrinks it)
// unless the file is damaged, and the range is cut to the mapping, as
// /proc/self/maps gives it, all the same.
// The mapping starts on a page boundary (mmap's result), and the kernel rounds the
// length up to a whole page, which the mapping, made of whole pages, covers. Memory
// outside the mapping is never touched: MADV_DONTNEED over anonymous memory (the Go
// heap) would zero it.
func DropTx(tx *bolt.Tx) error {
	if tx.Writable() {
		return ErrWritable
	}
	size := tx.Size()
	if size <= 0 {
		return nil
	}
	addr := tx.DB().Info().Data
	// A damaged file's meta page may count more pages than the file has, and than
	// bbolt mapped when it opened the file (bbolt does not check, and maps no more
	// than the file's size rounded up): cut the range to the mapping.
	mapped, err := mappedLen(addr)
	if err != nil {
		return err
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, addr, min(uintptr(size), mapped), syscall.MADV_DONTNEED); errno != 0 {
		return os.NewSyscallError("madvise", errno)
	}
	return nil
}

// mappedLen returns the length of the mapping at addr, from /proc/self/maps: from
// addr to the end of the areas that follow one another without a gap and map the
// same file as the one addr lies in.
func mappedLen(addr uintptr) (uintptr, error) {
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, fmt.Errorf("boltmap: %w", err)
	}
	var end uintptr
	var file string
	for line := range bytes.Lines(data) {
		// start-end perms offset dev inode [path]
		f := bytes.Fields(line)
		if len(f) < 5 {
			continue
		}
		lo, hi, _ := bytes.Cut(f[0], []byte("-"))
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		stop, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		id := string(f[3]) + " " + string(f[4])
		switch {
		case end == 0 && uintptr(start) <= addr && addr < uintptr(stop):
			end, file = uintptr(stop), id
		case end != 0 && uintptr(start) == end && id == file:
			end = uintptr(stop)
		case end != 0:
			return end - addr, nil
		}
	}
	if end == 0 {
		return 0, fmt.Errorf("boltmap: no mapping at %#x in /proc/self/maps", addr)
	}
	return end - addr, nil
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

// Resident returns the bytes of db's mapping resident in this process: the Rss of the
// mapping in /proc/self/smaps. It is slow (the kernel walks the page tables of every
// mapping of the process), for tests and benchmarks. mincore would not do: for a file
// mapping it reports the page cache, which keeps the pages a drop takes out of the
// process.
func Resident(db *bolt.DB) (int64, error) {
	tx, err := db.Begin(false)
	if err != nil {
		return 0, err
	}
	addr := tx.DB().Info().Data
	data, err := os.ReadFile("/proc/self/smaps")
	tx.Rollback()
	if err != nil {
		return 0, err
	}
	start := fmt.Sprintf("%08x-", addr)
	found := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) > 0 && !strings.HasSuffix(f[0], ":") {
			found = strings.HasPrefix(line, start) // a mapping's first line
			continue
		}
		if rss, ok := strings.CutPrefix(line, "Rss:"); found && ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rss), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("boltmap: smaps line %q: %v", line, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("boltmap: no mapping at %#x in /proc/self/smaps", addr)
}
