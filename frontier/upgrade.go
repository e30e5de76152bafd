package frontier

import (
	"bytes"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// upgradeChunk is how many queue entries one upgrade transaction moves.
var upgradeChunk = 50_000 // a variable for tests

// upgrade rewrites a format-2 file as format 3 before a writable Open reads it: the
// queue entries move, in key order, from the bucket "queue" to "queue3" with a due
// time of zero (at once), upgradeChunk at a time, each chunk in its own transaction so
// that memory stays bounded and a crash part way leaves a file the next Open goes on
// upgrading. The leases of a dead process are left for load to count and drop. Host records are read in both versions and written
// in the new one as they change. Files of other formats are left for load to refuse.
func (f *Frontier) upgrade(path string) error {
	for {
		finished := false
		err := f.update(func(tx *bolt.Tx) error {
			meta := tx.Bucket(bucketMeta)
			if meta == nil || !bytes.Equal(meta.Get(keyFormat), format2) {
				finished = true
				return nil
			}
			old := tx.Bucket(bucketQueue2)
			if old == nil {
				return fmt.Errorf("%w: %s: bucket %q missing", ErrCorrupt, path, bucketQueue2)
			}
			q, err := tx.CreateBucketIfNotExists(bucketQueue)
			if err != nil {
				return err
			}
			q.FillPercent = 1 // keys arrive in order: fill each page
			c := old.Cursor()
			n := 0
			for k, v := c.First(); k != nil; k, v = c.First() {
				if n == upgradeChunk {
					return nil
				}
				k3, ok := upgradeKey(k)
				if !ok {
					return fmt.Errorf("%w: %s: format-2 queue key %x", ErrCorrupt, path, k)
				}
				if err := q.Put(k3, bytes.Clone(v)); err != nil {
					return err
				}
				if err := c.Delete(); err != nil {
					return err
				}
				n++
			}
			if err := tx.DeleteBucket(bucketQueue2); err != nil {
				return err
			}
			finished = true
			return meta.Put(keyFormat, formatValue)
		})
		if errors.Is(err, ErrCorrupt) {
			return err
		} else if err != nil {
			return fmt.Errorf("frontier: upgrade %s to %s: %w", path, formatValue, err)
		}
		if finished {
			return nil
		}
	}
}
