//go:build linux

package boltmap

import (
	"bufio"
	"errors"
	"sync"

	"bytes"
	"fmt"
	"golang.org/x/sys/unix"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// dropTx is DropTx keeping up to keep bytes of pages, hot buckets whole first (see
// keepSpans); keep <= 0 keeps none.
func dropTx(tx *bolt.Tx, keep int64, hot [][]byte) (dropped, error) {
	if tx.Writable() {
		return dropped{}, ErrWritable
	}
	size := tx.Size()
	if size <= 0 {
		return dropped{}, nil
	}
	addr := tx.DB().Info().Data
	// A damaged file's meta page may count more pages than the file has, and than
	// bbolt mapped when it opened the file (bbolt does not check, and maps no more
	// than the file's size rounded up): cut the range to the mapping.
	mapped, err := mappedLen(addr)
	if err != nil {
		return dropped{}, err
	}
	end := min(uintptr(size), mapped)
	var d dropped
	var spans []span
	if keep > 0 {
		spans, err = readable(tx, addr, end, keep, hot)
		if err != nil {
			spans, d.full = nil, true
		}
	}
	pageSize := uintptr(tx.DB().Info().PageSize)
	var gaps ranges
	from := uintptr(0)
	for _, s := range spans {
		lo, hi := uintptr(s.first)*pageSize, uintptr(s.last+1)*pageSize
		gaps.add(addr+from, min(lo, end)-min(from, end))
		d.kept += int64(hi - lo)
		from = hi
	}
	if from < end {
		gaps.add(addr+from, end-from)
	}
	return d, gaps.dontneed()
}

// ranges are ranges of memory to drop, as process_madvise takes them.
type ranges []unix.Iovec

func (r *ranges) add(addr, n uintptr) {
	if n > 0 {
		v := unix.Iovec{Base: (*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr)))}
		v.SetLen(int(n))
		*r = append(*r, v)
	}
}

// dontneed drops the pages of every range: with process_madvise, up to 1,024 ranges
// a call (the kernel flushes the TLB once a call since Linux 6.16, rather than once a
// range), or, where it fails (before Linux 6.13 it takes no MADV_DONTNEED), with
// madvise, a range at a time.
func (r ranges) dontneed() error {
	for len(r) > 0 {
		n := min(len(r), 1024)
		if err := processMadvise(r[:n]); err != nil {
			for _, v := range r {
				if err := madvise(uintptr(unsafe.Pointer(v.Base)), uintptr(v.Len)); err != nil {
					return err
				}
			}
			return nil
		}
		r = r[n:]
	}
	return nil
}

// readable returns the spans of pages to keep (see keepSpans), reading the pages of
// the mapping at addr that lie within its first end bytes and within the file: a
// page of the mapping past the file's end cannot be read (SIGBUS). A fault reading
// them all the same (the file cut short by another process meanwhile) is an error.
func readable(tx *bolt.Tx, addr, end uintptr, keep int64, hot [][]byte) (spans []span, err error) {
	fi, err := os.Stat(tx.DB().Path())
	if err != nil {
		return nil, err
	}
	n := min(end, uintptr(max(fi.Size(), 0)))
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			spans, err = nil, fmt.Errorf("boltmap: reading the pages to keep: %v", r)
		}
	}()
	return keepSpans(tx, unsafeSlice(addr, n), keep, hot)
}

// madvise drops n bytes of mapped pages at addr; n == 0 does nothing.
func madvise(addr, n uintptr) error {
	if n == 0 {
		return nil
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, addr, n, syscall.MADV_DONTNEED); errno != 0 {
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

// pidfd is this process's pidfd for process_madvise, -1 if it cannot be had.
var pidfd = sync.OnceValue(func() int {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return -1
	}
	return fd
})

// processMadvise drops the pages of every range in vs (at most 1,024) in one call.
func processMadvise(vs []unix.Iovec) error {
	fd := pidfd()
	if fd < 0 {
		return errors.ErrUnsupported
	}
	var want uint64
	for _, v := range vs {
		want += uint64(v.Len)
	}
	n, _, errno := syscall.Syscall6(unix.SYS_PROCESS_MADVISE, uintptr(fd), uintptr(unsafe.Pointer(&vs[0])), uintptr(len(vs)), unix.MADV_DONTNEED, 0, 0)
	if errno != 0 {
		return os.NewSyscallError("process_madvise", errno)
	}
	if uint64(n) != want {
		return fmt.Errorf("boltmap: process_madvise dropped %d bytes of %d", n, want)
	}
	return nil
}

// unsafeSlice returns the n bytes at addr, outside the Go heap.
func unsafeSlice(addr, n uintptr) []byte {
	// addr's bits as a pointer: the collector leaves memory outside its heap alone.
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))), n)
}
