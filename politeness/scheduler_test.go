package politeness

import (
	"errors"
	"testing"
	"time"
)

// clock is a fake clock for Options.Now.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

// newTest returns a scheduler on a fake clock at t0, with no jitter and no adaptive
// delay unless opts says otherwise.
func newTest(opts Options) (*Scheduler, *clock) {
	c := &clock{t: t0}
	opts.Now = c.Now
	if opts.AdaptiveFactor == 0 {
		opts.AdaptiveFactor = -1
	}
	if opts.Jitter == 0 {
		opts.Jitter = -1
	}
	return New(opts), c
}

// mustGrant acquires host at now or fails the test.
func mustGrant(t *testing.T, s *Scheduler, host string, now time.Time) *Ticket {
	t.Helper()
	tk, retry, err := s.TryAcquire(host, now)
	if tk == nil {
		t.Fatalf("TryAcquire(%q, %v): no ticket (retry %v, err %v)", host, now.Sub(t0), retry.Sub(t0), err)
	}
	return tk
}

// mustWait checks that host is not granted at now and must be retried at want (zero: at
// a release), without being deferred.
func mustWait(t *testing.T, s *Scheduler, host string, now, want time.Time) {
	t.Helper()
	tk, retry, err := s.TryAcquire(host, now)
	if tk != nil || err != nil || !retry.Equal(want) {
		t.Fatalf("TryAcquire(%q, t0+%v):\n\tgot  ticket %v, retry %v, err %v\n\twant no ticket, retry %v", host, now.Sub(t0), tk != nil, retry, err, want)
	}
}

// mustDefer checks that host is deferred at now until want for the reason why.
func mustDefer(t *testing.T, s *Scheduler, host string, now, want time.Time, why Reason) {
	t.Helper()
	tk, _, err := s.TryAcquire(host, now)
	var d *DeferredError
	if tk != nil || !errors.As(err, &d) || !errors.Is(err, ErrDeferred) {
		t.Fatalf("TryAcquire(%q, t0+%v): got ticket %v, err %v; want *DeferredError", host, now.Sub(t0), tk != nil, err)
	}
	if d.Host != host || !d.Until.Equal(want) || d.Reason != why {
		t.Fatalf("TryAcquire(%q, t0+%v):\n\tgot  deferred %s until %v (%v)\n\twant deferred %s until %v (%v)", host, now.Sub(t0), d.Host, d.Until, d.Reason, host, want, why)
	}
}

func sec(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }

func TestDelayCountedFromResponseEnd(t *testing.T) {
	s, _ := newTest(Options{})
	tk := mustGrant(t, s, "a", t0)
	mustWait(t, s, "a", t0.Add(sec(1)), time.Time{}) // in flight: wait for the release
	end := t0.Add(sec(5))
	next := s.Release(tk, Observation{Written: t0.Add(sec(2)), End: end, Status: 200})
	if want := end.Add(time.Second); !next.Equal(want) {
		t.Fatalf("Release: got next %v, want %v (End + MinDelay)", next, want)
	}
	if got := s.Ready("a"); !got.Equal(next) {
		t.Fatalf("Ready: got %v, want %v", got, next)
	}
	mustWait(t, s, "a", end.Add(sec(0.999)), next)
	mustGrant(t, s, "a", next)
	mustGrant(t, s, "b", t0) // other hosts are independent
}

func TestEndBeforeWriteDoesNotShortenGap(t *testing.T) {
	s, _ := newTest(Options{})
	tk := mustGrant(t, s, "a", t0.Add(sec(10)))
	// A caller's End earlier than the grant and the write is taken as the write.
	next := s.Release(tk, Observation{Written: t0.Add(sec(12)), End: t0, Status: 200})
	if want := t0.Add(sec(13)); !next.Equal(want) {
		t.Fatalf("Release: got next %v, want %v", next.Sub(t0), want.Sub(t0))
	}
}

func TestReleaseZeroEndUsesNow(t *testing.T) {
	s, c := newTest(Options{})
	tk := mustGrant(t, s, "a", t0)
	c.t = t0.Add(sec(3))
	if next, want := s.Release(tk, Observation{}), t0.Add(sec(4)); !next.Equal(want) {
		t.Fatalf("Release: got next %v, want %v", next.Sub(t0), want.Sub(t0))
	}
}

