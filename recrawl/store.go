package recrawl

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/politecrawl/crawl/internal/boltmap"
)

// FileName is the store's file in a crawl's data directory. Only a crawl with recrawl
// on writes it.
const FileName = "schedule.db"

var (
	bucketRecords = []byte("pages") // URL → encoded Record
	bucketHints   = []byte("hints") // URL → encoded Hint
)

// Fetch is what the store keeps of one fetch of a page.
type Fetch struct {
	Due      int64         // the lease's due time, Unix nanoseconds; 0: due at once
	Interval time.Duration // the interval chosen after the fetch
	Fetched  time.Time     // when the fetch started
	Status   int           // HTTP status; a 304 keeps the status of the fetch before
	Digest   string        // payload digest; a 304 keeps the digest of the fetch before
	// ETag and LastModified are the validators of the page as fetched (a 304 keeps
	// those of the fetch before), which the next fetch sends in its conditional GET.
	ETag, LastModified string
}

// Record is a page's record: its last fetch, and the one before it when there was one.
type Record struct {
	Cur, Prev Fetch
	HasPrev   bool
}

// Hint is what a sitemap said of a page.
type Hint struct {
	ChangeFreq string    // always, hourly, daily, weekly, monthly, yearly, never; "" if none
	LastMod    time.Time // zero if none
}

// Store is schedule.db: bbolt, one key per page, nothing per page in memory. It is
// safe for concurrent use.
type Store struct {
	db *bolt.DB
	// mapped drops the file's mapped pages from the process once they grow by 64
	// MiB (package boltmap, checked every 10 ms): each page's lookup reads a random
	// leaf, which would stay mapped.
	mapped *boltmap.Limit
}

// Open opens or creates the store at path, waiting at most a second for another
// process's lock.
func Open(path string) (*Store, error) {
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("recrawl: open %s: %w (delete it to start every page's schedule afresh)", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketRecords, bucketHints} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("recrawl: open %s: %w", path, err)
	}
	s := &Store{db: db, mapped: boltmap.NewLimit(0)}
	s.mapped.Watch(db, nil)
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error {
	s.mapped.Close()
	return s.db.Close()
}

// Get returns the record and the sitemap hint of url; ok is false when it has no
// readable record. A record or hint that cannot be read is none (the page starts its
// schedule afresh); err reports only a failing database.
func (s *Store) Get(url string) (rec Record, ok bool, hint Hint, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketRecords).Get([]byte(url)); v != nil {
			rec, ok = decodeRecord(v)
		}
		if v := tx.Bucket(bucketHints).Get([]byte(url)); v != nil {
			hint, _ = decodeHint(v)
		}
		return nil
	})
	if err != nil {
		err = fmt.Errorf("recrawl: read %s: %w", FileName, err)
	}
	return rec, ok, hint, err
}

// Put writes the record of url, durably. Concurrent calls share a transaction.
func (s *Store) Put(url string, rec *Record) error {
	err := s.db.Batch(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketRecords).Put([]byte(url), encodeRecord(rec))
	})
	if err != nil {
		return fmt.Errorf("recrawl: write %s: %w", FileName, err)
	}
	return nil
}

// PutHints records what a sitemap said of its URLs, replacing what an earlier read
// said, in one transaction.
func (s *Store) PutHints(hints map[string]Hint) error {
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
		return fmt.Errorf("recrawl: write %s: %w", FileName, err)
	}
	return nil
}
