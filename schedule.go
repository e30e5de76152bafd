package crawl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/politecrawl/crawl/internal/boltmap"
)

// ScheduleFile is the database, in the data directory, that holds each page's recrawl
// schedule and the hints sitemaps gave for it. Only a crawl with recrawl on writes it.
const ScheduleFile = "schedule.db"

// The adaptive schedule's rates, Nutch's AdaptiveFetchSchedule defaults
// (db.fetch.schedule.adaptive.inc_rate and dec_rate): an unchanged page's interval
// grows by 40%, a changed page's shrinks by 20%.
const (
	adaptiveGrow   = 1.4
	adaptiveShrink = 0.8
)

var (
	bucketSchedule = []byte("pages") // URL → encoded pageSchedule
	bucketHints    = []byte("hints") // URL → encoded sitemapHint
)

// fetchState is what the schedule keeps of one fetch of a page.
type fetchState struct {
	due      int64         // the lease's due time, Unix nanoseconds; 0: due at once
	interval time.Duration // the interval chosen after the fetch
	fetched  time.Time     // when the fetch started
	status   int           // HTTP status; a 304 keeps the status of the fetch before
	digest   string        // payload digest; a 304 keeps the digest of the fetch before
	// etag and lastMod are the validators of the page as fetched (a 304 keeps those
	// of the fetch before), which the next fetch sends in its conditional GET.
	etag, lastMod string
}

// pageSchedule is a page's record in schedule.db: its last fetch, and the one before
// it. A fetch is written before its lease is done, so a crash in between leaves a
// record whose cur.due is the due time of the lease fetched again after the restart;
// that fetch is scheduled from prev, as if the lost one had not happened.
type pageSchedule struct {
	cur, prev fetchState
	hasPrev   bool
}

// sitemapHint is what a sitemap said of a page: its changefreq and lastmod.
type sitemapHint struct {
	changeFreq string    // always, hourly, daily, weekly, monthly, yearly, never; "" if none
	lastMod    time.Time // zero if none
}

// scheduleStore is schedule.db: bbolt, one key per page, nothing per page in memory.
// It is safe for concurrent use.
type scheduleStore struct {
	db *bolt.DB
	// mapped drops the file's mapped pages from the process once they grow by 64
	// MiB (package boltmap, checked every 10 ms): each page's lookup reads a random
	// leaf, which would stay mapped.
	mapped *boltmap.Limit
}

// openSchedule opens or creates the schedule database at path.
func openSchedule(path string) (*scheduleStore, error) {
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("crawl: %s: %w (delete it to start every page's schedule afresh)", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketSchedule, bucketHints} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("crawl: %s: %w", path, err)
	}
	s := &scheduleStore{db: db, mapped: boltmap.NewLimit(0)}
	s.mapped.Watch(db, nil)
	return s, nil
}

// Close closes the database.
func (s *scheduleStore) Close() error {
	s.mapped.Close()
	return s.db.Close()
}

// get returns the schedule and the sitemap hint of url; a record that cannot be read
// is none (the page starts its schedule afresh).
func (s *scheduleStore) get(url string) (ps pageSchedule, ok bool, hint sitemapHint, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketSchedule).Get([]byte(url)); v != nil {
			ps, ok = decodeSchedule(v)
		}
		if v := tx.Bucket(bucketHints).Get([]byte(url)); v != nil {
			hint, _ = decodeHint(v)
		}
		return nil
	})
	if err != nil {
		err = fmt.Errorf("crawl: %s: %w", ScheduleFile, err)
	}
	return ps, ok, hint, err
}

// put writes the schedule of url, durably. Concurrent calls share a transaction.
func (s *scheduleStore) put(url string, ps *pageSchedule) error {
	err := s.db.Batch(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSchedule).Put([]byte(url), encodeSchedule(ps))
	})
	if err != nil {
		return fmt.Errorf("crawl: %s: %w", ScheduleFile, err)
	}
	return nil
}