func TestReleaseTwice(t *testing.T) {
	s, _ := newTest(Options{})
	tk := mustGrant(t, s, "a", t0)
	first := s.Release(tk, Observation{End: t0.Add(sec(1)), Status: 500})
	second := s.Release(tk, Observation{End: t0.Add(sec(2)), Status: 500})
	if !first.Equal(second) {
		t.Fatalf("second Release changed the next time: %v then %v", first, second)
	}
	mustGrant(t, s, "a", first) // and the in-flight count was not decremented twice
	mustWait(t, s, "a", first, time.Time{})
}

func TestZeroMinDelay(t *testing.T) {
	s, _ := newTest(Options{MinDelay: -1})
	for i := range 3 {
		now := t0.Add(time.Duration(i) * time.Millisecond)
		tk := mustGrant(t, s, "a", now)
		if next := s.Release(tk, Observation{End: now}); !next.Equal(now) {
			t.Fatalf("Release with no delay: got next %v, want %v", next, now)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	end := t0.Add(sec(1))
	date := time.Date(2026, 11, 21, 12, 0, 30, 0, time.UTC)
	tests := []struct {
		name       string
		obs        Observation
		want       time.Time
		why        Reason
		deferredAt time.Time // if not zero, TryAcquire there is deferred
	}{
		{"429 seconds", Observation{Status: 429, RetryAfter: "120"}, end.Add(120 * time.Second), ReasonRetryAfter, end},
		{"503 seconds", Observation{Status: 503, RetryAfter: "10"}, end.Add(10 * time.Second), ReasonRetryAfter, time.Time{}},
		{"503 date", Observation{Status: 503, RetryAfter: "Sat, 21 Nov 2026 12:00:30 GMT"}, date, ReasonRetryAfter, time.Time{}},
		{"429 date far", Observation{Status: 429, RetryAfter: "Sat, 21 Nov 2026 14:00:00 GMT"}, time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC), ReasonRetryAfter, end},
		{"503 date past", Observation{Status: 503, RetryAfter: "Fri, 20 Nov 2026 12:00:00 GMT"}, end.Add(time.Second), ReasonDelay, time.Time{}},
		{"503 zero seconds", Observation{Status: 503, RetryAfter: "0"}, end.Add(time.Second), ReasonDelay, time.Time{}},
		{"429 invalid: backoff", Observation{Status: 429, RetryAfter: "later"}, end.Add(5 * time.Second), ReasonBackoff, time.Time{}},
		{"429 without: backoff", Observation{Status: 429}, end.Add(5 * time.Second), ReasonBackoff, time.Time{}},
		{"500 ignores it: backoff", Observation{Status: 500, RetryAfter: "120"}, end.Add(5 * time.Second), ReasonBackoff, time.Time{}},
		{"200 ignores it", Observation{Status: 200, RetryAfter: "120"}, end.Add(time.Second), ReasonDelay, time.Time{}},
		{"301 ignores it", Observation{Status: 301, RetryAfter: "120"}, end.Add(time.Second), ReasonDelay, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTest(Options{})
			tk := mustGrant(t, s, "a", t0)
			obs := tt.obs
			obs.End = end
			if w := s.ReleaseWait(tk, obs); !w.Until.Equal(tt.want) || w.Reason != tt.why || !w.End.Equal(end) {
				t.Fatalf("ReleaseWait(%+v):\n\tgot  %v until %v from %v\n\twant %v until %v from %v", obs, w.Reason, w.Until, w.End, tt.why, tt.want, end)
			}
			if !tt.deferredAt.IsZero() {
				mustDefer(t, s, "a", tt.deferredAt, tt.want, tt.why)
			} else {
				mustWait(t, s, "a", tt.want.Add(-time.Nanosecond), tt.want)
			}
			mustGrant(t, s, "a", tt.want)
		})
	}
}

