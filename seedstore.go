package crawl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/politecrawl/crawl/internal/boltmap"
)

// SeedsStateName is the database in the data directory that remembers how far the
// crawl has read each seeds file, and the scope keys of the seeds read (seeds.go).
const SeedsStateName = "seeds.db"

var (
	bucketSeedFiles = []byte("files") // absolute path → seedFile, as JSON
	bucketSeedScope = []byte("scope") // extract.Scope.SeedKey → empty
	bucketSeedMeta  = []byte("meta")  // "scope" → the scope the keys are for (scopeOf)
)

// seedFile is how far the crawl has read one seeds file. Every seed before Offset is
// in the frontier (or was handed to its owner) and its scope key is in the scope
// bucket: a later run reads on from Offset.
type seedFile struct {
	Offset  int64  `json:"offset"`  // bytes read, to the end of a line
	Line    int    `json:"line"`    // lines read
	Size    int64  `json:"size"`    // the file's size when last read
	ModTime int64  `json:"mtime"`   // and its modification time, Unix nanoseconds
	Hash    []byte `json:"hash"`    // the state of a SHA-256 of its first Offset bytes
	Done    bool   `json:"done"`    // read to its end
	Seeds   int64  `json:"seeds"`   // seed URLs read, over every run
	Skipped int64  `json:"skipped"` // lines skipped, over every run
}

// seedsResident is the budget of seeds.db's mapped pages (package boltmap), in bytes:
// a lookup of the scope reads one leaf, and the file is small beside frontier.db.
const seedsResident = 16 << 20

// seedStore is seeds.db. Its scope keys back the crawl's scope (extract.SeedIndex)
// once they are more than the scope holds in memory. It is safe for simultaneous use.
type seedStore struct {
	db *bolt.DB
	// mapped drops the file's mapped pages once they grow by seedsResident: with the
	// keys of ten million hosts the file is hundreds of MiB, and every lookup maps a
	// leaf.
	mapped *boltmap.Limit
	// spilled is set when the bucket holds keys the scope does not hold in memory:
	// only then is the store the scope's SeedIndex.
	spilled atomic.Bool
	close   sync.Once
	closed  error
}

// openSeedStore opens or creates seeds.db at path.
func openSeedStore(path string) (*seedStore, error) {
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketSeedFiles, bucketSeedScope, bucketSeedMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &seedStore{db: db, mapped: boltmap.NewLimit(seedsResident)}
	s.mapped.Watch(db, nil)
	return s, nil
}

// Close closes the database. It may be called more than once.
func (s *seedStore) Close() error {
	s.close.Do(func() {
		s.mapped.Close()
		s.closed = s.db.Close()
	})
	return s.closed
}

// Has reports whether the scope bucket holds key: extract.SeedIndex.
func (s *seedStore) Has(key string) bool {
	found := false
	_ = s.db.View(func(tx *bolt.Tx) error {
		found = tx.Bucket(bucketSeedScope).Get([]byte(key)) != nil
		return nil
	})
	return found
}

// file returns the state of the seeds file at path; ok is false when the crawl has
// not read it yet.
func (s *seedStore) file(path string) (f seedFile, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketSeedFiles).Get([]byte(path))
		if v == nil {
			return nil
		}
		ok = true
		return json.Unmarshal(v, &f)
	})
	if err != nil {
		return seedFile{}, false, fmt.Errorf("reading %s: %w", SeedsStateName, err)
	}
	return f, ok, nil
}

// commit records, in one transaction, the scope keys of a batch of seeds and how far
// the file at path is read once they are in the frontier. keys are sorted.
func (s *seedStore) commit(path string, f *seedFile, keys []string) error {
	v, err := json.Marshal(f)
	if err != nil {
		return err
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSeedScope)
		b.FillPercent = 0.9 // keys come in sorted batches, mostly at the end
		for _, k := range keys {
			if err := b.Put([]byte(k), nil); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketSeedFiles).Put([]byte(path), v)
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", SeedsStateName, err)
	}
	return nil
}

// checkScope compares the scope the stored keys are for with scope. When they differ
// (scope.mode or scope.prefixes changed between runs), it forgets the keys and every
// file's position, so that the files are read again for the new scope's keys, and
// reports true.
func (s *seedStore) checkScope(scope string) (reset bool, err error) {
	err = s.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketSeedMeta)
		old := meta.Get([]byte("scope"))
		if bytes.Equal(old, []byte(scope)) {
			return nil
		}
		reset = old != nil
		for _, name := range [][]byte{bucketSeedScope, bucketSeedFiles} {
			if err := tx.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
				return err
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		return meta.Put([]byte("scope"), []byte(scope))
	})
	if err != nil {
		return false, fmt.Errorf("writing %s: %w", SeedsStateName, err)
	}
	return reset, nil
}

// loadKeys hands add the stored scope keys until add reports false (the scope's
// memory is full), and reports whether keys remain.
func (s *seedStore) loadKeys(add func(key string) bool) (more bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketSeedScope).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if !add(string(k)) {
				more = true
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", SeedsStateName, err)
	}
	return more, nil
}
