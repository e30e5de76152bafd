package frontier

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The model is the frontier's specification in maps and slices, with no persistence.
// TestModel runs random operations against both and requires them to agree.

type mEntry struct {
	e        Entry
	seq      int
	attempts int
	due      int64 // 0: at once; else Unix nanoseconds (given back by Refetch)
}

type mHost struct {
	name    string
	id      int
	ready   int64
	queue   []*mEntry // due at once, in lease order
	later   []*mEntry // given back for later, by due time then lease order
	leased  []*mEntry
	parked  string
	done    int64
	failed  int64
	skipped int64
	errors  int64
}

func (h *mHost) available() int { return len(h.queue) + len(h.later) - len(h.leased) }

// firstFree returns the first entry of es not leased, or nil.
func (h *mHost) firstFree(es []*mEntry) *mEntry {
	for _, e := range es {
		if !slices.Contains(h.leased, e) {
			return e
		}
	}
	return nil
}

// eligible is when h may be leased next: its ready time, or, if only URLs due later
// are free, the later of that and the first one's due time.
func (h *mHost) eligible() int64 {
	if h.firstFree(h.queue) != nil {
		return h.ready
	}
	if e := h.firstFree(h.later); e != nil {
		return max(h.ready, e.due)
	}
	return h.ready
}

func (h *mHost) laterFree() int64 {
	n := int64(0)
	for _, e := range h.later {
		if !slices.Contains(h.leased, e) {
			n++
		}
	}
	return n
}

// byRank orders entries by priority (descending), depth, then sequence.
func byRank(a, b *mEntry) int {
	return cmp.Or(
		cmp.Compare(b.e.Priority, a.e.Priority),
		cmp.Compare(a.e.Depth, b.e.Depth),
		cmp.Compare(a.seq, b.seq))
}

type model struct {
	opts     Options
	inFlight int
	hosts    map[string]*mHost
	seen     map[string]bool
	counters map[string]int64
	seq      int
	leases   map[*Lease]*mEntry
	parked   map[string]string
	staged   []mEntry         // links found by Done and not yet folded in, with their sequence numbers
	pend     map[*mEntry]bool // entries changed by a Done in the log, not yet folded in
}

func newModel(opts Options) *model {
	return &model{
		opts: opts, inFlight: max(opts.MaxInFlightPerHost, 1),
		hosts: map[string]*mHost{}, seen: map[string]bool{}, counters: map[string]int64{},
		leases: map[*Lease]*mEntry{}, parked: map[string]string{}, pend: map[*mEntry]bool{},
	}
}

// refuse counts e as refused and returns true if its depth or URL is refused.
func (m *model) refuse(e Entry) bool {
	if m.opts.MaxDepth > 0 && e.Depth > m.opts.MaxDepth {
		m.counters[pRefused+RefusedDepth]++
		return true
	}
	if _, err := hostOf(e.URL); err != nil || len(e.URL) > MaxURLSize {
		m.counters[pRefused+RefusedURL]++
		return true
	}
	return false
}

func (m *model) add(e Entry) bool { return m.addSeq(e, 0) }

// addSeq adds e with sequence number seq, or the next one if seq is 0.
func (m *model) addSeq(e Entry, seq int) bool {
	if m.refuse(e) {
		return false
	}
	name, _ := hostOf(e.URL)
	if m.seen[e.URL] {
		m.counters[cDuplicate]++
		return false
	}
	if m.opts.MaxTotal > 0 && m.counters[cAdded] >= int64(m.opts.MaxTotal) {
		m.counters[pRefused+RefusedTotal]++
		return false
	}
	h := m.hosts[name]
	if m.opts.MaxQueuedPerHost > 0 && h != nil && len(h.queue)+len(h.later) >= m.opts.MaxQueuedPerHost {
		m.counters[pRefused+RefusedHostQueue]++
		return false
	}
	if h == nil {
		h = &mHost{name: name, id: len(m.hosts), parked: m.parked[name]}
		m.hosts[name] = h
	}
	m.seen[e.URL] = true
	if seq == 0 {
		m.seq++
		seq = m.seq
	}
	h.queue = append(h.queue, &mEntry{e: e, seq: seq})
	slices.SortStableFunc(h.queue, byRank)
	m.counters[cAdded]++
	return true
}