func TestBackoffGrowthAndReset(t *testing.T) {
	s, _ := newTest(Options{BackoffBase: 5 * time.Second, BackoffMax: 5 * time.Minute})
	now := t0
	fail := func(obs Observation) time.Duration {
		t.Helper()
		tk := mustGrant(t, s, "a", now)
		obs.End = now.Add(sec(0.5))
		next := s.Release(tk, obs)
		gap := next.Sub(obs.End)
		now = next
		return gap
	}
	want := []time.Duration{5, 10, 20, 40, 80, 160, 300, 300}
	obs := []Observation{{Status: 500}, {Status: 502}, {Failed: true}, {Status: 503},
		{Status: 429}, {Failed: true, Status: 0}, {Status: 599}, {Status: 500}}
	for i, o := range obs {
		if got := fail(o); got != want[i]*time.Second {
			t.Fatalf("failure %d (%+v): got backoff %v, want %v", i+1, o, got, want[i]*time.Second)
		}
	}
	if got := fail(Observation{Status: 404}); got != time.Second {
		t.Fatalf("after a success: got delay %v, want the min delay 1s", got)
	}
	if got := fail(Observation{Status: 500}); got != 5*time.Second {
		t.Fatalf("first failure after a success: got %v, want 5s (reset)", got)
	}
}

func TestBackoffDeferredAboveMaxDelay(t *testing.T) {
	s, _ := newTest(Options{BackoffBase: 90 * time.Second})
	tk := mustGrant(t, s, "a", t0)
	next := s.Release(tk, Observation{End: t0, Failed: true})
	mustDefer(t, s, "a", t0, t0.Add(90*time.Second), ReasonBackoff)
	mustWait(t, s, "a", next.Add(-time.Second), next) // within MaxDelay: wait
}

func TestBackoffJitter(t *testing.T) {
	for _, r := range []float64{0, 0.5, 0.999999} {
		s, _ := newTest(Options{Jitter: 0.5, BackoffBase: 8 * time.Second})
		s.opts.Rand = func() float64 { return r }
		tk := mustGrant(t, s, "a", t0)
		got := s.Release(tk, Observation{End: t0, Status: 500}).Sub(t0)
		want := 8*time.Second - time.Duration(float64(8*time.Second)*0.5*r)
		if got != want || got <= 4*time.Second || got > 8*time.Second {
			t.Errorf("backoff with Rand %v: got %v, want %v in (4s, 8s]", r, got, want)
		}
	}
}

func TestJitterNeverShortensDelay(t *testing.T) {
	// A backoff jittered below the Crawl-delay leaves the Crawl-delay in force.
	s, _ := newTest(Options{Jitter: 1, BackoffBase: 2 * time.Second})
	s.opts.Rand = func() float64 { return 0.99 }
	s.SetRules("a", Rules{CrawlDelay: 10 * time.Second})
	tk := mustGrant(t, s, "a", t0)
	if got := s.Release(tk, Observation{End: t0, Status: 500}); !got.Equal(t0.Add(10 * time.Second)) {
		t.Fatalf("got next %v, want the Crawl-delay 10s", got.Sub(t0))
	}
}

func TestCrawlDelay(t *testing.T) {
	s, _ := newTest(Options{})
	s.SetRules("a", Rules{CrawlDelay: 30 * time.Second})
	tk := mustGrant(t, s, "a", t0)
	end := t0.Add(sec(2))
	if next := s.Release(tk, Observation{End: end, Status: 200}); !next.Equal(end.Add(30 * time.Second)) {
		t.Fatalf("got next %v, want End + 30s", next.Sub(end))
	}
	mustWait(t, s, "a", end, end.Add(30*time.Second)) // 30s <= MaxDelay: wait
}

// Rules that arrive with a response (robots.txt) space the next request from that
// response; rules that ask for less never bring the next time forward.
func TestSetRulesAfterResponse(t *testing.T) {
	s, _ := newTest(Options{})
	tk := mustGrant(t, s, "a", t0)
	end := t0.Add(sec(1))
	if next := s.Release(tk, Observation{End: end, Status: 200}); !next.Equal(end.Add(DefaultMinDelay)) {
		t.Fatalf("got next End + %v, want End + %v", next.Sub(end), DefaultMinDelay)
	}
	s.SetRules("a", Rules{CrawlDelay: 10 * time.Second})
	mustWait(t, s, "a", end.Add(DefaultMinDelay), end.Add(10*time.Second))
	s.SetRules("a", Rules{})
	mustWait(t, s, "a", end.Add(DefaultMinDelay), end.Add(10*time.Second))
	mustGrant(t, s, "a", end.Add(10*time.Second))
}

