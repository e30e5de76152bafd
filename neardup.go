package crawl

import (
	"sync"

	"github.com/politecrawl/crawl/extract"
)

// nearDupsPerHost bounds the SimHashes kept per host: the last 256 pages' (2 KiB a
// host), against which a page is compared in about a microsecond.
const nearDupsPerHost = 256

// nearDupsMinText is the least main text, in bytes, of a page compared with others:
// the signatures of shorter texts (a list page's "Page 2 of 9") say too little.
const nearDupsMinText = 500

// nearDups remembers the SimHashes of the pages fetched on each host in this run, for
// extract.skip_near_duplicates. The zero value is ready; it is safe for simultaneous
// use by multiple goroutines.
type nearDups struct {
	mu    sync.Mutex
	hosts map[string]*nearRing
}

// nearRing holds a host's last SimHashes.
type nearRing struct {
	h    [nearDupsPerHost]extract.SimHash
	n    int // how many of h are set
	next int // where the next one goes
}

// seen reports whether h is near one of the SimHashes of host's pages, and remembers
// it when it is not.
func (d *nearDups) seen(host string, h extract.SimHash) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.hosts[host]
	if r == nil {
		if d.hosts == nil {
			d.hosts = make(map[string]*nearRing)
		}
		r = &nearRing{}
		d.hosts[host] = r
	}
	for _, o := range r.h[:r.n] {
		if h.Near(o) {
			return true
		}
	}
	r.h[r.next] = h
	r.next = (r.next + 1) % nearDupsPerHost
	r.n = min(r.n+1, nearDupsPerHost)
	return false
}