func (m *model) leased() int { return len(m.leases) }

// next returns the entry and host to lease at now, or the wait time, or ErrDone.
func (m *model) next(now int64) (*mHost, *mEntry, int64, error) {
	if m.opts.MaxDone > 0 && m.counters[cDone]+int64(m.leased()) >= int64(m.opts.MaxDone) {
		if m.leased() == 0 {
			return nil, nil, 0, ErrDone
		}
		return nil, nil, 0, nil
	}
	var best *mHost
	for _, h := range m.hosts {
		if h.parked != "" || h.available() == 0 || len(h.leased) >= m.inFlight {
			continue
		}
		if best == nil || h.eligible() < best.eligible() || h.eligible() == best.eligible() && h.id < best.id {
			best = h
		}
	}
	if best == nil {
		if m.leased() == 0 && len(m.staged) == 0 {
			return nil, nil, 0, ErrDone
		}
		return nil, nil, 0, nil
	}
	if at := best.eligible(); at > now {
		return nil, nil, at, nil
	}
	first, later := best.firstFree(best.queue), best.firstFree(best.later)
	// A URL due later whose time has come goes first unless one due at once ranks
	// before it by priority and depth.
	if later != nil && later.due <= now && (first == nil ||
		cmp.Or(cmp.Compare(first.e.Priority, later.e.Priority), cmp.Compare(later.e.Depth, first.e.Depth)) <= 0) {
		return best, later, 0, nil
	}
	if first == nil {
		panic("model: available host without entry")
	}
	return best, first, 0, nil
}

func (m *model) done(l *Lease, o Outcome, now int64) {
	e := m.leases[l]
	delete(m.leases, l)
	h := m.hosts[l.Host]
	h.leased = slices.DeleteFunc(h.leased, func(x *mEntry) bool { return x == e })
	ready := now
	if !o.HostReady.IsZero() {
		ready = o.HostReady.UnixNano()
	}
	kind, why := o.Kind, o.Reason
	if kind == Retry {
		attempts := e.attempts + 1
		if o.NoAttempt {
			attempts = e.attempts
		}
		if attempts >= cmp.Or(m.opts.MaxAttempts, 3) {
			kind, why = Failed, cmp.Or(why, "attempts")
		} else {
			m.pend[e] = true
			e.attempts = attempts
			if !o.RetryAt.IsZero() && o.RetryAt.UnixNano() > ready {
				ready = o.RetryAt.UnixNano()
			}
		}
	}
	switch kind {
	case Finished:
		h.done++
		m.counters[cDone]++
	case Failed:
		h.failed++
		m.counters[pFailed+cmp.Or(why, "error")]++
	case Skipped:
		h.skipped++
		m.counters[pSkipped+cmp.Or(why, "skipped")]++
	}
	if kind != Retry {
		m.pend[e] = true
		h.queue = slices.DeleteFunc(h.queue, func(x *mEntry) bool { return x == e })
		h.later = slices.DeleteFunc(h.later, func(x *mEntry) bool { return x == e })
		if !o.Refetch.IsZero() {
			m.seq++
			again := &mEntry{e: e.e, seq: m.seq, due: max(o.Refetch.UnixNano(), 1)}
			m.pend[again] = true
			h.later = append(h.later, again)
			slices.SortStableFunc(h.later, func(a, b *mEntry) int { return cmp.Or(cmp.Compare(a.due, b.due), byRank(a, b)) })
		}
	}
	switch {
	case o.Error:
		h.errors++
	case kind == Finished:
		h.errors = 0
	}
	h.ready = ready
	for _, link := range o.Links {
		if m.opts.LinkBatch <= 0 {
			m.add(link)
		} else if !m.refuse(link) {
			m.seq++
			m.staged = append(m.staged, mEntry{e: link, seq: m.seq})
		}
	}
	// A fold, of the staged links and the log, once either reaches its batch.
	if m.opts.LinkBatch > 0 && len(m.staged) >= m.opts.LinkBatch || len(m.pend) >= cmp.Or(m.opts.LogBatch, defaultLogBatch) {
		m.fold()
	}
}