func TestCrawlDelayAboveCap(t *testing.T) {
	s, _ := newTest(Options{MaxDelay: 60 * time.Second})
	s.SetRules("a", Rules{CrawlDelay: 90 * time.Second})
	now := t0
	for range 3 {
		tk := mustGrant(t, s, "a", now)
		end := now.Add(sec(1))
		next := s.Release(tk, Observation{End: end, Status: 200})
		if !next.Equal(end.Add(90 * time.Second)) {
			t.Fatalf("got next %v after the end, want 90s: never faster than asked", next.Sub(end))
		}
		// Deferred, not waited for, and never granted early.
		for _, probe := range []time.Duration{0, sec(1), sec(29.999)} {
			mustDefer(t, s, "a", end.Add(probe), next, ReasonCrawlDelay)
		}
		mustWait(t, s, "a", next.Add(-sec(60)), next)
		mustWait(t, s, "a", next.Add(-time.Nanosecond), next)
		now = next
	}
}

func TestRequestRate(t *testing.T) {
	s, _ := newTest(Options{})
	s.SetRules("a", Rules{RequestRate: RequestRate{Requests: 2, Period: 10 * time.Second}})
	tk := mustGrant(t, s, "a", t0)
	if next := s.Release(tk, Observation{End: t0, Status: 200}); !next.Equal(t0.Add(5 * time.Second)) {
		t.Fatalf("Request-rate 2/10s: got next %v, want 5s", next.Sub(t0))
	}
	// The larger of Crawl-delay and Request-rate wins, counted from the last response
	// even when the rules change after it.
	s.SetRules("a", Rules{CrawlDelay: 7 * time.Second, RequestRate: RequestRate{Requests: 2, Period: 10 * time.Second}})
	mustWait(t, s, "a", t0.Add(5*time.Second), t0.Add(7*time.Second))
	tk = mustGrant(t, s, "a", t0.Add(7*time.Second))
	if next := s.Release(tk, Observation{End: t0.Add(7 * time.Second), Status: 200}); !next.Equal(t0.Add(14 * time.Second)) {
		t.Fatalf("Crawl-delay 7s with Request-rate 2/10s: got next %v, want 14s", next.Sub(t0))
	}
	// Request-rate above MaxDelay is deferred.
	s.SetRules("b", Rules{RequestRate: RequestRate{Requests: 1, Period: 5 * time.Minute}})
	tk = mustGrant(t, s, "b", t0)
	s.Release(tk, Observation{End: t0, Status: 200})
	mustDefer(t, s, "b", t0, t0.Add(5*time.Minute), ReasonRequestRate)
}

func TestVisitTime(t *testing.T) {
	s, c := newTest(Options{})
	s.SetRules("a", Rules{VisitTime: []Window{{6 * 60, 8*60 + 45}}})
	c.t = at(5, 0)
	if got := s.Ready("a"); !got.Equal(at(6, 0)) {
		t.Fatalf("Ready at 05:00: got %v, want 06:00", got)
	}
	mustDefer(t, s, "a", at(5, 0), at(6, 0), ReasonVisitTime)
	mustDefer(t, s, "a", at(5, 59), at(6, 0), ReasonVisitTime) // deferred even when close
	tk := mustGrant(t, s, "a", at(6, 0))
	c.t = at(7, 0)
	if next := s.Release(tk, Observation{End: c.t, Status: 200}); !next.Equal(at(7, 0).Add(time.Second)) {
		t.Fatalf("Release at 07:00: got next %v, want 07:00:01", next)
	}
	tk = mustGrant(t, s, "a", at(7, 0).Add(time.Second))
	// A response ending so late that the next time falls after the window.
	c.t = at(8, 44).Add(sec(59.5))
	tomorrow := at(6, 0).Add(24 * time.Hour)
	if next := s.Release(tk, Observation{End: c.t, Status: 200}); !next.Equal(tomorrow) {
		t.Fatalf("Release at 08:44:59.5: got next %v, want 06:00 tomorrow", next)
	}
	mustDefer(t, s, "a", at(8, 45), tomorrow, ReasonVisitTime)
	mustDefer(t, s, "a", at(9, 0), tomorrow, ReasonVisitTime)
	mustGrant(t, s, "a", tomorrow)
	// Invalid windows alone mean no restriction.
	s.SetRules("b", Rules{VisitTime: []Window{{5, 5}}})
	mustGrant(t, s, "b", at(3, 0))
}

