package workload

import (
	"container/heap"
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/politecrawl/crawl/frontier"
)

// Memory is the baseline of the frontier benchmarks: a frontier held in maps and
// slices, with no file. It keeps a set of the URLs seen, a FIFO queue of entries per
// host and a min-heap of hosts by ready time, and does for Add, Next and Done the
// bookkeeping that frontier.Frontier does in memory, less priorities, retries,
// counters and limits. It is safe for simultaneous use by multiple goroutines.
type Memory struct {
	maxInFlight int

	mu     sync.Mutex
	seen   map[string]struct{}
	hosts  map[string]*memHost
	ready  memHeap
	nextID int
}

// MemoryLease is a URL handed out by Memory.Next.
type MemoryLease struct {
	frontier.Entry
	// Host is the URL's authority, as in frontier.Lease.
	Host string

	h *memHost
}

type memHost struct {
	name    string
	id      int
	queue   []frontier.Entry // queue[head:] is waiting
	head    int
	leased  int
	readyAt int64 // Unix nanoseconds
	index   int   // in the heap, -1 when absent
}

// NewMemory returns an empty Memory that leases up to maxInFlight URLs of a host at
// once; 0 means 1, as in frontier.Options.
func NewMemory(maxInFlight int) *Memory {
	return &Memory{
		maxInFlight: max(maxInFlight, 1),
		seen:        make(map[string]struct{}),
		hosts:       make(map[string]*memHost),
	}
}

// Add queues the entries whose URLs were never seen and returns how many that was.
// Entries without an absolute URL are dropped.
func (m *Memory) Add(entries ...frontier.Entry) int {
	names := hostsOf(entries)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.add(entries, names)
}

// hostsOf returns the authorities of the entries' URLs, "" for a URL that has none.
// Like frontier.Frontier, Memory parses outside its lock.
func hostsOf(entries []frontier.Entry) []string {
	names := make([]string, len(entries))
	for i := range entries {
		names[i], _ = hostOf(entries[i].URL)
	}
	return names
}

// add queues entries, whose authorities are names. m.mu must be held.
func (m *Memory) add(entries []frontier.Entry, names []string) int {
	n := 0
	for i := range entries {
		e, name := &entries[i], names[i]
		if name == "" {
			continue
		}
		if _, dup := m.seen[e.URL]; dup {
			continue
		}
		m.seen[e.URL] = struct{}{}
		h := m.hosts[name]
		if h == nil {
			m.nextID++
			h = &memHost{name: name, id: m.nextID, index: -1}
			m.hosts[name] = h
		}
		h.queue = append(h.queue, *e)
		m.fix(h)
		n++
	}
	return n
}

// Next leases the head URL of the host whose ready time is earliest, if that time is
// not after now; it reports false if no host is ready.
func (m *Memory) Next(now time.Time) (*MemoryLease, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.ready) == 0 || m.ready[0].readyAt > now.UnixNano() {
		return nil, false
	}
	h := m.ready[0]
	l := &MemoryLease{Entry: h.queue[h.head], Host: h.name, h: h}
	h.queue[h.head] = frontier.Entry{}
	h.head++
	if h.head == len(h.queue) {
		h.queue, h.head = h.queue[:0], 0
	} else if h.head >= 64 && h.head > len(h.queue)/2 {
		n := copy(h.queue, h.queue[h.head:])
		clear(h.queue[n:])
		h.queue, h.head = h.queue[:n], 0
	}
	h.leased++
	m.fix(h)
	return l, true
}

// Done finishes a lease: its host may be leased again at ready, and links are queued
// as by Add. It returns how many links were new.
func (m *Memory) Done(l *MemoryLease, ready time.Time, links []frontier.Entry) int {
	names := hostsOf(links)
	m.mu.Lock()
	defer m.mu.Unlock()
	h := l.h
	h.leased--
	h.readyAt = ready.UnixNano()
	m.fix(h)
	return m.add(links, names)
}

// Len returns the number of URLs queued, leased ones excluded.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, h := range m.hosts {
		n += len(h.queue) - h.head
	}
	return n
}

// fix puts h in the heap, moves it or takes it out. m.mu must be held.
func (m *Memory) fix(h *memHost) {
	want := h.head < len(h.queue) && h.leased < m.maxInFlight
	switch {
	case want && h.index < 0:
		heap.Push(&m.ready, h)
	case want:
		heap.Fix(&m.ready, h.index)
	case h.index >= 0:
		heap.Remove(&m.ready, h.index)
	}
}

// hostOf is frontier's: scheme://host[:port], lower-cased.
func hostOf(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	if u.Scheme == "" || u.Host == "" {
		return "", errors.New("workload: URL is not absolute")
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), nil
}

// memHeap is a min-heap of hosts by ready time, then id.
type memHeap []*memHost

func (q memHeap) Len() int { return len(q) }
func (q memHeap) Less(i, j int) bool {
	if q[i].readyAt != q[j].readyAt {
		return q[i].readyAt < q[j].readyAt
	}
	return q[i].id < q[j].id
}
func (q memHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}
func (q *memHeap) Push(x any) {
	h := x.(*memHost)
	h.index = len(*q)
	*q = append(*q, h)
}
func (q *memHeap) Pop() any {
	old := *q
	h := old[len(old)-1]
	old[len(old)-1] = nil
	h.index = -1
	*q = old[:len(old)-1]
	return h
}