// fold queues the staged links in seen-key order (host hash, then URL fingerprint),
// the first staged first among equals, each with the sequence number it got when
// staged.
func (m *model) fold() {
	key := func(e Entry) seenKey { h, _ := hostOf(e.URL); return fingerprint(h, e.URL) }
	slices.SortStableFunc(m.staged, func(a, b mEntry) int {
		ka, kb := key(a.e), key(b.e)
		return bytes.Compare(ka[:], kb[:])
	})
	for _, e := range m.staged {
		m.addSeq(e.e, e.seq)
	}
	m.staged = nil
	clear(m.pend)
}

// requeue is Requeue of one entry.
func (m *model) requeue(e Entry) bool {
	if m.refuse(e) {
		return false
	}
	if !m.seen[e.URL] {
		return m.add(e)
	}
	name, _ := hostOf(e.URL)
	h := m.hosts[name]
	if slices.ContainsFunc(slices.Concat(h.queue, h.later), func(x *mEntry) bool { return x.e.URL == e.URL }) {
		return false
	}
	m.seq++
	h.queue = append(h.queue, &mEntry{e: e, seq: m.seq})
	slices.SortStableFunc(h.queue, byRank)
	if h.done > 0 {
		h.done--
		if m.counters[cDone] > 0 {
			m.counters[cDone]--
		}
	}
	return true
}

func (m *model) reopen() {
	for _, h := range m.hosts {
		h.leased = nil
		h.parked = ""
	}
	clear(m.leases)
	clear(m.parked)
}

func (m *model) stats(now int64) Stats {
	s := Stats{
		Leased: m.leased(), Added: m.counters[cAdded], Duplicates: m.counters[cDuplicate],
		Done: m.counters[cDone], Failed: map[string]int64{}, Skipped: map[string]int64{},
		Refused: map[string]int64{}, Hosts: len(m.hosts), Staged: int64(len(m.staged)),
	}
	for k, v := range m.counters {
		for p, dst := range map[string]map[string]int64{pFailed: s.Failed, pSkipped: s.Skipped, pRefused: s.Refused} {
			if len(k) > len(p) && k[:len(p)] == p {
				dst[k[len(p):]] += v
			}
		}
	}
	for _, h := range m.hosts {
		a := int64(h.available())
		switch {
		case h.parked != "":
			s.Parked += a
			s.Skipped[h.parked] += a
			if a > 0 {
				s.HostsParked++
			}
		case a > 0:
			s.Queued += a
			s.Scheduled += h.laterFree()
			if h.eligible() <= now && len(h.leased) < m.inFlight {
				s.HostsReady++
			} else {
				s.HostsWaiting++
			}
		}
	}
	return s
}

func (m *model) hostStats(h *mHost) HostStats {
	hs := HostStats{
		Host: h.name, Queued: int64(h.available()), Leased: len(h.leased), Done: h.done,
		Failed: h.failed, Skipped: h.skipped, ConsecutiveErrors: h.errors, Parked: h.parked,
	}
	if h.ready != 0 {
		hs.Ready = time.Unix(0, h.ready)
	}
	hs.Scheduled = h.laterFree()
	if len(h.later) > 0 {
		hs.NextDue = time.Unix(0, h.later[0].due)
	}
	return hs
}