func TestAdaptiveDelay(t *testing.T) {
	tests := []struct {
		name   string
		k      float64
		obs    Observation
		want   time.Duration // next - End
		maxDel time.Duration
	}{
		{"k=1 from Duration", 1, Observation{Duration: sec(3)}, sec(3), 0},
		{"k=2 from Duration", 2, Observation{Duration: sec(3)}, sec(6), 0},
		{"from End-Written", 1, Observation{Written: t0.Add(sec(1)), Duration: 0}, sec(4), 0},
		{"fast response: MinDelay", 1, Observation{Duration: sec(0.2)}, sec(1), 0},
		{"capped at MaxDelay", 10, Observation{Duration: sec(30)}, sec(45), sec(45)},
		{"off", -1, Observation{Duration: sec(30)}, sec(1), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTest(Options{AdaptiveFactor: tt.k, MaxDelay: tt.maxDel})
			tk := mustGrant(t, s, "a", t0)
			end := t0.Add(sec(5))
			obs := tt.obs
			obs.End, obs.Status = end, 200
			if got := s.Release(tk, obs).Sub(end); got != tt.want {
				t.Fatalf("Release(%+v) with k=%v: got delay %v, want %v", obs, tt.k, got, tt.want)
			}
		})
	}
}

func TestDefaultAdaptiveIsOn(t *testing.T) {
	c := &clock{t: t0}
	s := New(Options{Now: c.Now})
	tk := mustGrant(t, s, "a", t0)
	if got := s.Release(tk, Observation{End: t0.Add(sec(5)), Duration: sec(4), Status: 200}).Sub(t0.Add(sec(5))); got != sec(4) {
		t.Fatalf("default options: got delay %v after a 4s response, want 4s (k=1)", got)
	}
}

func TestConcurrencyOne(t *testing.T) {
	s, _ := newTest(Options{MinDelay: -1})
	tk := mustGrant(t, s, "a", t0)
	tk.Wrote(t0) // written: still one at a time
	mustWait(t, s, "a", t0.Add(time.Hour), time.Time{})
	s.Release(tk, Observation{End: t0.Add(sec(1))})
	mustGrant(t, s, "a", t0.Add(sec(1)))
}

func TestConcurrencyTwo(t *testing.T) {
	s, _ := newTest(Options{Concurrency: 2})
	t1 := mustGrant(t, s, "a", t0)
	// The second waits until the first has reported its write...
	mustWait(t, s, "a", t0.Add(sec(5)), time.Time{})
	t1.Wrote(t0.Add(sec(2)))
	// ...and then for the delay after that write.
	mustWait(t, s, "a", t0.Add(sec(2.5)), t0.Add(sec(3)))
	t2 := mustGrant(t, s, "a", t0.Add(sec(3)))
	t2.Wrote(t0.Add(sec(3)))
	mustWait(t, s, "a", t0.Add(sec(10)), time.Time{}) // two in flight
	// Completed requests push the next start past their end plus the delay.
	s.Release(t1, Observation{End: t0.Add(sec(10)), Status: 200})
	mustWait(t, s, "a", t0.Add(sec(10.5)), t0.Add(sec(11)))
	t3 := mustGrant(t, s, "a", t0.Add(sec(11)))
	s.Release(t2, Observation{End: t0.Add(sec(12)), Status: 200})
	s.Release(t3, Observation{Written: t0.Add(sec(11)), End: t0.Add(sec(12)), Status: 200})
	mustWait(t, s, "a", t0.Add(sec(12)), t0.Add(sec(13)))
}

