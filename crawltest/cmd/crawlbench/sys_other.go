//go:build !linux

package main

import "time"

// On systems other than Linux the figures that need /proc or getrusage read as zero
// ("n/a" in the output).

func cpuTime() time.Duration              { return 0 }
func memStatus() (peak, anon, file int64) { return 0, 0, 0 }
func totalMemory() int64                  { return 0 }
func bytesWritten() int64                 { return -1 }
