package frontier

import (
	bolt "go.etcd.io/bbolt"
)

// Read-ahead. Next reads the head of the host it leases from the queue bucket while
// it holds f.mu, so that what it reads and the queue changes held in memory agree.
// When the file is not in the page cache (a crawl resumed after a reboot, or a file
// larger than the memory the system gives its cache), each of those reads waits for
// the disk, and every other Next waits behind it: at 10M URLs over 100,000 hosts the
// leaf holding a host's head is a different page for every lease. So Next also hands
// the hosts nearest the top of the ready heap to a few goroutines that read their
// heads' pages ahead, outside f.mu, several at once: when Next comes to those hosts,
// their pages are in the page cache. They only read; what Next leases is decided as
// before.
const (
	readAheadHosts   = 32 // hosts from the top of the heap read ahead
	readAheadReaders = 8  // goroutines reading ahead, at most this many reads at once
)

// startReadAhead starts the goroutines that read ahead.
func (f *Frontier) startReadAhead() {
	f.ahead = make(chan uint64, readAheadHosts*2)
	for range readAheadReaders {
		f.aheadWG.Go(func() {
			for id := range f.ahead {
				// An error here is one Next would meet and report itself.
				_ = f.view(func(tx *bolt.Tx) error {
					tx.Bucket(bucketQueue).Cursor().Seek(hostPrefix(id))
					return nil
				})
			}
		})
	}
}

// stopReadAhead stops them and waits for their reads to end, once no Next can hand
// them anything (f.closed is set, or in tests). A second call does nothing.
func (f *Frontier) stopReadAhead() {
	if f.ahead != nil {
		close(f.ahead)
		f.aheadWG.Wait()
		f.ahead = nil
	}
}

// readAhead hands the hosts near the top of the ready heap whose heads were not read
// ahead since they were last leased to the goroutines reading ahead, as many as
// their queue takes without waiting. f.mu must be held.
func (f *Frontier) readAhead() {
	if f.ahead == nil {
		return
	}
	for _, h := range f.heap[:min(len(f.heap), readAheadHosts)] {
		if h.ahead {
			continue
		}
		select {
		case f.ahead <- h.rec.id:
			h.ahead = true
		default:
			return
		}
	}
}