func TestGroupByIP(t *testing.T) {
	s, _ := newTest(Options{GroupByIP: true})
	s.SetAddr("a", "192.0.2.1")
	s.SetAddr("b", "192.0.2.1")
	s.SetAddr("c", "192.0.2.2")
	s.SetRules("a", Rules{CrawlDelay: 10 * time.Second})
	ta := mustGrant(t, s, "a", t0)
	mustWait(t, s, "b", t0, time.Time{}) // one budget for the address
	mustGrant(t, s, "c", t0)             // another address
	s.Release(ta, Observation{End: t0.Add(sec(1)), Status: 200})
	// a's Crawl-delay binds the whole address after a's request...
	mustWait(t, s, "b", t0.Add(sec(2)), t0.Add(sec(11)))
	tb := mustGrant(t, s, "b", t0.Add(sec(11)))
	s.Release(tb, Observation{End: t0.Add(sec(11)), Status: 200})
	// ...but b's short delay does not let a go sooner than its own Crawl-delay.
	if got := s.Ready("a"); !got.Equal(t0.Add(sec(12))) {
		t.Fatalf("Ready(a): got %v, want 12s (a's own next time; the group's is later)", got.Sub(t0))
	}
	s.Restore("a", t0.Add(sec(20)))
	mustWait(t, s, "a", t0.Add(sec(12)), t0.Add(sec(20)))
	mustGrant(t, s, "b", t0.Add(sec(12)))
}

func TestGroupByIPOff(t *testing.T) {
	s, _ := newTest(Options{})
	s.SetAddr("a", "192.0.2.1")
	s.SetAddr("b", "192.0.2.1")
	mustGrant(t, s, "a", t0)
	mustGrant(t, s, "b", t0)
}

func TestSetAddrWhileInFlight(t *testing.T) {
	s, _ := newTest(Options{GroupByIP: true})
	s.SetAddr("b", "192.0.2.1")
	ta := mustGrant(t, s, "a", t0)
	s.SetAddr("a", "192.0.2.1") // takes effect when a's request ends
	tb := mustGrant(t, s, "b", t0)
	s.Release(ta, Observation{End: t0.Add(sec(1)), Status: 200})
	mustWait(t, s, "a", t0.Add(sec(2)), time.Time{}) // now grouped with b, in flight
	s.Release(tb, Observation{End: t0.Add(sec(3)), Status: 200})
	mustWait(t, s, "a", t0.Add(sec(3)), t0.Add(sec(4)))
	// Leaving the group.
	s.SetAddr("a", "")
	mustGrant(t, s, "a", t0.Add(sec(3)))
}

func TestRestore(t *testing.T) {
	s, _ := newTest(Options{})
	s.Restore("a", t0.Add(10*time.Minute))
	mustDefer(t, s, "a", t0, t0.Add(10*time.Minute), ReasonRestored)
	s.Restore("a", t0.Add(time.Minute)) // never sooner
	if got := s.Ready("a"); !got.Equal(t0.Add(10 * time.Minute)) {
		t.Fatalf("Ready after an earlier Restore: got %v, want 10m", got.Sub(t0))
	}
	mustWait(t, s, "a", t0.Add(9*time.Minute+30*time.Second), t0.Add(10*time.Minute))
	if got := s.Ready("unknown"); !got.IsZero() {
		t.Fatalf("Ready(unknown host): got %v, want the zero time", got)
	}
}

func TestGlobalRate(t *testing.T) {
	s, _ := newTest(Options{Rate: 2, Burst: 1})
	mustGrant(t, s, "a", t0)
	// rate.Limiter computes in float64 seconds: allow it a microsecond.
	for _, now := range []time.Time{t0, t0.Add(400 * time.Millisecond)} {
		tk, retry, err := s.TryAcquire("b", now)
		if want := t0.Add(500 * time.Millisecond); tk != nil || err != nil || retry.Before(want.Add(-time.Microsecond)) || retry.After(want) {
			t.Fatalf("TryAcquire(b, t0+%v): got ticket %v, retry %v, err %v; want retry at 500ms", now.Sub(t0), tk != nil, retry.Sub(t0), err)
		}
	}
	mustGrant(t, s, "b", t0.Add(500*time.Millisecond))
	mustWait(t, s, "b", t0.Add(500*time.Millisecond), time.Time{}) // and the host is still one at a time
}

