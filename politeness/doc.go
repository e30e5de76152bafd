// Package politeness decides when a host may be fetched next.
//
// A [Scheduler] keeps one small record per host (and per IP address when hosts are
// grouped) and combines everything that slows a host down: a minimum delay, the
// robots.txt Crawl-delay and Request-rate for our agent, Visit-time windows,
// Retry-After on 429 and 503, exponential backoff with jitter after server errors,
// timeouts and connection errors, and an adaptive delay proportional to the host's last
// response time.
//
// The engine uses it once per request:
//
//	t, err := s.Acquire(ctx, host) // waits for the host; *DeferredError if the wait is long
//	// ... fetch, recording when the request was written (httptrace) and when it ended ...
//	next := s.Release(t, politeness.Observation{Written: w, End: e, Status: 200})
//	// store next in the frontier so the host's ready time survives a restart
//
// [Scheduler.ReleaseWait] returns, with that time, the response's end it counts from and
// what set it (min-delay, crawl-delay, request-rate, adaptive, retry-after, backoff), the
// evidence an archive keeps so that anyone can check the crawl's pacing.
//
// # The gap guarantee
//
// With the default concurrency of one request per host, a host is never granted while a
// request to it is in flight, and the next request is granted no earlier than the delay
// in force after the previous response ended ([Observation.End]). The response ends
// after its request was written and after the server sent its last byte, and the next
// request is written only after it is granted, so the server sees at least the delay
// between the end of one exchange and the next request, and therefore also between two
// requests' arrivals, whatever the dialing, TLS or network time on either side. Counting
// from the time a worker was scheduled, or from the previous request's write, would not
// give that: a slow dial or a long response would eat into the gap the server sees.
//
// With [Options.Concurrency] above one, requests overlap, so a new request cannot wait
// for the previous one's end: it is granted no earlier than the delay after the latest
// time one of our requests to the host was written ([Ticket.Wrote] or
// [Observation.Written]), and never while an in-flight request has not yet reported its
// write. Completed requests still push the next grant to their end plus the delay.
//
// # Where golang.org/x/time/rate is used
//
// The per-host guarantee above is a plain "next allowed time" per host and not a
// rate.Limiter: a Limiter spaces its reservations, that is the moments workers were
// granted, and a request granted earlier can reach the server later (a slow dial), so two
// reservations one delay apart can arrive closer than the delay. The next allowed time is
// also what the frontier persists, and Retry-After dates and Visit-time windows are
// absolute times no token bucket expresses. A Request-rate of N requests per period is
// honoured as the interval period/N, which is the spacing a rate.Limiter with burst 1
// would give. rate.Limiter is used for the optional crawl-wide cap [Options.Rate], where
// spacing reservations is exactly what is wanted.
//
// # Time
//
// Every decision reads the clock through [Options.Now], and [Scheduler.TryAcquire] takes
// the time as a parameter, so tests need no real clock. [Scheduler.Acquire] waits with
// real timers, which testing/synctest makes virtual.
//
// # Caveats
//
// Records of idle hosts that carry nothing but defaults are removed by
// [Scheduler.Prune]; records holding robots rules, an address, or a failure count stay
// until the engine calls [Scheduler.Forget]. Grouping by IP applies from the moment
// [Scheduler.SetAddr] is called, so the engine should call it before the host's first
// request when it can resolve early.
package politeness
