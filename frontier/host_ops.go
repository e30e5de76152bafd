package frontier

import (
	"context"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Park sets a host's queued URLs aside for the rest of this run (robots.txt
// unreachable, too many errors): Next no longer leases them and they count as skipped
// with reason in Stats and no longer keep the crawl from ending. They stay in the
// database and come back at the next Open. URLs added to the host later are set aside
// too; outstanding leases are unaffected and are finished with Done as usual. Park
// never blocks; ctx is for symmetry with the other calls.
func (f *Frontier) Park(ctx context.Context, host string, reason string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	reason = cutReason(reason, "parked")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.parked[host] = reason
	if h := f.hosts[host]; h != nil {
		h.parked = true
		f.fix(h)
	}
	f.broadcast()
	return nil
}

// SetHostReady sets when host may be leased next, durably. It returns ErrUnknownHost if
// no URL of host was ever queued.
func (f *Frontier) SetHostReady(host string, t time.Time) error {
	f.mu.Lock()
	_, known := f.hosts[host]
	f.mu.Unlock()
	if !known {
		if err := f.checkOpen(); err != nil {
			return err
		}
		return ErrUnknownHost
	}
	return f.do(context.Background(), &op{apply: func(b *batch) error {
		ht := b.host(host, false)
		ht.rec.ready = 0
		if !t.IsZero() {
			ht.rec.ready = t.UnixNano()
		}
		return nil
	}})
}

// LoadRobots returns the robots.txt data saved for authority, or nil, nil if there is
// none. The data is opaque to the Frontier; the returned slice is the caller's.
func (f *Frontier) LoadRobots(authority string) ([]byte, error) {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	var data []byte
	err := f.view(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketRobots).Get([]byte(authority)); v != nil {
			data = append([]byte{}, v...)
		}
		return nil
	})
	return data, err
}

// SaveRobots stores data for authority, replacing what was there, durably. Empty data
// deletes the entry.
func (f *Frontier) SaveRobots(authority string, data []byte) error {
	data = append([]byte(nil), data...)
	return f.do(context.Background(), &op{apply: func(b *batch) error {
		if data == nil {
			return b.robots.Delete([]byte(authority))
		}
		return b.robots.Put([]byte(authority), data)
	}})
}
