package main

import (
	"fmt"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/politecrawl/crawl/internal/procstat"
)

// highWatch writes, for a child measuring the frontier, what its memory holds at its
// highs: with FRONTIERBENCH_HEAPPROFILE=PATH, a heap profile to PATH at each new high
// of the live heap (as the last collection found it, which is what the profile's
// in-use figures are of) at least 1 MiB above the last one written, with PATH.txt
// giving the live heap, the heap in use and the resident set then; and PATH.smaps,
// /proc/self/smaps at each new high of the resident set (RssAnon plus RssFile) 4 MiB
// above the last one written, which says which mappings hold the file-backed pages.
// Each file is overwritten at each high, so what is left is the last. It polls every
// 20 ms, and returns a function that stops it; with an empty path it does nothing.
// The build watches itself the same way, into PATH.build (and PATH.build.txt, ...).
func highWatch(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		sample := []metrics.Sample{
			{Name: "/gc/heap/live:bytes"},
			{Name: "/memory/classes/heap/objects:bytes"},
			{Name: "/memory/classes/heap/unused:bytes"},
		}
		var liveHigh, rssHigh uint64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live >= liveHigh+1<<20 {
				liveHigh = live
				if f, err := os.Create(path); err == nil {
					_ = pprof.Lookup("heap").WriteTo(f, 0)
					f.Close()
				}
				inuse := sample[1].Value.Uint64() + sample[2].Value.Uint64()
				_, anon, file := procstat.Memory()
				_ = os.WriteFile(path+".txt", []byte(time.Now().UTC().Format(time.RFC3339Nano)+
					" live "+mib(live)+" HeapInuse "+mib(inuse)+" RssAnon "+mib(uint64(anon))+" RssFile "+mib(uint64(file))+"\n"), 0o644)
			}
			if _, anon, file := procstat.Memory(); uint64(anon+file) >= rssHigh+4<<20 {
				rssHigh = uint64(anon + file)
				if data, err := os.ReadFile("/proc/self/smaps"); err == nil {
					_ = os.WriteFile(path+".smaps", data, 0o644)
				}
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

func mib(n uint64) string { return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20)) }
