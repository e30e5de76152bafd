package robots

import (
	"encoding/json"
	"fmt"
	"time"
)

// recordVersion is the version of the stored form; a record of another version is
// ignored (fetched again).
const recordVersion = 1

// record is the form in which a Cache stores an authority's robots.txt: JSON, so that
// it can be read with any bbolt browser.
type record struct {
	V int `json:"v"`
	// Good is the last successful fetch, kept while unreachable for Stale use.
	Good *goodRecord `json:"good,omitempty"`
	// Fail is set while robots.txt is unreachable.
	Fail *failRecord `json:"fail,omitempty"`
	// Pending is when a fetch of robots.txt began that has not been recorded yet: set
	// just before the fetch, cleared by the save of its result. A record read with
	// Pending set tells of a process that died (or stopped) during the fetch, after
	// the host may have answered, with rules that never reached the store.
	Pending time.Time `json:"pending,omitzero"`
	// PendingSeen is when a later Cache first read Pending: the process of the cut
	// fetch was gone by then, so its answer, if any, had ended. Later runs count from
	// it rather than from their own start, so that restarts do not hold the host back
	// again and again.
	PendingSeen time.Time `json:"pending_seen,omitzero"`
}

type goodRecord struct {
	Status    int       `json:"status"`
	FetchedAt time.Time `json:"fetched_at"`
	Expires   time.Time `json:"expires"`
	FinalURL  string    `json:"final_url,omitempty"`
	Digest    string    `json:"digest,omitempty"`
	Body      []byte    `json:"body,omitempty"` // 2xx only, at most MaxSize bytes
}

type failRecord struct {
	Status   int       `json:"status"`
	At       time.Time `json:"at"`
	FinalURL string    `json:"final_url,omitempty"`
	Attempts int       `json:"attempts"`
	// Permanent: the last fetch failed in a way trying again soon cannot help.
	Permanent bool      `json:"permanent,omitempty"`
	RetryAt   time.Time `json:"retry_at"`
	Run       string    `json:"run,omitempty"` // the Cache that counted Attempts
}

// successful reports whether a fetch with this status gives rules of its own (2xx or
// 4xx other than 429) rather than making robots.txt unreachable.
func successful(status int) bool {
	return status >= 200 && status <= 299 || status >= 400 && status <= 499 && status != 429
}

// decodeRecord reads stored data. It reports false for data that is empty, does not
// decode, is of another version or holds impossible values: such data is ignored.
func decodeRecord(data []byte) (record, bool) {
	var r record
	if len(data) == 0 || json.Unmarshal(data, &r) != nil || r.V != recordVersion {
		return record{}, false
	}
	if r.Good == nil && r.Fail == nil && r.Pending.IsZero() {
		return record{}, false
	}
	if g := r.Good; g != nil {
		is2xx := g.Status >= 200 && g.Status <= 299
		if !successful(g.Status) || g.FetchedAt.IsZero() || len(g.Body) > MaxSize || !is2xx && len(g.Body) > 0 {
			return record{}, false
		}
	}
	if f := r.Fail; f != nil && (successful(f.Status) || f.Attempts < 0 || f.At.IsZero()) {
		return record{}, false
	}
	return r, true
}