func TestModel(t *testing.T) {
	optionSets := []Options{
		{},
		{MaxInFlightPerHost: 2, MaxAttempts: 2, LinkBatch: 5},
		{MaxDepth: 2, MaxQueuedPerHost: 4, MaxTotal: 40, LinkBatch: 3},
		{LinkBatch: 1000},
		{MaxDepth: 2, MaxQueuedPerHost: 4, MaxTotal: 40},
		{MaxDone: 12, MaxInFlightPerHost: 2},
		{MaxDone: 20, LinkBatch: 4},
		{LogBatch: 3},
		{LogBatch: 5, LinkBatch: 4, MaxInFlightPerHost: 2},
		// Folds sorted 3 links at a time, in temporary files, and merged.
		{LinkBatch: 1000, FoldLinks: 3, MaxInFlightPerHost: 2},
	}
	for seed := range uint64(30) {
		opts := optionSets[seed%uint64(len(optionSets))]
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			if seed >= 20 {
				// A fold's records deleted one node per commit: reopens, checks
				// and the next folds land in the middle of their deletion.
				d := deleteNodes
				t.Cleanup(func() { deleteNodes = d })
				deleteNodes = 1
			}
			runModel(t, seed, opts, 400)
		})
	}
}

func runModel(t *testing.T, seed uint64, opts Options, steps int) {
	rng := rand.New(rand.NewPCG(seed, 42))
	ctx := context.Background()
	c := newClock()
	opts.Now = c.Now
	opts.NoSync = true
	path := filepath.Join(t.TempDir(), "frontier.db")
	f, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { f.Close() }()
	m := newModel(opts)
	hostNames := []string{"http://a.test", "https://a.test", "http://b.test:8080", "http://c.test", "http://d.test"}
	randEntry := func() Entry {
		if rng.IntN(30) == 0 {
			return Entry{URL: []string{"/relative", "http://[bad", "mailto:x@y"}[rng.IntN(3)]}
		}
		return Entry{
			URL:      fmt.Sprintf("%s/p%d", hostNames[rng.IntN(len(hostNames))], rng.IntN(60)),
			Depth:    rng.IntN(4),
			Priority: rng.IntN(3) - 1,
			Kind:     uint8(rng.IntN(3)),
			Hops:     rng.IntN(2),
		}
	}
	randEntries := func(max int) []Entry {
		es := make([]Entry, rng.IntN(max+1))
		for i := range es {
			es[i] = randEntry()
		}
		return es
	}
	var outstanding []*Lease
	refetch := seed%3 != 0 // some seeds never refetch, so that crawls end
	for step := range steps {
		now := c.Now().UnixNano()
		var what string
		switch r := rng.IntN(100); {
		case r < 20:
			es := randEntries(6)
			what = fmt.Sprintf("Add(%d)", len(es))
			want := 0
			for _, e := range es {
				if m.add(e) {
					want++
				}
			}
			got, err := f.Add(ctx, es...)
			if err != nil || got != want {
				t.Fatalf("step %d %s: got %d, %v; want %d", step, what, got, err, want)
			}
		case r < 55:
			what = "Next"
			mh, me, mwait, merr := m.next(now)
			l, wait, err := tryNext(f)
			if me == nil && merr == nil && len(m.staged) > 0 {
				// Next folds the staged links in rather than wait.
				what = "Next after Flush"
				if l != nil || err != nil {
					t.Fatalf("step %d Next: got %v, %v; want a fold first", step, l, err)
				}
				m.fold()
				if err := f.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				mh, me, mwait, merr = m.next(now)
				l, wait, err = tryNext(f)
			}
			switch {
			case merr != nil || err != nil:
				if !errors.Is(err, merr) {
					t.Fatalf("step %d Next: got err %v, want %v", step, err, merr)
				}
			case me == nil:
				if l != nil || wait.UnixNano() != mwait && !(wait.IsZero() && mwait == 0) {
					t.Fatalf("step %d Next: got %v wait %v, want no lease, wait %d", step, l, wait, mwait)
				}
			default:
				if l == nil || l.Entry != me.e || l.Host != mh.name || l.Attempt != me.attempts+1 {
					t.Fatalf("step %d Next: got %+v, want %+v host %s attempt %d", step, l, me.e, mh.name, me.attempts+1)
				}
				mh.leased = append(mh.leased, me)
				m.leases[l] = me
				outstanding = append(outstanding, l)
			}
		case r < 80 && len(outstanding) > 0:
			i := rng.IntN(len(outstanding))
			l := outstanding[i]
			outstanding = slices.Delete(outstanding, i, i+1)
			o := Outcome{Kind: OutcomeKind(rng.IntN(4)), Error: rng.IntN(3) == 0, Links: randEntries(4)}
			if o.Kind != Finished && rng.IntN(2) == 0 {
				o.Reason = []string{"robots", "scope", "limit"}[rng.IntN(3)]
			}
			if rng.IntN(2) == 0 {
				o.HostReady = c.Now().Add(time.Duration(rng.IntN(5)) * time.Second)
			}
			if o.Kind != Retry && refetch && rng.IntN(3) == 0 {
				o.Refetch = c.Now().Add(time.Duration(rng.IntN(8)-1) * time.Second)
			}
			if o.Kind == Retry {
				o.NoAttempt = rng.IntN(4) == 0
				if rng.IntN(2) == 0 {
					o.RetryAt = c.Now().Add(time.Duration(rng.IntN(10)) * time.Second)
				}
			}
			what = fmt.Sprintf("Done(%s, %v)", l.URL, o.Kind)
			m.done(l, o, now)
			if err := f.Done(ctx, l, o); err != nil {
				t.Fatalf("step %d %s: %v", step, what, err)
			}
		case r < 88:
			d := time.Duration(rng.IntN(4)) * time.Second
			what = fmt.Sprintf("Advance(%v)", d)
			c.Advance(d)
		case r < 92:
			name := hostNames[rng.IntN(len(hostNames))]
			what = "Park(" + name + ")"
			m.parked[name] = "robots"
			if h := m.hosts[name]; h != nil {
				h.parked = "robots"
			}
			if err := f.Park(ctx, name, "robots"); err != nil {
				t.Fatal(err)
			}
		case r < 95:
			name := hostNames[rng.IntN(len(hostNames))]
			what = "SetHostReady(" + name + ")"
			at := c.Now().Add(time.Duration(rng.IntN(5)) * time.Second)
			err := f.SetHostReady(name, at)
			if h := m.hosts[name]; h != nil {
				h.ready = at.UnixNano()
				if err != nil {
					t.Fatalf("step %d %s: %v", step, what, err)
				}
			} else if !errors.Is(err, ErrUnknownHost) {
				t.Fatalf("step %d %s: got %v, want ErrUnknownHost", step, what, err)
			}
		case r < 97:
			es := randEntries(4)
			what = fmt.Sprintf("Requeue(%d)", len(es))
			want := 0
			for _, e := range es {
				if m.requeue(e) {
					want++
				}
			}
			got, err := f.Requeue(ctx, es...)
			if err != nil || got != want {
				t.Fatalf("step %d %s: got %d, %v; want %d", step, what, got, err, want)
			}
		default:
			what = "reopen"
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if f, err = Open(path, opts); err != nil {
				t.Fatal(err)
			}
			if s := f.Stats(); s.Recovered != len(outstanding) {
				t.Fatalf("step %d reopen: Recovered %d, want %d", step, s.Recovered, len(outstanding))
			}
			m.reopen()
			outstanding = nil
		}
		now = c.Now().UnixNano()
		got, want := f.Stats(), m.stats(now)
		got.Recovered = 0
		got.SeenRuns, got.SeenLevel0 = 0, 0 // the seen set's layout, not modelled
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Fatalf("step %d after %s: Stats\n\tgot  %+v\n\twant %+v", step, what, got, want)
		}
		if step%50 == 0 {
			if err := f.Check(); err != nil {
				t.Fatalf("step %d after %s: Check: %v", step, what, err)
			}
		}
		if step%10 == 0 {
			var gotHosts, wantHosts []HostStats
			for hs := range f.Hosts() {
				gotHosts = append(gotHosts, hs)
			}
			for _, name := range slices.Sorted(maps.Keys(m.hosts)) {
				wantHosts = append(wantHosts, m.hostStats(m.hosts[name]))
			}
			if fmt.Sprint(gotHosts) != fmt.Sprint(wantHosts) {
				t.Fatalf("step %d after %s: Hosts\n\tgot  %v\n\twant %v", step, what, gotHosts, wantHosts)
			}
		}
	}
}
