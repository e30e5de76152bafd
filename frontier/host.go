package frontier

import (
	"encoding/binary"
	"math"
	"time"
)

// hostRecord is what the hosts bucket stores per authority.
type hostRecord struct {
	id      uint64
	ready   int64 // Unix nanoseconds; 0 = ready at once
	queued  int64 // entries in the queue bucket, leased ones included
	done    int64
	failed  int64
	skipped int64
	errors  int64 // consecutive errors
}

const hostVersion = 1

func (r *hostRecord) encode() []byte {
	b := make([]byte, 0, 1+7*binary.MaxVarintLen64)
	b = append(b, hostVersion)
	b = binary.AppendUvarint(b, r.id)
	b = binary.AppendVarint(b, r.ready)
	for _, v := range [...]int64{r.queued, r.done, r.failed, r.skipped, r.errors} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	return b
}

func decodeHost(b []byte) (hostRecord, error) {
	rd := reader{b: b}
	var r hostRecord
	if rd.byte() != hostVersion {
		return r, errCorrupt
	}
	r.id = rd.uvarint()
	r.ready = rd.varint()
	for _, p := range [...]*int64{&r.queued, &r.done, &r.failed, &r.skipped, &r.errors} {
		v := rd.uvarint()
		if v > math.MaxInt64 {
			rd.err = true
		}
		*p = int64(v)
	}
	if rd.err || len(rd.b) != 0 || r.id == 0 {
		return hostRecord{}, errCorrupt
	}
	return r, nil
}

// host is the in-memory state of one authority. rec mirrors the committed hosts
// record; the other fields live only in memory.
type host struct {
	name   string
	rec    hostRecord
	leases []*Lease // outstanding leases, at most MaxInFlightPerHost
	index  int      // position in the ready heap, -1 when absent
	parked string   // reason, empty when not parked
}

// available reports how many queued entries are not leased.
func (h *host) available() int64 { return h.rec.queued - int64(len(h.leases)) }

func (h *host) readyTime() time.Time {
	if h.rec.ready == 0 {
		return time.Time{}
	}
	return time.Unix(0, h.rec.ready)
}

// hostHeap is a min-heap of hosts by ready time, then id (first added first), so that
// the order is deterministic.
type hostHeap []*host

func (q hostHeap) Len() int { return len(q) }
func (q hostHeap) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.rec.ready != b.rec.ready {
		return a.rec.ready < b.rec.ready
	}
	return a.rec.id < b.rec.id
}
func (q hostHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}
func (q *hostHeap) Push(x any) {
	h := x.(*host)
	h.index = len(*q)
	*q = append(*q, h)
}
func (q *hostHeap) Pop() any {
	old := *q
	h := old[len(old)-1]
	old[len(old)-1] = nil
	h.index = -1
	*q = old[:len(old)-1]
	return h
}
