package frontier

import (
	"encoding/binary"
	"math"
	"slices"
)

// hostRecord is what the hosts bucket stores per authority.
type hostRecord struct {
	id       uint64
	ready    int64 // Unix nanoseconds; 0 = ready at once
	queued   int64 // entries in the queue bucket, leased ones included
	done     int64
	failed   int64
	skipped  int64
	errors   int64 // consecutive errors
	later    int64 // of queued, the entries with a due time (given back by Refetch)
	laterDue int64 // the earliest due time of those, Unix nanoseconds; 0 if none
	// stamp is the key of the last Done log record that carried this host's record
	// (0 if none): at Open, a logged record replaces the stored one only if its key
	// is greater (see donelog.go).
	stamp uint64
}

// hostVersion is the first byte of an encoded host record. Version 1 (format 2) had
// no later and laterDue, version 2 no stamp; decodeHost still reads them.
const hostVersion = 3

func (r *hostRecord) encode() []byte {
	return r.appendTo(make([]byte, 0, 1+10*binary.MaxVarintLen64))
}

func (r *hostRecord) appendTo(b []byte) []byte {
	b = append(b, hostVersion)
	b = binary.AppendUvarint(b, r.id)
	b = binary.AppendVarint(b, r.ready)
	for _, v := range [...]int64{r.queued, r.done, r.failed, r.skipped, r.errors, r.later} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	b = binary.AppendVarint(b, r.laterDue)
	return binary.AppendUvarint(b, r.stamp)
}

func decodeHost(b []byte) (hostRecord, error) {
	rd := reader{b: b}
	var r hostRecord
	version := rd.byte()
	if version < 1 || version > hostVersion {
		return r, errCorrupt
	}
	r.id = rd.uvarint()
	r.ready = rd.varint()
	counts := []*int64{&r.queued, &r.done, &r.failed, &r.skipped, &r.errors}
	if version >= 2 {
		counts = append(counts, &r.later)
	}
	for _, p := range counts {
		v := rd.uvarint()
		if v > math.MaxInt64 {
			rd.err = true
		}
		*p = int64(v)
	}
	if version >= 2 {
		r.laterDue = rd.varint()
	}
	if version >= 3 {
		r.stamp = rd.uvarint()
	}
	if rd.err || len(rd.b) != 0 || r.id == 0 || r.later > r.queued || (r.later > 0) != (r.laterDue > 0) {
		return hostRecord{}, errCorrupt
	}
	return r, nil
}

// host is the in-memory state of one authority. rec mirrors the committed hosts
// record; the other fields live only in memory. It is 144 bytes (with its name and
// its slot in Frontier.hosts, about 200), one per host whatever the number of URLs:
// what only some hosts need at a time (their leases, their pending queue changes)
// hangs off a pointer, nil for the others.
type host struct {
	name string
	rec  hostRecord
	// leases holds the outstanding leases, at most MaxInFlightPerHost; nil when
	// there are none.
	leases *[]*Lease
	// pend holds the queue changes of Done outcomes that are logged and not yet
	// folded into the queue bucket, by queue key; nil when there are none. The
	// committer writes it under f.mu; Next reads it under f.mu to see the queue as
	// it is, and the committer reads it without (see batch.host).
	pend *pendList
	// dueHint is the due time of the host's first later entry not leased, when Next
	// found it to be after rec.laterDue (that entry is leased); 0 when not known.
	dueHint int64
	at      int64 // the heap's key: when the host may be leased next (see eligible)
	index   int32 // position in the ready heap, -1 when absent
	// ahead is set once its head was handed to be read ahead, until it is leased.
	ahead bool
	// dirty is set while rec is newer than the stored host record: the difference
	// is in the Done log.
	dirty bool
	// parked is set once Park set the host aside; Frontier.parked holds why.
	parked bool
	// capped is set once MaxDone counted URLs are done and the host's head is a
	// counted one (Options.Uncounted); an uncounted URL queued on it clears it.
	capped bool
}

// leaseList returns the outstanding leases.
func (h *host) leaseList() []*Lease {
	if h.leases == nil {
		return nil
	}
	return *h.leases
}

// addLease adds l to the outstanding leases.
func (h *host) addLease(l *Lease) {
	if h.leases == nil {
		h.leases = new([]*Lease)
	}
	*h.leases = append(*h.leases, l)
}

// removeLease takes l out of the outstanding leases, and drops the list once empty:
// a lease left in it would keep its entry alive as long as the host.
func (h *host) removeLease(l *Lease) {
	if h.leases == nil {
		return
	}
	if i := slices.Index(*h.leases, l); i >= 0 {
		*h.leases = slices.Delete(*h.leases, i, i+1)
	}
	if len(*h.leases) == 0 {
		h.leases = nil
	}
}

// pending returns the queue changes logged and not folded in, sorted by key.
func (h *host) pending() pendList {
	if h.pend == nil {
		return nil
	}
	return *h.pend
}

// setPending makes op the pending change of key k, and reports whether k had none.
func (h *host) setPending(k []byte, op pendOp) bool {
	if h.pend == nil {
		h.pend = new(pendList)
	}
	return h.pend.set(k, op)
}

// removePending drops the pending change of key k, and the list once empty.
func (h *host) removePending(k []byte) {
	if h.pend == nil {
		return
	}
	if h.pend.remove(k); len(*h.pend) == 0 {
		h.pend = nil
	}
}

// available reports how many queued entries are not leased.
func (h *host) available() int64 { return h.rec.queued - int64(len(h.leaseList())) }

// availableNow and availableLater split available() between the entries due at once
// and those with a due time.
func (h *host) availableNow() int64   { return h.rec.queued - h.rec.later - h.leasedLater(false) }
func (h *host) availableLater() int64 { return h.rec.later - h.leasedLater(true) }

func (h *host) leasedLater(later bool) int64 {
	var n int64
	for _, l := range h.leaseList() {
		if l.later == later {
			n++
		}
	}
	return n
}

// eligible returns when the host may be leased next, Unix nanoseconds: its ready time,
// or, when only URLs with a due time are left, the later of that and the first due.
func (h *host) eligible() int64 {
	if h.availableNow() > 0 {
		return h.rec.ready
	}
	return max(h.rec.ready, h.rec.laterDue, h.dueHint)
}

// hostHeap is a min-heap of hosts by eligible time (host.at), then id (first added first), so that
// the order is deterministic.
type hostHeap []*host

func (q hostHeap) Len() int { return len(q) }
func (q hostHeap) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.rec.id < b.rec.id
}
func (q hostHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = int32(i)
	q[j].index = int32(j)
}
func (q *hostHeap) Push(x any) {
	h := x.(*host)
	h.index = int32(len(*q))
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
