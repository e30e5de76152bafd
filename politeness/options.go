package politeness

import (
	"math/rand/v2"
	"time"

	"golang.org/x/time/rate"
)

// Defaults used for zero fields of [Options].
const (
	DefaultMinDelay       = time.Second
	DefaultMaxDelay       = 60 * time.Second
	DefaultConcurrency    = 1
	DefaultAdaptiveFactor = 1.0
	DefaultBackoffBase    = 5 * time.Second
	DefaultBackoffMax     = 10 * time.Minute
	DefaultJitter         = 0.25
)

// Options configure a [Scheduler]. The zero value is the polite default: one request at
// a time per host, at least one second apart, the adaptive factor 1, backoff from 5 s to
// 10 min. Negative values turn a feature off where the field says so; the explicit
// negative is needed because zero means "default".
type Options struct {
	// MinDelay is the least time between the end of one response from a host and the next
	// request to it. Zero means DefaultMinDelay (1 s); a negative value means no minimum,
	// which only a loopback test farm should use.
	MinDelay time.Duration

	// MaxDelay is the longest wait Acquire blocks for. A host whose next allowed time is
	// further away (a Crawl-delay or Request-rate interval above MaxDelay, a long
	// Retry-After or backoff) is not waited for: Acquire returns a *DeferredError with
	// the time the host becomes ready. The host is still never fetched faster than it
	// asked. The adaptive delay is capped at MaxDelay. Zero or negative means
	// DefaultMaxDelay (60 s).
	MaxDelay time.Duration

	// Concurrency is the number of requests in flight at once to one host, or to one IP
	// address when GroupByIP is set. Zero or negative means 1.
	Concurrency int

	// AdaptiveFactor k makes the delay after a response at least k times that response's
	// duration (Observation.Duration), capped at MaxDelay, so a slow server gets room.
	// Zero means DefaultAdaptiveFactor (1); a negative value turns it off.
	AdaptiveFactor float64

	// BackoffBase is the wait after the first consecutive failure (5xx, 429 without
	// Retry-After, timeout, connection error); each further failure doubles it up to
	// BackoffMax. A success resets it. Zero means DefaultBackoffBase (5 s) and
	// DefaultBackoffMax (10 min); a BackoffMax below BackoffBase is raised to it.
	BackoffBase, BackoffMax time.Duration

	// Jitter is the fraction of each backoff wait drawn at random: a backoff b becomes a
	// uniformly drawn value in [b*(1-Jitter), b], so many hosts that failed together do
	// not return together. It never shortens the delay in force. Zero means
	// DefaultJitter (0.25); negative means none; values above 1 are taken as 1.
	Jitter float64

	// GroupByIP makes all host names whose address was given to SetAddr as the same IP
	// share one delay and one concurrency budget.
	GroupByIP bool

	// Rate, if positive, caps the number of requests granted across all hosts, in
	// requests per second, with bursts of up to Burst (zero means 1). It is enforced with
	// a golang.org/x/time/rate.Limiter. Zero means no crawl-wide cap.
	Rate  rate.Limit
	Burst int

	// Now returns the current time. Nil means time.Now. Acquire waits with real timers
	// whatever Now returns; tests that exercise Acquire use testing/synctest, and tests
	// with a fake Now use TryAcquire.
	Now func() time.Time

	// Rand returns a pseudo-random number in [0, 1) for the jitter. It is called with the
	// scheduler's lock held. Nil means math/rand/v2's Float64.
	Rand func() float64
}

// normalised returns opts with defaults filled in and negative "off" values made zero.
func (o Options) normalised() Options {
	switch {
	case o.MinDelay == 0:
		o.MinDelay = DefaultMinDelay
	case o.MinDelay < 0:
		o.MinDelay = 0
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	switch {
	case o.AdaptiveFactor == 0:
		o.AdaptiveFactor = DefaultAdaptiveFactor
	case o.AdaptiveFactor < 0 || o.AdaptiveFactor != o.AdaptiveFactor: // negative or NaN
		o.AdaptiveFactor = 0
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = DefaultBackoffBase
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = DefaultBackoffMax
	}
	if o.BackoffMax < o.BackoffBase {
		o.BackoffMax = o.BackoffBase
	}
	switch {
	case o.Jitter == 0:
		o.Jitter = DefaultJitter
	case o.Jitter < 0 || o.Jitter != o.Jitter:
		o.Jitter = 0
	case o.Jitter > 1:
		o.Jitter = 1
	}
	if o.Burst <= 0 {
		o.Burst = 1
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	return o
}