func TestPruneAndForget(t *testing.T) {
	s, _ := newTest(Options{GroupByIP: true})
	for _, h := range []string{"a", "b", "c", "d"} {
		tk := mustGrant(t, s, h, t0)
		s.Release(tk, Observation{End: t0, Status: 200})
	}
	s.SetRules("b", Rules{CrawlDelay: 5 * time.Second})
	s.SetAddr("c", "192.0.2.1")
	tk := mustGrant(t, s, "d", t0.Add(sec(1)))
	if got := s.Len(); got != 5 {
		t.Fatalf("Len: got %d, want 5 (4 hosts, 1 address)", got)
	}
	if n := s.Prune(t0.Add(sec(0.5))); n != 0 {
		t.Fatalf("Prune before the hosts are ready: removed %d, want 0", n)
	}
	if n := s.Prune(t0.Add(sec(2))); n != 1 { // only a: b has rules, c an address, d is in flight
		t.Fatalf("Prune: removed %d, want 1", n)
	}
	if s.Forget("d") {
		t.Fatalf("Forget of a host in flight: got true, want false")
	}
	s.Release(tk, Observation{End: t0.Add(sec(1)), Status: 200})
	for _, h := range []string{"b", "c", "d", "never seen"} {
		if !s.Forget(h) {
			t.Fatalf("Forget(%q): got false, want true", h)
		}
	}
	if n := s.Prune(t0.Add(sec(3))); n != 1 { // the address no host uses any more
		t.Fatalf("Prune after Forget: removed %d, want 1 (the address)", n)
	}
	if got := s.Len(); got != 0 {
		t.Fatalf("Len after Prune: got %d, want 0", got)
	}
}

func TestDeferredError(t *testing.T) {
	err := error(&DeferredError{Host: "example.com", Until: t0, Reason: ReasonCrawlDelay})
	if got, want := err.Error(), "politeness: example.com deferred until 2026-11-21T12:00:00Z (crawl-delay)"; got != want {
		t.Errorf("Error():\n\tgot  %q\n\twant %q", got, want)
	}
	if !errors.Is(err, ErrDeferred) {
		t.Errorf("errors.Is(%v, ErrDeferred) = false", err)
	}
	if got := Reason(42).String(); got != "Reason(42)" {
		t.Errorf("Reason(42).String() = %q", got)
	}
}

func TestOptionsDefaults(t *testing.T) {
	got := New(Options{}).Options()
	if got.MinDelay != time.Second || got.MaxDelay != time.Minute || got.Concurrency != 1 ||
		got.AdaptiveFactor != 1 || got.BackoffBase != 5*time.Second || got.BackoffMax != 10*time.Minute ||
		got.Jitter != 0.25 || got.Now == nil || got.Rand == nil {
		t.Errorf("New(Options{}).Options() = %+v", got)
	}
	off := New(Options{MinDelay: -1, AdaptiveFactor: -1, Jitter: -1, BackoffBase: time.Minute, BackoffMax: time.Second}).Options()
	if off.MinDelay != 0 || off.AdaptiveFactor != 0 || off.Jitter != 0 || off.BackoffMax != time.Minute {
		t.Errorf("negative values: got %+v, want MinDelay, AdaptiveFactor, Jitter 0 and BackoffMax raised to BackoffBase", off)
	}
}