// load reads authority's state from the Store; nil, nil, nil when there is none or it
// does not decode.
func (c *Cache) load(authority string) (*snapshot, *failure, error) {
	if c.store == nil {
		return nil, nil, nil
	}
	data, err := c.store.LoadRobots(authority)
	if err != nil {
		return nil, nil, fmt.Errorf("robots: loading %s: %w", authority, err)
	}
	r, ok := decodeRecord(data)
	if !ok {
		if len(data) > 0 && c.opts.Dropped != nil {
			c.opts.Dropped(authority)
		}
		return nil, nil, nil
	}
	if !r.Pending.IsZero() && c.opts.Interrupted != nil && r.PendingSeen.IsZero() {
		r.PendingSeen = c.opts.Now()
		if data, err := json.Marshal(r); err == nil {
			if err := c.store.SaveRobots(authority, data); err != nil {
				return nil, nil, fmt.Errorf("robots: saving %s: %w", authority, err)
			}
		}
	}
	// Never trust a stored time further ahead than this Cache would have set it: the
	// options or the clock may have changed since.
	now := c.opts.Now()
	var good *snapshot
	if g := r.Good; g != nil {
		good = &snapshot{
			status:    g.Status,
			fetchedAt: g.FetchedAt,
			expires:   minTime(g.Expires, g.FetchedAt.Add(c.opts.MaxAge), now.Add(c.opts.MaxAge)),
			finalURL:  g.FinalURL,
			digest:    g.Digest,
			robots:    FromStatus(g.Status, g.Body),
		}
		if g.Status <= 299 && good.digest == "" {
			good.digest = digest(g.Body)
		}
	}
	if !r.Pending.IsZero() && c.opts.Interrupted != nil {
		var last *Robots
		if good != nil {
			last = good.robots
		}
		c.opts.Interrupted(authority, r.Pending, r.PendingSeen, last)
	}
	var fail *failure
	if f := r.Fail; f != nil {
		fail = &failure{
			status:    f.Status,
			at:        f.At,
			finalURL:  f.FinalURL,
			attempts:  f.Attempts,
			permanent: f.Permanent,
			retryAt:   minTime(f.RetryAt, now.Add(c.opts.MaxAge)),
		}
		if f.Run != c.run {
			fail.attempts = 0 // counted by an earlier run: this one starts again
		}
	}
	return good, fail, nil
}

// markPending records, before a fetch of authority's robots.txt, that the fetch began at
// at, keeping what the Store holds (see record.Pending).
func (c *Cache) markPending(authority string, at time.Time) error {
	if c.store == nil {
		return nil
	}
	data, err := c.store.LoadRobots(authority)
	if err != nil {
		return fmt.Errorf("robots: loading %s: %w", authority, err)
	}
	r, ok := decodeRecord(data)
	if !ok {
		r = record{V: recordVersion}
	}
	r.Pending, r.PendingSeen = at, time.Time{}
	if data, err = json.Marshal(r); err != nil {
		return fmt.Errorf("robots: encoding %s: %w", authority, err) // cannot happen
	}
	if err := c.store.SaveRobots(authority, data); err != nil {
		return fmt.Errorf("robots: saving %s: %w", authority, err)
	}
	return nil
}

// save stores authority's state: good with body (the 2xx body just fetched) when fail
// is nil; otherwise fail, with the stored copy of the last successful fetch kept.
func (c *Cache) save(authority string, good *snapshot, fail *failure, body []byte) error {
	if c.store == nil {
		return nil
	}
	r := record{V: recordVersion}
	if fail == nil {
		r.Good = &goodRecord{
			Status:    good.status,
			FetchedAt: good.fetchedAt,
			Expires:   good.expires,
			FinalURL:  good.finalURL,
			Digest:    good.digest,
			Body:      body[:min(len(body), MaxSize)],
		}
	} else {
		// The body of the last good copy lives only in the Store: read it back.
		data, err := c.store.LoadRobots(authority)
		if err != nil {
			return fmt.Errorf("robots: loading %s: %w", authority, err)
		}
		if old, ok := decodeRecord(data); ok {
			r.Good = old.Good
		}
		r.Fail = &failRecord{
			Status:    fail.status,
			At:        fail.at,
			FinalURL:  fail.finalURL,
			Attempts:  fail.attempts,
			Permanent: fail.permanent,
			RetryAt:   fail.retryAt,
			Run:       c.run,
		}
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("robots: encoding %s: %w", authority, err) // cannot happen
	}
	if err := c.store.SaveRobots(authority, data); err != nil {
		return fmt.Errorf("robots: saving %s: %w", authority, err)
	}
	return nil
}

// minTime returns the earliest of ts.
func minTime(ts ...time.Time) time.Time {
	m := ts[0]
	for _, t := range ts[1:] {
		if t.Before(m) {
			m = t
		}
	}
	return m
}
