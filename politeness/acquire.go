package politeness

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Reason says why a host must wait.
type Reason uint8

// Reasons a host waits, as reported by DeferredError and Wait. String gives the
// names an archive records ("min-delay", "crawl-delay", ...).
const (
	ReasonDelay       Reason = iota // the minimum delay, Options.MinDelay
	ReasonCrawlDelay                // robots.txt Crawl-delay
	ReasonRetryAfter                // a Retry-After header on 429 or 503
	ReasonBackoff                   // backoff after failures
	ReasonVisitTime                 // outside the robots.txt Visit-time windows
	ReasonRestored                  // a ready time given to Restore
	ReasonRequestRate               // robots.txt Request-rate
	ReasonAdaptive                  // the adaptive delay, Options.AdaptiveFactor
)

var reasonNames = [...]string{"min-delay", "crawl-delay", "retry-after", "backoff", "visit-time", "restored", "request-rate", "adaptive"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// ErrDeferred matches every *DeferredError with errors.Is.
var ErrDeferred = errors.New("politeness: host deferred")

// DeferredError is returned by Acquire and TryAcquire, instead of waiting, when a host
// may not be fetched before Until and that is further away than Options.MaxDelay, or
// the host is outside its Visit-time windows. The engine puts the URL back in the
// frontier with Until as the host's ready time.
type DeferredError struct {
	Host   string
	Until  time.Time // the earliest time the host may be fetched
	Reason Reason    // what imposed the wait
}

func (e *DeferredError) Error() string {
	return fmt.Sprintf("politeness: %s deferred until %s (%s)", e.Host, e.Until.UTC().Format(time.RFC3339), e.Reason)
}

// Is reports whether target is ErrDeferred.
func (e *DeferredError) Is(target error) bool { return target == ErrDeferred }

// Observation is what happened to a request, given to Release.
type Observation struct {
	// Written is when the request was completely written to the connection
	// (httptrace.ClientTrace.WroteRequest); zero if it never was.
	Written time.Time
	// End is when the response ended: its body was read or the request failed. Zero
	// means the scheduler's now at Release. The next request is counted from it.
	End time.Time
	// Status is the HTTP status code, 0 if there was no response.
	Status int
	// RetryAfter is the response's Retry-After header value, honoured on 429 and 503.
	RetryAfter string
	// Failed reports that no usable response came: a timeout, a connection refused or
	// reset, a DNS failure, a body cut short. It counts as a failure for the backoff, as
	// do 429 and 5xx statuses.
	Failed bool
	// Duration is the host's response time, used by the adaptive delay. Zero means
	// End - Written when both are known.
	Duration time.Duration
}

// Ticket is the permission to send one request to a host, from Acquire. Pass it to
// Release exactly once when the request is over. Its methods are safe for simultaneous
// use.
type Ticket struct {
	s        *Scheduler
	host     string
	e, g     *entry // the host, and its IP group (nil when none)
	granted  time.Time
	written  time.Time
	wrote    bool
	released bool
}

// Host returns the host the ticket is for.
func (t *Ticket) Host() string { return t.host }

// Granted returns the time the ticket was granted.
func (t *Ticket) Granted() time.Time { return t.granted }

// Wrote records that the request was written to the connection at the given time, as
// httptrace's WroteRequest hook sees it. It matters only with Concurrency above one: the
// next overlapping request to the host waits until every in-flight request has
// reported its write (here or at Release) and is spaced by the delay from the latest.
func (t *Ticket) Wrote(at time.Time) {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.wrote || t.released {
		return
	}
	t.wrote, t.written = true, at
	for _, x := range t.entries() {
		x.unwritten--
		if at.After(x.lastWrite) {
			x.lastWrite = at
		}
		x.wakeAll()
	}
}

func (t *Ticket) entries() []*entry {
	if t.g == nil {
		return []*entry{t.e}
	}
	return []*entry{t.e, t.g}
}

// Acquire waits until host may be fetched and returns the ticket for one request. It
// waits for the host's next allowed time, for a free slot when Concurrency requests are
// in flight, and for the crawl-wide Rate. It does not wait when the host is deferred:
// then it returns a *DeferredError at once. It returns ctx.Err() if ctx ends first.
func (s *Scheduler) Acquire(ctx context.Context, host string) (*Ticket, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.mu.Lock()
		now := s.opts.Now()
		t, at, blocker, err := s.tryLocked(host, now)
		var wake <-chan struct{}
		if blocker != nil {
			wake = blocker.wakeChan()
		}
		s.mu.Unlock()
		if t != nil || err != nil {
			return t, err
		}
		var timer *time.Timer
		var fire <-chan time.Time
		if !at.IsZero() {
			timer = time.NewTimer(at.Sub(now))
			fire = timer.C
		}
		select {
		case <-ctx.Done():
		case <-fire:
		case <-wake:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// TryAcquire is Acquire without waiting, at the given time. It returns a ticket if host
// may be fetched at now; otherwise nil and the time to try again (zero when the host
// waits for a request in flight to end or to be written), or a *DeferredError.
func (s *Scheduler) TryAcquire(host string, now time.Time) (*Ticket, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, at, _, err := s.tryLocked(host, now)
	return t, at, err
}

// tryLocked grants a ticket for host at now, or says until when to wait (at), or which
// entry's change to wait for (blocker), or that the host is deferred.
func (s *Scheduler) tryLocked(host string, now time.Time) (t *Ticket, at time.Time, blocker *entry, err error) {
	e := s.host(host)
	ready, why := s.readyLocked(e, now)
	if ready.After(now) {
		if why == ReasonVisitTime || ready.Sub(now) > s.opts.MaxDelay {
			return nil, time.Time{}, nil, &DeferredError{Host: host, Until: ready, Reason: why}
		}
		return nil, ready, nil, nil
	}
	g := e.group
	limit := int32(s.opts.Concurrency)
	for _, x := range [2]*entry{e, g} {
		if x == nil {
			continue
		}
		if x.inflight >= limit || x.unwritten > 0 {
			return nil, time.Time{}, x, nil
		}
		if x.inflight > 0 {
			d, why := s.delay(e.rules, x.lastDur)
			if next := x.lastWrite.Add(d); next.After(now) {
				if next.Sub(now) > s.opts.MaxDelay {
					return nil, time.Time{}, nil, &DeferredError{Host: host, Until: next, Reason: why}
				}
				return nil, next, nil, nil
			}
		}
	}
	if s.global != nil {
		r := s.global.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			return nil, now.Add(d), nil, nil
		}
	}
	t = &Ticket{s: s, host: host, e: e, g: g, granted: now}
	for _, x := range t.entries() {
		x.inflight++
		x.unwritten++
	}
	return t, time.Time{}, nil, nil
}

// delay returns the delay in force after a response of duration last, for a host with
// the given rules, and what set it.
func (s *Scheduler) delay(r *hostRules, last time.Duration) (time.Duration, Reason) {
	d, why := s.opts.MinDelay, ReasonDelay
	if r != nil && r.delay > d {
		d, why = r.delay, r.why
	}
	if k := s.opts.AdaptiveFactor; k > 0 && last > 0 {
		a := s.opts.MaxDelay
		if f := k * float64(last); f < float64(a) {
			a = time.Duration(f)
		}
		if a > d {
			d, why = a, ReasonAdaptive
		}
	}
	return d, why
}

// backoff returns the wait after the n-th consecutive failure (n >= 1), with jitter.
func (s *Scheduler) backoff(n int32) time.Duration {
	b := s.opts.BackoffBase
	for i := int32(1); i < n && b < s.opts.BackoffMax; i++ {
		b *= 2
	}
	b = min(b, s.opts.BackoffMax)
	if j := s.opts.Jitter; j > 0 {
		b -= time.Duration(float64(b) * j * s.opts.Rand())
	}
	return b
}

// Wait is the wait Release imposed on a host after a response: the evidence an
// archive keeps of why the next request came no sooner.
type Wait struct {
	// End is the response's end the wait counts from: Observation.End, or the
	// scheduler's now at Release when that was zero, never before the request was
	// granted or written.
	End time.Time
	// Until is the earliest time the host may be fetched next, as Release returns.
	Until time.Time
	// Reason says what set Until: the delay in force (ReasonDelay, ReasonCrawlDelay,
	// ReasonRequestRate, ReasonAdaptive), a Retry-After, the backoff, a Visit-time
	// window, or a wait imposed before (a restored ready time, or an overlapping
	// request's).
	Reason Reason
}

// Delay returns Until - End, the delay in force after the response; zero when the
// host was ready at once.
func (w Wait) Delay() time.Duration { return max(w.Until.Sub(w.End), 0) }

// Release ends the request of ticket t with what happened, and returns the time the
// host may be fetched next (as Ready would), for the engine to persist in the frontier.
// It is ReleaseWait(t, obs).Until.
// The next request waits for the delay in force counted from obs.End; after a failure
// (429, 5xx, obs.Failed) it waits for the Retry-After time on 429 and 503 when one is
// given and valid, or else for the exponential backoff; a success resets the backoff.
// Releasing a ticket twice changes nothing and returns the host's ready time.
func (s *Scheduler) Release(t *Ticket, obs Observation) time.Time {
	return s.ReleaseWait(t, obs).Until
}

// ReleaseWait is Release, returning with the host's next time the response's end it
// counts from and what set it, for the archive to record. Releasing a ticket twice
// changes nothing and returns the host's ready time from now.
func (s *Scheduler) ReleaseWait(t *Ticket, obs Observation) Wait {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Now()
	if t.released {
		next, why := s.readyLocked(t.e, now)
		return Wait{End: now, Until: next, Reason: why}
	}
	t.released = true
	end := obs.End
	if end.IsZero() {
		end = now
	}
	written := obs.Written
	if written.IsZero() {
		written = t.written
	}
	// A response cannot end before it was granted or written; a caller's clock that says
	// otherwise must not shorten the gap.
	end = latest(end, written, t.granted)
	dur := obs.Duration
	if dur <= 0 && !written.IsZero() && end.After(written) {
		dur = end.Sub(written)
	}
	failed := obs.Failed || obs.Status == 429 || (obs.Status >= 500 && obs.Status <= 599)
	var retry time.Time
	var hasRetry bool
	if obs.Status == 429 || obs.Status == 503 {
		retry, hasRetry = ParseRetryAfter(obs.RetryAfter, end)
	}
	for _, x := range t.entries() {
		x.inflight--
		if !t.wrote {
			x.unwritten--
		}
		if written.After(x.lastWrite) {
			x.lastWrite = written
		}
		if end.After(x.lastEnd) {
			x.lastEnd = end
		}
		if dur > 0 {
			x.lastDur = dur
		}
		if failed {
			x.failures++
		} else {
			x.failures = 0
		}
		d, why := s.delay(t.e.rules, x.lastDur)
		x.push(end.Add(d), why)
		switch {
		case hasRetry:
			x.push(retry, ReasonRetryAfter)
		case failed:
			x.push(end.Add(s.backoff(x.failures)), ReasonBackoff)
		}
		x.wakeAll()
	}
	t.e.joinPending()
	next, why := s.readyLocked(t.e, now)
	return Wait{End: end, Until: next, Reason: why}
}

func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}
