//go:build linux

package procstat

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CPUTime returns the user and system CPU time the process has used so far.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// PageFaults returns the page faults the process has taken so far, minor (the page
// was in memory: a mapped file's page in the page cache, a new anonymous page) and
// major (read from disk).
func PageFaults() (minor, major int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return int64(ru.Minflt), int64(ru.Majflt)
}

// Memory returns VmHWM (peak resident set), RssAnon and RssFile (the pages of mapped
// files, such as bbolt's) from /proc/self/status, in bytes; 0 for those it cannot
// read.
func Memory() (peak, anon, file int64) {
	fields := map[string]*int64{"VmHWM:": &peak, "RssAnon:": &anon, "RssFile:": &file}
	procFields("/proc/self/status", func(key string, kb int64) {
		if p := fields[key]; p != nil {
			*p = kb << 10
		}
	})
	return peak, anon, file
}

// TotalMemory returns the machine's memory in bytes, 0 if unknown.
func TotalMemory() int64 {
	var total int64
	procFields("/proc/meminfo", func(key string, kb int64) {
		if key == "MemTotal:" {
			total = kb << 10
		}
	})
	return total
}

// procFields calls fn for every "Key: N kB" line of a /proc file.
func procFields(path string, fn func(key string, kb int64)) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[2] == "kB" {
			if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				fn(f[0], n)
			}
		}
	}
}

// BytesWritten returns the bytes the process has passed to write calls so far (wchar
// in /proc/self/io), or -1 if that cannot be read.
func BytesWritten() int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}