// putHints records what a sitemap said of its URLs, replacing what an earlier read
// said, in one transaction.
func (s *scheduleStore) putHints(hints map[string]sitemapHint) error {
	if len(hints) == 0 {
		return nil
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketHints)
		for u, h := range hints {
			if err := b.Put([]byte(u), encodeHint(h)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawl: %s: %w", ScheduleFile, err)
	}
	return nil
}

// scheduleVersion is the first byte of every schedule record.
const scheduleVersion = 1

func appendFetchState(b []byte, f *fetchState) []byte {
	b = binary.AppendVarint(b, f.due)
	b = binary.AppendVarint(b, int64(f.interval))
	b = binary.AppendVarint(b, f.fetched.UnixNano())
	b = binary.AppendUvarint(b, uint64(f.status))
	for _, s := range []string{f.digest, f.etag, f.lastMod} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

func encodeSchedule(ps *pageSchedule) []byte {
	b := []byte{scheduleVersion, 0}
	if ps.hasPrev {
		b[1] = 1
	}
	b = appendFetchState(b, &ps.cur)
	if ps.hasPrev {
		b = appendFetchState(b, &ps.prev)
	}
	return b
}

// errShort ends the decoding of a record that is cut or damaged.
var errShort = errors.New("short record")

// recordReader reads the varints of a stored record, remembering the first error.
type recordReader struct {
	b   []byte
	err error
}

func (r *recordReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = errShort, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = errShort, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) fetchState() fetchState {
	f := fetchState{due: r.varint(), interval: time.Duration(r.varint())}
	f.fetched = time.Unix(0, r.varint()).UTC()
	status := r.uvarint()
	if r.err != nil || status > 999 || f.interval < 0 {
		r.err, r.b = errShort, nil
		return fetchState{}
	}
	f.status = int(status)
	f.digest, f.etag, f.lastMod = r.str(), r.str(), r.str()
	if r.err != nil {
		return fetchState{}
	}
	return f
}

func (r *recordReader) str() string {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err, r.b = errShort, nil
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// decodeSchedule reads what encodeSchedule wrote; false for anything else.
func decodeSchedule(v []byte) (pageSchedule, bool) {
	if len(v) < 2 || v[0] != scheduleVersion || v[1] > 1 {
		return pageSchedule{}, false
	}
	r := recordReader{b: v[2:]}
	ps := pageSchedule{cur: r.fetchState(), hasPrev: v[1] == 1}
	if ps.hasPrev {
		ps.prev = r.fetchState()
	}
	if r.err != nil || len(r.b) != 0 {
		return pageSchedule{}, false
	}
	return ps, true
}

// changeFreqs are the sitemap protocol's changefreq values, in their stored order.
var changeFreqs = []string{"", "always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}

func encodeHint(h sitemapHint) []byte {
	b := []byte{scheduleVersion, 0}
	for i, f := range changeFreqs {
		if f == h.changeFreq {
			b[1] = byte(i)
		}
	}
	var mod int64
	if !h.lastMod.IsZero() {
		mod = h.lastMod.UnixNano()
	}
	return binary.AppendVarint(b, mod)
}

// decodeHint reads what encodeHint wrote; false for anything else.
func decodeHint(v []byte) (sitemapHint, bool) {
	if len(v) < 2 || v[0] != scheduleVersion || int(v[1]) >= len(changeFreqs) {
		return sitemapHint{}, false
	}
	r := recordReader{b: v[2:]}
	mod := r.varint()
	if r.err != nil || len(r.b) != 0 {
		return sitemapHint{}, false
	}
	h := sitemapHint{changeFreq: changeFreqs[v[1]]}
	if mod != 0 {
		h.lastMod = time.Unix(0, mod).UTC()
	}
	return h, true
}

// changeFreqInterval is the interval a sitemap changefreq stands for, before bounds;
// always and never are the bounds themselves (see firstInterval).
var changeFreqInterval = map[string]time.Duration{
	"hourly":  time.Hour,
	"daily":   24 * time.Hour,
	"weekly":  7 * 24 * time.Hour,
	"monthly": 30 * 24 * time.Hour,
	"yearly":  365 * 24 * time.Hour,
}

// clamp keeps d within the adaptive bounds.
func (r *RecrawlConfig) clamp(d time.Duration) time.Duration {
	return min(max(d, r.MinInterval.d()), r.MaxInterval.d())
}

// firstInterval is the interval of a page after its first fetch at fetched: Interval,
// or in adaptive mode what its sitemap entry says: changefreq always is MinInterval,
// never is MaxInterval, the others their own length; without a changefreq, a lastmod
// older than Interval says the page has been stable that long, and that long is its
// first interval (Nutch's adaptive schedule syncs the same way with a page's age).
// Always within the bounds.
func (r *RecrawlConfig) firstInterval(hint sitemapHint, fetched time.Time) time.Duration {
	if r.Mode != RecrawlAdaptive {
		return r.Interval.d()
	}
	switch hint.changeFreq {
	case "always":
		return r.MinInterval.d()
	case "never":
		return r.MaxInterval.d()
	case "":
		if age := fetched.Sub(hint.lastMod); !hint.lastMod.IsZero() && age > r.Interval.d() {
			return r.clamp(age)
		}
		return r.clamp(r.Interval.d())
	}
	return r.clamp(changeFreqInterval[hint.changeFreq])
}

// nextInterval is the interval of a page after a refetch whose interval before was
// last: Interval in fixed mode; in adaptive mode last shrunk when the page changed and
// grown when it did not, within the bounds. A sitemap's changefreq always or never
// keeps the page at the bound it names.
func (r *RecrawlConfig) nextInterval(last time.Duration, changed bool, hint sitemapHint) time.Duration {
	if r.Mode != RecrawlAdaptive {
		return r.Interval.d()
	}
	switch hint.changeFreq {
	case "always":
		return r.MinInterval.d()
	case "never":
		return r.MaxInterval.d()
	}
	f := adaptiveGrow
	if changed {
		f = adaptiveShrink
	}
	next := float64(last) * f
	if next >= math.MaxInt64 {
		return r.MaxInterval.d()
	}
	return r.clamp(time.Duration(next))
}
