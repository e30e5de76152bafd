package robots

import (
	"container/list"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fetcher fetches a robots.txt URL for a Cache. The crawl engine implements it: the
// fetch goes through politeness, follows up to 5 redirects (across hosts too, RFC 9309
// §2.3.1.2) and archives each hop. A non-nil error means the fetch failed (network
// error, timeout, too many redirects): robots.txt is unreachable, as it is for a nil
// result. When the error comes with the end of ctx, nothing is recorded. An error with
// a method Temporary() bool that reports false (an address refused by policy, a bad
// TLS certificate, a host name that does not exist: trying again soon cannot help) makes
// the Cache give up on the authority at once (Entry.GaveUp) instead of after
// CacheOptions.UnreachableAttempts fetches. An error with a method Until() time.Time
// means the fetch did not begin, the host being not to be contacted before then:
// nothing is recorded, and Get returns that error for its caller to come back later.
// A Fetcher must be safe for concurrent use: a Cache fetches for several authorities at
// once.
type Fetcher interface {
	FetchRobots(ctx context.Context, robotsURL string) (*FetchResult, error)
}

// FetchResult is what a robots.txt fetch returned after redirects.
type FetchResult struct {
	// Status is the final HTTP status after redirects. A 3xx here means the
	// redirects were not all followed, which makes robots.txt unreachable.
	Status int
	// Body is the decoded body. Only the first MaxSize bytes are used; the fetcher
	// need not read more than MaxSize+1.
	Body []byte
	// Header is the final response header. Cache-Control (max-age, no-cache,
	// no-store) is read on success and Retry-After when unreachable; nil means none.
	Header http.Header
	// FinalURL is the URL of the last hop; "" means the robots.txt URL asked for.
	FinalURL string
}

// Store persists cache entries between runs. The frontier (LoadRobots and SaveRobots
// on *frontier.Frontier) satisfies it. LoadRobots returns nil, nil when there is
// nothing for authority; SaveRobots with empty data deletes. The data is opaque to the
// Store. A Store must be safe for concurrent use.
type Store interface {
	LoadRobots(authority string) ([]byte, error)
	SaveRobots(authority string, data []byte) error
}

// CacheOptions configures a Cache. The zero value gives the defaults documented on
// each field; a negative duration or count means the same as zero.
type CacheOptions struct {
	// MaxAge is how long a fetched robots.txt is used before it is fetched again.
	// Zero means 24 hours, and it is never more than 24 hours (RFC 9309 §2.4). A
	// Cache-Control max-age in the response shortens it, never lengthens it;
	// no-cache and no-store shorten it to MinAge.
	MaxAge time.Duration
	// MinAge is the shortest time a fetched robots.txt is used, whatever its
	// Cache-Control says, so that max-age=0 does not mean a fetch of robots.txt
	// before every page. Zero means 1 minute; it is never more than MaxAge.
	MinAge time.Duration
	// UnreachableAttempts is how many consecutive unreachable fetches this Cache
	// makes before it gives up on an authority for the run (Entry.GaveUp). Zero
	// means 3. A permanent fetch error (see Fetcher) gives up at once.
	UnreachableAttempts int
	// UnreachableRetry is the wait after the first unreachable fetch before the
	// second; each further wait doubles, up to MaxAge. A longer Retry-After in the
	// response wins, up to MaxAge. Zero means 1 minute.
	UnreachableRetry time.Duration
	// StaleLimit is how old an earlier successful copy may be and still be used
	// while robots.txt is unreachable (Entry.Stale). Zero means 30 days (RFC 9309
	// §2.3.1.4).
	StaleLimit time.Duration
	// MaxEntries bounds the number of authorities held in memory; the least
	// recently used are dropped first and read again from the Store when asked for.
	// Zero means 100000.
	MaxEntries int
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
	// Dropped, when set, is called with the authority whose stored record cannot be
	// read (damaged, or of another version) and is therefore ignored: robots.txt is
	// fetched again. It is called from the goroutine of Get and must not call the
	// Cache. Nil means such records are dropped silently.
	Dropped func(authority string)
	// Interrupted, when set, is called with an authority whose stored record shows a
	// fetch of its robots.txt that began at the given time and whose result was never
	// stored: the process died or stopped during it, and the host saw the connection
	// cut, perhaps after it had answered. The engine spaces its next request to the
	// host as after a connection error (the fetch is not recorded as unreachable: the
	// cut came from our side). It is called from
	// the goroutine of Get, before robots.txt is fetched again, and must not call the
	// Cache. With a Store, every fetch is marked in it before it begins (see
	// MarkOnBegin).
	// seen is when a Cache first read the mark, at the start of a later run: the
	// answer, if any, had ended by then. last holds the rules of the last successful
	// fetch the Store keeps (a recrawl's earlier copy, whatever its age), nil if none:
	// their Crawl-delay is the least the host asked for.
	Interrupted func(authority string, at, seen time.Time, last *Robots)
	// MarkOnBegin says the Fetcher calls Begin just before it sends the request, after
	// any wait for the host's turn: the fetch is marked then (see Interrupted), so that
	// a process that dies during that wait, before any byte reached the host, leaves no
	// mark and its next run does not hold the host back. False: the fetch is marked
	// when FetchRobots is called.
	MarkOnBegin bool
}

// beginKey is the context key of the mark Begin sets.
type beginKey struct{}

// Begin tells the Cache, from within Fetcher.FetchRobots and with its ctx, that the
// request for robots.txt is about to be sent (CacheOptions.MarkOnBegin): the fetch is
// marked in the Store now. Later calls for the same fetch do nothing; with a ctx that
// does not come from the Cache it does nothing. It fails only when the Store does.
func Begin(ctx context.Context) error {
	if b, ok := ctx.Value(beginKey{}).(*beginMark); ok {
		return b.mark()
	}
	return nil
}

// beginMark marks one fetch in the Store, once.
type beginMark struct {
	once sync.Once
	err  error
	fn   func() error
}

func (b *beginMark) mark() error {
	b.once.Do(func() { b.err = b.fn() })
	return b.err
}

// Defaults of CacheOptions.
const (
	defaultMaxAge     = 24 * time.Hour
	defaultMinAge     = time.Minute
	defaultAttempts   = 3
	defaultRetry      = time.Minute
	defaultStaleLimit = 30 * 24 * time.Hour
	defaultMaxEntries = 100000
)

// withDefaults returns o with every zero or negative field replaced by its default.
func (o CacheOptions) withDefaults() CacheOptions {
	if o.MaxAge <= 0 || o.MaxAge > defaultMaxAge {
		o.MaxAge = defaultMaxAge
	}
	if o.MinAge <= 0 {
		o.MinAge = defaultMinAge
	}
	o.MinAge = min(o.MinAge, o.MaxAge)
	if o.UnreachableAttempts <= 0 {
		o.UnreachableAttempts = defaultAttempts
	}
	if o.UnreachableRetry <= 0 {
		o.UnreachableRetry = defaultRetry
	}
	o.UnreachableRetry = min(o.UnreachableRetry, o.MaxAge)
	if o.StaleLimit <= 0 {
		o.StaleLimit = defaultStaleLimit
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = defaultMaxEntries
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Cache holds the robots.txt rules of each authority, fetching them through a Fetcher
// when first asked for, when they expire and, while unreachable, after a backoff
// (RFC 9309 §2.3.1.4, §2.4). It keeps parsed rules in memory and, given a Store,
// persists them, so that a resumed crawl does not fetch robots.txt again while the
// stored copy is fresh.
//
// A Cache is safe for concurrent use by multiple goroutines.
type Cache struct {
	fetcher Fetcher
	store   Store // nil: memory only
	opts    CacheOptions
	run     string // identifies this Cache in stored records: Attempts counts per run

	mu    sync.Mutex
	slots map[string]*slot
	lru   list.List // of *slot, most recently used at the front
}

// slot is what the Cache knows of one authority. Its fields are written under Cache.mu;
// loaded, good and fail change only while flight is set, by the goroutine that set it,
// which may therefore read them without the lock.
type slot struct {
	authority string
	elem      *list.Element
	flight    chan struct{} // non-nil while a load or fetch is under way; closed after

	loaded bool      // good and fail reflect the Store or a fetch
	good   *snapshot // the last successful (2xx or 4xx) fetch, nil if none is known
	fail   *failure  // non-nil while unreachable: the fetches since good failed
	entry  *Entry    // built from good and fail; nil until built
}

// snapshot is a successful fetch: its rules and where they came from.
type snapshot struct {
	status    int
	fetchedAt time.Time
	expires   time.Time
	finalURL  string
	digest    string
	robots    *Robots
}

// failure is the state of an authority whose robots.txt is unreachable.
type failure struct {
	status    int // of the last fetch; 0 for a network error
	at        time.Time
	finalURL  string
	attempts  int  // consecutive unreachable fetches by this Cache
	permanent bool // the last fetch failed in a way trying again cannot help (see Fetcher)
	retryAt   time.Time
}

// NewCache returns a Cache that fetches through f and persists through s. s may be
// nil: the Cache then holds entries in memory only, and fetches again an authority it
// has dropped (see CacheOptions.MaxEntries).
func NewCache(f Fetcher, s Store, opts CacheOptions) *Cache {
	var id [8]byte
	_, _ = rand.Read(id[:]) // never fails (crypto/rand)
	return &Cache{
		fetcher: f,
		store:   s,
		opts:    opts.withDefaults(),
		run:     hex.EncodeToString(id[:]),
		slots:   make(map[string]*slot),
	}
}

// Get returns the rules for authority, "scheme://host[:port]" with no trailing slash,
// such as "https://example.com" or "http://127.0.0.1:8080"; its robots.txt URL is
// authority + "/robots.txt".
//
// A fresh entry (before its Expires) is returned from memory, or from the Store when
// memory no longer holds it, without fetching. Otherwise Get fetches robots.txt: one
// fetch at a time per authority however many goroutines ask, the others waiting for its
// result. A stored entry that cannot be decoded is ignored and fetched again.
//
// Get returns an error only when ctx ends before the entry is known, when the Fetcher
// says the fetch cannot begin yet (see Fetcher), or when the Store fails to load or
// save. After a failed save the entry is still held in memory, so the
// next Get returns it without fetching.
func (c *Cache) Get(ctx context.Context, authority string) (*Entry, error) {
	for {
		c.mu.Lock()
		s := c.slot(authority)
		if s.flight == nil {
			if e := c.fresh(s, c.opts.Now()); e != nil {
				c.mu.Unlock()
				return e, nil
			}
			done := make(chan struct{})
			s.flight = done
			c.mu.Unlock()
			return c.refresh(ctx, s, done)
		}
		wait := s.flight
		c.mu.Unlock()
		select {
		case <-wait: // look again: the entry is known, or the fetch was abandoned
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// slot returns the slot of authority, adding it if need be, and marks it used. It is
// called with c.mu held.
func (c *Cache) slot(authority string) *slot {
	if s := c.slots[authority]; s != nil {
		c.lru.MoveToFront(s.elem)
		return s
	}
	s := &slot{authority: authority}
	s.elem = c.lru.PushFront(s)
	c.slots[authority] = s
	// Drop the least recently used, but never one being fetched (its waiters rely on
	// it) nor the one just added.
	for el := c.lru.Back(); el != nil && el != c.lru.Front() && c.lru.Len() > c.opts.MaxEntries; {
		prev := el.Prev()
		if old := el.Value.(*slot); old.flight == nil {
			c.lru.Remove(el)
			delete(c.slots, old.authority)
		}
		el = prev
	}
	return s
}

// fresh returns the entry of s if it may be used at now without fetching, else nil. It
// is called with c.mu held.
func (c *Cache) fresh(s *slot, now time.Time) *Entry {
	switch {
	case !s.loaded:
		return nil
	case s.fail != nil:
		if !now.Before(s.fail.retryAt) {
			return nil
		}
	case s.good == nil || !now.Before(s.good.expires):
		return nil
	}
	if s.entry == nil || s.fail != nil && s.entry.Stale != c.usable(s.good, now) {
		s.entry = c.build(s, now)
	}
	return s.entry
}

// usable reports whether g may stand in for an unreachable robots.txt at now.
func (c *Cache) usable(g *snapshot, now time.Time) bool {
	return g != nil && now.Sub(g.fetchedAt) <= c.opts.StaleLimit
}

// refresh loads s from the Store if need be and, unless that gives a fresh entry,
// fetches robots.txt. The caller has set s.flight to done; refresh clears it and closes
// done whatever happens, a panic of the Fetcher included.
func (c *Cache) refresh(ctx context.Context, s *slot, done chan struct{}) (*Entry, error) {
	defer func() {
		c.mu.Lock()
		s.flight = nil
		c.mu.Unlock()
		close(done)
	}()
	if !s.loaded {
		good, fail, err := c.load(s.authority)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		s.good, s.fail, s.entry, s.loaded = good, fail, nil, true
		e := c.fresh(s, c.opts.Now())
		c.mu.Unlock()
		if e != nil {
			return e, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Mark the fetch in the Store before it begins (as its request is sent, with
	// MarkOnBegin), so that a process dying before its result is stored tells the
	// next one (CacheOptions.Interrupted). The mark stays when the fetch is abandoned
	// with ctx: the host may have answered.
	begin := &beginMark{fn: func() error { return c.markPending(s.authority, c.opts.Now()) }}
	if !c.opts.MarkOnBegin {
		if err := begin.mark(); err != nil {
			return nil, err
		}
	}

	robotsURL := s.authority + "/robots.txt"
	res, ferr := c.fetcher.FetchRobots(context.WithValue(ctx, beginKey{}, begin), robotsURL)
	if ferr != nil && ctx.Err() != nil {
		// Stopping, not a failure of the host: record nothing. A waiter whose ctx
		// is still live fetches in its turn.
		return nil, ctx.Err()
	}
	if notBegun(ferr) {
		return nil, ferr // not the host's failure either: record nothing
	}
	now := c.opts.Now()
	status, finalURL := 0, robotsURL
	var body []byte
	var header http.Header
	if ferr == nil && res != nil {
		status, body, header = res.Status, res.Body, res.Header
		if res.FinalURL != "" {
			finalURL = res.FinalURL
		}
	}
	rules := FromStatus(status, body)

	c.mu.Lock()
	if !rules.Unreachable() {
		s.good = &snapshot{
			status:    status,
			fetchedAt: now,
			expires:   now.Add(c.maxAge(header)),
			finalURL:  finalURL,
			robots:    rules,
		}
		if rules.unavailable {
			body = nil // the rules do not come from the body of a 4xx
		} else {
			s.good.digest = digest(body)
		}
		s.fail = nil
	} else {
		attempts := 1
		if s.fail != nil {
			attempts = s.fail.attempts + 1
		}
		s.fail = &failure{
			permanent: permanent(ferr),
			status:    status,
			at:        now,
			finalURL:  finalURL,
			attempts:  attempts,
			retryAt:   now.Add(c.backoff(attempts, header, now)),
		}
	}
	s.entry = c.build(s, now)
	e, good, fail := s.entry, s.good, s.fail
	c.mu.Unlock()

	if err := c.save(s.authority, good, fail, body); err != nil {
		return nil, err
	}
	return e, nil
}

// notBegun reports whether a fetch error says the fetch did not begin because the host
// may not be contacted yet: it has a method Until() time.Time (see Fetcher).
func notBegun(err error) bool {
	var u interface{ Until() time.Time }
	return errors.As(err, &u)
}

// permanent reports whether a fetch error says that trying again soon cannot help: it
// has a Temporary method that reports false.
func permanent(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && !t.Temporary()
}

// build returns the entry that s stands for at now. It is called with c.mu held.
func (c *Cache) build(s *slot, now time.Time) *Entry {
	e := &Entry{Authority: s.authority, URL: s.authority + "/robots.txt"}
	g, f := s.good, s.fail
	if f == nil {
		e.Robots, e.Status, e.FetchedAt, e.FinalURL, e.Digest = g.robots, g.status, g.fetchedAt, g.finalURL, g.digest
		e.Expires = g.expires
		return e
	}
	e.Status, e.Unreachable, e.Attempts, e.RetryAt, e.Expires = f.status, true, f.attempts, f.retryAt, f.retryAt
	if c.usable(g, now) {
		e.Stale = true
		e.Robots, e.FetchedAt, e.FinalURL, e.Digest = g.robots, g.fetchedAt, g.finalURL, g.digest
		return e
	}
	e.Robots, e.FetchedAt, e.FinalURL = FromStatus(f.status, nil), f.at, f.finalURL
	e.GaveUp = f.attempts >= c.opts.UnreachableAttempts || f.permanent && f.attempts > 0
	return e
}

// maxAge returns how long a successful fetch with header h is used: MaxAge, shortened
// by Cache-Control, never less than MinAge.
func (c *Cache) maxAge(h http.Header) time.Duration {
	d := c.opts.MaxAge
	for _, v := range h.Values("Cache-Control") {
		for part := range strings.SplitSeq(v, ",") {
			k, val, _ := strings.Cut(strings.TrimSpace(part), "=")
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "max-age":
				if n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(val), `"`), 10, 64); err == nil && n >= 0 {
					if n < int64(d/time.Second) {
						d = time.Duration(n) * time.Second
					}
				}
			case "no-cache", "no-store":
				d = 0
			}
		}
	}
	return max(d, c.opts.MinAge)
}

// backoff returns the wait after the given number of consecutive unreachable fetches:
// UnreachableRetry doubled attempts-1 times, or Retry-After if longer, at most MaxAge.
func (c *Cache) backoff(attempts int, h http.Header, now time.Time) time.Duration {
	d := c.opts.UnreachableRetry
	for i := 1; i < attempts && d < c.opts.MaxAge; i++ {
		d *= 2
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			ra := c.opts.MaxAge
			if n < int64(ra/time.Second) {
				ra = time.Duration(n) * time.Second
			}
			d = max(d, ra)
		} else if t, err := http.ParseTime(v); err == nil {
			d = max(d, t.Sub(now))
		}
	}
	return min(d, c.opts.MaxAge)
}

// digest returns the digest of a robots.txt body as Entry.Digest gives it: "sha1:"
// followed by the upper-case base32 SHA-1 of body, the form of WARC payload digests.
func digest(body []byte) string {
	sum := sha1.Sum(body)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

// Entry is one authority's robots.txt as a Cache holds it. It is immutable once
// returned and safe for concurrent use. The Cache returns the same *Entry until the
// authority is fetched again, or until a Stale entry's copy grows older than
// CacheOptions.StaleLimit.
type Entry struct {
	// Authority is the authority asked for, such as "https://example.com".
	Authority string
	// URL is the robots.txt URL asked for: Authority + "/robots.txt".
	URL string
	// FinalURL is the URL of the last hop of the fetch that Robots came from, after
	// redirects (for a Stale entry, the earlier copy's).
	FinalURL string
	// Robots holds the rules to apply; never nil. It is the parsed body of a 2xx,
	// no restrictions for a 4xx, everything disallowed when unreachable (see
	// FromStatus), or, when Stale, the earlier copy's rules.
	Robots *Robots
	// Status is the HTTP status of the last fetch, after redirects; 0 for a network
	// error. For a Stale entry, Robots.Status gives the earlier copy's status.
	Status int
	// FetchedAt is when the rules in Robots were fetched.
	FetchedAt time.Time
	// Digest is "sha1:" and the upper-case base32 SHA-1 of the 2xx body the rules
	// came from, as in WARC payload digests; "" when they did not come from a body
	// (4xx, unreachable).
	Digest string
	// Expires is when the entry must be fetched again: FetchedAt plus the cache
	// lifetime, or RetryAt when Unreachable.
	Expires time.Time
	// Unreachable reports that the last fetch found robots.txt unreachable: 429,
	// 5xx, another unexpected code, a network error, or a 3xx whose redirects were
	// not all followed.
	Unreachable bool
	// Stale reports that robots.txt is Unreachable but Robots is an earlier
	// successful (2xx or 4xx) copy, not older than CacheOptions.StaleLimit, which is
	// used instead of disallowing everything.
	Stale bool
	// Attempts counts the consecutive unreachable fetches this Cache has made; 0 when
	// not Unreachable, and 0 too for an unreachable entry a new Cache read from the
	// Store and has not fetched yet (a resumed crawl starts counting again).
	Attempts int
	// RetryAt is, when Unreachable, the time before which the Cache will not fetch
	// robots.txt again: UnreachableRetry after the first failure, doubling with
	// each further one. Zero when not Unreachable.
	RetryAt time.Time
	// GaveUp reports that robots.txt is Unreachable, not Stale, and Attempts has
	// reached CacheOptions.UnreachableAttempts, or the last fetch failed permanently
	// (see Fetcher): the engine sets the host aside for
	// the run. Robots then disallows everything.
	GaveUp bool
}

// Decide reports whether agent may fetch rawURL under the entry's rules, and which rule
// decided: e.Robots.Match(agent, rawURL). String tells which robots.txt it was.
func (e *Entry) Decide(agent, rawURL string) Decision {
	return e.Robots.Match(agent, rawURL)
}

// String describes which robots.txt the rules come from, such as
// "https://example.com/robots.txt (status 200, fetched 2025-01-02T03:04:05Z,
// sha1:ABC…)", saying also where it was redirected to and whether it is unreachable.
func (e *Entry) String() string {
	var b strings.Builder
	b.WriteString(e.URL)
	if e.FinalURL != "" && e.FinalURL != e.URL {
		b.WriteString(" → " + e.FinalURL)
	}
	b.WriteString(" (")
	if e.Unreachable {
		b.WriteString("unreachable: ")
		if e.Status == 0 {
			b.WriteString("fetch failed")
		} else {
			b.WriteString("status " + strconv.Itoa(e.Status))
		}
		fmt.Fprintf(&b, ", %d attempts, retry at %s; ", e.Attempts, e.RetryAt.UTC().Format(time.RFC3339))
		switch {
		case e.Stale:
			b.WriteString("using copy with status " + strconv.Itoa(e.Robots.Status()) + ", ")
		case e.GaveUp:
			b.WriteString("gave up, everything disallowed, ")
		default:
			b.WriteString("everything disallowed, ")
		}
	} else {
		b.WriteString("status " + strconv.Itoa(e.Status) + ", ")
	}
	b.WriteString("fetched " + e.FetchedAt.UTC().Format(time.RFC3339))
	if e.Digest != "" {
		b.WriteString(", " + e.Digest)
	}
	b.WriteString(")")
	return b.String()
}
