package politeness

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Scheduler decides when each host may be fetched. Create it with [New]; the zero value
// is not usable. It is safe for simultaneous use by multiple goroutines, starts no
// goroutines and needs no Close.
type Scheduler struct {
	mu     sync.Mutex
	opts   Options // normalised
	hosts  map[string]*entry
	groups map[string]*entry // by IP address, when Options.GroupByIP
	global *rate.Limiter     // nil without Options.Rate
}

// entry is the state of one host, or of one IP address shared by hosts. It is guarded by
// Scheduler.mu.
type entry struct {
	next      time.Time     // earliest start of the next request, from completed requests
	lastWrite time.Time     // latest write time of a request (for Concurrency > 1)
	lastEnd   time.Time     // latest end of a response, from which the delay counts
	lastDur   time.Duration // duration of the latest response, for the adaptive delay
	rules     *hostRules    // robots pacing; nil for none (hosts only)
	group     *entry        // the IP group; nil when ungrouped (hosts only)
	pending   *entry        // the group to join once in-flight requests end
	wake      chan struct{} // closed when a request ends or is written; nil if none waits
	inflight  int32
	unwritten int32 // in-flight requests whose write time is not yet known
	failures  int32 // consecutive failures, for the backoff
	refs      int32 // hosts in this group, counting pending joins (groups only)
	reason    Reason
	repend    bool // pending is set (it may be nil: leave the group)
}

// push moves e.next later to t, remembering why.
func (e *entry) push(t time.Time, why Reason) {
	if t.After(e.next) {
		e.next, e.reason = t, why
	}
}

// wakeChan returns the channel closed at e's next change.
func (e *entry) wakeChan() <-chan struct{} {
	if e.wake == nil {
		e.wake = make(chan struct{})
	}
	return e.wake
}

func (e *entry) wakeAll() {
	if e.wake != nil {
		close(e.wake)
		e.wake = nil
	}
}

// New returns a Scheduler with the given options; zero fields take their defaults.
func New(opts Options) *Scheduler {
	s := &Scheduler{
		opts:   opts.normalised(),
		hosts:  make(map[string]*entry),
		groups: make(map[string]*entry),
	}
	if s.opts.Rate > 0 {
		s.global = rate.NewLimiter(s.opts.Rate, s.opts.Burst)
	}
	return s
}

// Options returns the options in force, with defaults filled in and values that turn a
// feature off reported as zero.
func (s *Scheduler) Options() Options {
	return s.opts
}

func (s *Scheduler) host(name string) *entry {
	e := s.hosts[name]
	if e == nil {
		e = new(entry)
		s.hosts[name] = e
	}
	return e
}

// SetRules sets the robots.txt pacing rules for host, replacing earlier ones. A longer
// delay also counts from the host's last response, so rules learned from a robots.txt
// response space the request that follows it; a shorter one never brings a waiting
// host's next time forward.
// A Crawl-delay or Request-rate interval above MaxDelay is honoured exactly: the host
// is deferred after each request (see Acquire).
func (s *Scheduler) SetRules(host string, r Rules) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.host(host)
	e.rules = compileRules(r)
	// The rules usually arrive with the response to robots.txt, after that request was
	// released under the old ones: a longer delay counts from that response too.
	for _, x := range [2]*entry{e, e.group} {
		if x == nil || x.lastEnd.IsZero() {
			continue
		}
		d, why := s.delay(e.rules, x.lastDur)
		x.push(x.lastEnd.Add(d), why)
		x.wakeAll()
	}
}

