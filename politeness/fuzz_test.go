package politeness

import (
	"errors"
	"testing"
	"time"
)

// FuzzScheduler drives a scheduler on a fake clock with an arbitrary sequence of
// operations (clock steps, acquires, releases with any status, rules, addresses,
// restores, prunes) and checks the gap guarantee against a model: per host and per IP
// group, never two requests at once, and never a grant earlier than the delay in force
// after the previous response ended.
func FuzzScheduler(f *testing.F) {
	f.Add([]byte{1, 0, 2, 0, 0, 10, 1, 0, 0, 40, 1, 0})
	f.Add([]byte{4, 0, 4, 1, 1, 0, 1, 1, 2, 5, 0, 30, 1, 1, 2, 0, 0, 50, 1, 0})
	f.Add([]byte{3, 2, 1, 2, 2, 7, 0, 9, 1, 2, 5, 2, 0, 255, 6, 0, 1, 2})
	f.Add([]byte{1, 0, 1, 1, 1, 2, 4, 0, 4, 1, 4, 2, 2, 1, 2, 0, 0, 3, 1, 1})
	hosts := [...]string{"a", "b", "c"}
	ips := [...]string{"", "192.0.2.1", "192.0.2.2"}
	const minDelay = 500 * time.Millisecond
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 400 {
			return
		}
		now := t0
		s := New(Options{MinDelay: minDelay, GroupByIP: true, AdaptiveFactor: 1, Now: func() time.Time { return now }})
		type slot struct {
			tk  *Ticket
			key string // the budget the request counts against
		}
		var inflight []slot
		hostBusy := map[string]bool{}
		keyBusy := map[string]bool{}
		hostFree := map[string]time.Time{} // earliest grant allowed by the model
		keyFree := map[string]time.Time{}
		crawlDelay := map[string]time.Duration{}
		addr := map[string]string{}    // the address in force for grouping
		pending := map[string]string{} // an address given while the host was busy
		key := func(h string) string {
			if ip := addr[h]; ip != "" {
				return "ip " + ip
			}
			return "host " + h
		}
		for len(ops) >= 2 {
			op, arg := ops[0]%8, ops[1]
			ops = ops[2:]
			h := hosts[int(arg)%len(hosts)]
			switch op {
			case 0: // the clock moves on
				now = now.Add(time.Duration(arg) * 37 * time.Millisecond)
			case 1: // acquire
				tk, retry, err := s.TryAcquire(h, now)
				var d *DeferredError
				switch {
				case tk != nil:
					k := key(h)
					if hostBusy[h] || keyBusy[k] {
						t.Fatalf("%s granted at t0+%v while a request to it (or its address) is in flight", h, now.Sub(t0))
					}
					if now.Before(hostFree[h]) || now.Before(keyFree[k]) {
						t.Fatalf("%s granted at t0+%v, before t0+%v / t0+%v", h, now.Sub(t0), hostFree[h].Sub(t0), keyFree[k].Sub(t0))
					}
					hostBusy[h], keyBusy[k] = true, true
					inflight = append(inflight, slot{tk, k})
				case errors.As(err, &d):
					if !d.Until.After(now) {
						t.Fatalf("%s deferred until t0+%v, not after now t0+%v", h, d.Until.Sub(t0), now.Sub(t0))
					}
				case err != nil:
					t.Fatalf("TryAcquire: unexpected error %v", err)
				case !retry.IsZero() && !retry.After(now):
					t.Fatalf("%s: retry at t0+%v, not after now t0+%v", h, retry.Sub(t0), now.Sub(t0))
				}
			case 2: // release the oldest request in flight with some outcome
				if len(inflight) == 0 {
					continue
				}
				sl := inflight[0]
				inflight = inflight[1:]
				hh := sl.tk.Host()
				obs := Observation{End: now, Written: sl.tk.Granted()}
				switch arg % 5 {
				case 0:
					obs.Status = 200
				case 1:
					obs.Status = 503
					obs.RetryAfter = "3"
				case 2:
					obs.Status = 500
				case 3:
					obs.Failed = true
				case 4:
					obs.Status = 429
					obs.RetryAfter = "Fri, 20 Nov 2026 12:00:00 GMT" // in the past
				}
				next := s.Release(sl.tk, obs)
				// The adaptive delay (factor 1) is the response time, capped at MaxDelay.
				d := max(minDelay, crawlDelay[hh], min(now.Sub(sl.tk.Granted()), DefaultMaxDelay))
				free := now.Add(d)
				if obs.Status == 503 {
					free = latest(free, now.Add(3*time.Second))
				}
				if next.Before(free) {
					t.Fatalf("Release of %s: next t0+%v, before the delay in force t0+%v", hh, next.Sub(t0), free.Sub(t0))
				}
				hostFree[hh] = latest(hostFree[hh], free)
				keyFree[sl.key] = latest(keyFree[sl.key], free)
				hostBusy[hh], keyBusy[sl.key] = false, false
				if ip, ok := pending[hh]; ok {
					delete(pending, hh)
					addr[hh] = ip
				}
			case 3: // robots rules
				crawlDelay[h] = time.Duration(arg/3) * 100 * time.Millisecond
				s.SetRules(h, Rules{CrawlDelay: crawlDelay[h]})
			case 4, 5: // address
				ip := ips[int(arg/3)%len(ips)]
				s.SetAddr(h, ip)
				if hostBusy[h] {
					pending[h] = ip
				} else {
					delete(pending, h)
					addr[h] = ip
				}
			case 6: // restore
				r := now.Add(time.Duration(arg/3) * time.Second)
				s.Restore(h, r)
				hostFree[h] = latest(hostFree[h], r)
			case 7:
				s.Prune(now)
			}
		}
	})
}
