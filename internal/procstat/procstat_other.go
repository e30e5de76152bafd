//go:build !linux

package procstat

import "time"

// Outside Linux the figures that need /proc or getrusage are not known.

func CPUTime() time.Duration           { return 0 }
func Memory() (peak, anon, file int64) { return 0, 0, 0 }
func TotalMemory() int64               { return 0 }
func BytesWritten() int64              { return -1 }
func PageFaults() (minor, major int64) { return 0, 0 }
