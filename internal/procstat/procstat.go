// Package procstat reads what the benchmark programs report about their own process:
// CPU time, resident memory, bytes written, Go heap in use, and a way to drop a file
// from the page cache before a cold measurement. Where a figure cannot be read
// (outside Linux) it is 0, or -1 for BytesWritten.
package procstat

import "runtime"

// HeapInuse returns runtime.MemStats.HeapInuse after a full collection.
func HeapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