// SetAddr records that host resolves to the IP address ip. With Options.GroupByIP, all
// hosts with the same address then share one delay and one concurrency budget; ip ""
// removes the host from its group. Without GroupByIP it does nothing. If the host has
// requests in flight, the change takes effect when the last of them is released.
func (s *Scheduler) SetAddr(host, ip string) {
	if !s.opts.GroupByIP {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.host(host)
	var g *entry
	if ip != "" {
		g = s.groups[ip]
		if g == nil {
			g = new(entry)
			s.groups[ip] = g
		}
	}
	if e.repend && e.pending != nil {
		e.pending.refs--
	}
	e.pending, e.repend = nil, false
	if e.inflight > 0 {
		if g != e.group {
			if g != nil {
				g.refs++
			}
			e.pending, e.repend = g, true
		}
		return
	}
	if g == e.group {
		return
	}
	if e.group != nil {
		e.group.refs--
	}
	if g != nil {
		g.refs++
	}
	e.group = g
}

// joinPending applies a SetAddr that arrived while e had requests in flight.
func (e *entry) joinPending() {
	if !e.repend || e.inflight > 0 {
		return
	}
	if e.group != nil {
		e.group.refs--
	}
	e.group, e.pending, e.repend = e.pending, nil, false // the pending ref moves over
}

// Restore makes host wait until at least ready, as after a restart when the frontier
// hands back the ready time it persisted. It never makes a host ready sooner.
func (s *Scheduler) Restore(host string, ready time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.host(host).push(ready, ReasonRestored)
}

// Cut records a request to host that was cut by the end of an earlier process (a kill
// or a stop) and, as the server saw it, ended by end at the latest: from the server's
// side a connection cut. The host waits as Release makes it wait after a failed
// request that ended at end: the delay in force, at least the one known asks for (the
// pacing of rules known from before, which this scheduler may not hold yet), and the backoff of
// one more consecutive failure, so that a failure of the next request backs off
// further. It never makes the host ready sooner, and returns the wait it imposed.
func (s *Scheduler) Cut(host string, end time.Time, known Rules) Wait {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.host(host)
	e.failures++
	d, why := s.delay(e.rules, e.lastDur)
	if k := compileRules(known); k != nil && k.delay > d {
		d, why = k.delay, k.why
	}
	e.push(end.Add(d), why)
	e.push(end.Add(s.backoff(e.failures)), ReasonBackoff)
	e.wakeAll()
	next, reason := s.readyLocked(e, s.opts.Now())
	return Wait{End: end, Until: next, Reason: reason}
}

// Ready returns the earliest time host may be fetched, as of now: its own next time,
// its IP group's, moved into the next Visit-time window. The time may be in the past.
// It does not account for requests in flight, which must end first when Concurrency is
// reached.
func (s *Scheduler) Ready(host string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.hosts[host]
	if e == nil {
		return time.Time{}
	}
	t, _ := s.readyLocked(e, s.opts.Now())
	return t
}

func (s *Scheduler) readyLocked(e *entry, now time.Time) (time.Time, Reason) {
	t, why := e.next, e.reason
	if g := e.group; g != nil && g.next.After(t) {
		t, why = g.next, g.reason
	}
	if e.rules != nil && len(e.rules.windows) > 0 {
		from := t
		if from.Before(now) {
			from = now
		}
		if open := NextOpen(from, e.rules.windows); open.After(from) {
			return open, ReasonVisitTime
		}
	}
	return t, why
}

// Prune removes the records of hosts and IP groups that are idle and hold nothing but
// defaults at now: no request in flight, next time not after now, no robots rules, no
// address, no failures. It returns the number removed. Such a host behaves the same
// whether or not its record exists, so Prune only saves memory; call it from time to
// time in a crawl of many hosts.
func (s *Scheduler) Prune(now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for name, e := range s.hosts {
		if e.inflight == 0 && !e.next.After(now) && e.failures == 0 && e.rules == nil &&
			e.group == nil && !e.repend {
			delete(s.hosts, name)
			n++
		}
	}
	for ip, g := range s.groups {
		if g.refs == 0 && g.inflight == 0 && !g.next.After(now) {
			delete(s.groups, ip)
			n++
		}
	}
	return n
}

// Forget removes host's record whatever it holds (rules, address, next time, failures),
// unless it has requests in flight; it reports whether it did. Use it when the frontier
// holds nothing more for the host: the frontier keeps the ready time, and Restore and
// SetRules bring the host back.
func (s *Scheduler) Forget(host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.hosts[host]
	if e == nil {
		return true
	}
	if e.inflight > 0 {
		return false
	}
	if e.group != nil {
		e.group.refs--
	}
	if e.repend && e.pending != nil {
		e.pending.refs--
	}
	delete(s.hosts, host)
	return true
}

// Len returns the number of host and IP-group records held.
func (s *Scheduler) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.hosts) + len(s.groups)
}