// TestReleaseWaitSource checks what ReleaseWait says set the delay after a response.
func TestReleaseWaitSource(t *testing.T) {
	end := t0.Add(sec(1))
	tests := []struct {
		name     string
		opts     Options
		rules    Rules
		duration time.Duration
		delay    time.Duration
		why      Reason
	}{
		{"min delay", Options{MinDelay: sec(2)}, Rules{}, 0, sec(2), ReasonDelay},
		{"crawl-delay", Options{MinDelay: sec(1)}, Rules{CrawlDelay: sec(3)}, 0, sec(3), ReasonCrawlDelay},
		{"request-rate", Options{MinDelay: sec(1)}, Rules{CrawlDelay: sec(2), RequestRate: RequestRate{1, sec(4)}}, 0, sec(4), ReasonRequestRate},
		{"crawl-delay above request-rate", Options{MinDelay: sec(1)}, Rules{CrawlDelay: sec(5), RequestRate: RequestRate{1, sec(4)}}, 0, sec(5), ReasonCrawlDelay},
		{"adaptive", Options{MinDelay: sec(1), AdaptiveFactor: 2}, Rules{}, sec(1.5), sec(3), ReasonAdaptive},
		{"no delay", Options{MinDelay: -1}, Rules{}, 0, 0, ReasonDelay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTest(tt.opts)
			s.SetRules("a", tt.rules)
			tk := mustGrant(t, s, "a", t0)
			w := s.ReleaseWait(tk, Observation{End: end, Status: 200, Duration: tt.duration})
			if w.Delay() != tt.delay || w.Reason != tt.why || !w.End.Equal(end) {
				t.Errorf("ReleaseWait: %v for %v from %v; want %v for %v from %v", w.Reason, w.Delay(), w.End, tt.why, tt.delay, end)
			}
		})
	}
}

// TestCut: a request cut by an earlier process's end spaces the host as a failed
// request ending then: the backoff of one failure, at least the delay given or in force,
// and a failure of the next request backs off further; a success resets it.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		name  string
		known Rules // the rules known from before
		rules Rules
		want  time.Duration
		why   Reason
	}{
		{"backoff", Rules{}, Rules{}, 5 * time.Second, ReasonBackoff},
		{"stored Crawl-delay above the backoff", Rules{CrawlDelay: 20 * time.Second}, Rules{}, 20 * time.Second, ReasonCrawlDelay},
		{"stored Request-rate above the backoff", Rules{RequestRate: RequestRate{Requests: 1, Period: 40 * time.Second}}, Rules{}, 40 * time.Second, ReasonRequestRate},
		{"Crawl-delay in force above the backoff", Rules{}, Rules{CrawlDelay: 30 * time.Second}, 30 * time.Second, ReasonCrawlDelay},
		{"stored Crawl-delay below the backoff", Rules{CrawlDelay: 2 * time.Second}, Rules{}, 5 * time.Second, ReasonBackoff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTest(Options{BackoffBase: 5 * time.Second, MaxDelay: time.Minute})
			s.SetRules("a", tc.rules)
			end := t0.Add(-time.Second)
			w := s.Cut("a", end, tc.known)
			if !w.End.Equal(end) || !w.Until.Equal(end.Add(tc.want)) || w.Reason != tc.why {
				t.Fatalf("Cut(a, t0-1s, %+v):\n\tgot  %+v\n\twant until t0-1s+%v (%v)", tc.known, w, tc.want, tc.why)
			}
			mustWait(t, s, "a", t0, end.Add(tc.want))
		})
	}

	s, _ := newTest(Options{BackoffBase: 5 * time.Second})
	s.Restore("a", t0.Add(time.Hour))
	if w := s.Cut("a", t0, Rules{}); !w.Until.Equal(t0.Add(time.Hour)) || w.Reason != ReasonRestored {
		t.Fatalf("Cut after a later Restore: got %+v, want until t0+1h (restored): never sooner", w)
	}

	s, _ = newTest(Options{BackoffBase: 5 * time.Second})
	s.Cut("a", t0, Rules{})
	now := t0.Add(5 * time.Second)
	tk := mustGrant(t, s, "a", now)
	if got := s.Release(tk, Observation{End: now, Failed: true}).Sub(now); got != 10*time.Second {
		t.Fatalf("failure after a cut: got backoff %v, want 10s (the second failure)", got)
	}
	now = now.Add(10 * time.Second)
	tk = mustGrant(t, s, "a", now)
	if got := s.Release(tk, Observation{End: now, Status: 200}).Sub(now); got != time.Second {
		t.Fatalf("success after the cut and a failure: got delay %v, want the min delay 1s", got)
	}
}
