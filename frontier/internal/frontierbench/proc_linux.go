//go:build linux

package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// dropCache writes the file at path to disk and drops its pages from the page cache,
// so that the next Open reads from the disk (or from the host's cache, on a virtual
// machine). Only this file is affected.
func dropCache(path string) error {
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

// memStatus returns VmHWM, RssAnon and RssFile from /proc/self/status, in bytes; zero
// for those it cannot read.
func memStatus() (hwm, anon, file int64) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, 0
	}
	fields := map[string]*int64{"VmHWM:": &hwm, "RssAnon:": &anon, "RssFile:": &file}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text()) // "VmHWM:", "1234", "kB"
		if p := fields[f[0]]; p != nil && len(f) == 3 && f[2] == "kB" {
			if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				*p = n << 10
			}
		}
	}
	return hwm, anon, file
}

// bytesWritten returns the bytes the process has passed to write calls so far (wchar
// in /proc/self/io), or 0 if it cannot be read.
func bytesWritten() int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
