package frontier

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// validDB writes a frontier with n URLs over 50 hosts and returns its path.
func validDB(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "frontier.db")
	f, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	var es []Entry
	for i := range n {
		es = append(es, Entry{URL: fmt.Sprintf("http://h%d.test/page/%d", i%50, i), FoundOn: "http://seed.test/"})
	}
	if _, err := f.Add(context.Background(), es...); err != nil {
		t.Fatal(err)
	}
	if err := f.SaveRobots("http://h1.test", []byte("User-agent: *")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func boltUpdate(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenBadFiles(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T) string
		want error
	}{
		{"garbage", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "garbage.db")
			b := make([]byte, 64<<10)
			r := rand.New(rand.NewPCG(1, 2))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			os.WriteFile(path, b, 0o600)
			return path
		}, ErrCorrupt},
		{"text", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "notes.txt")
			os.WriteFile(path, []byte("these are not the pages you are looking for\n"), 0o600)
			return path
		}, ErrCorrupt},
		{"truncated", func(t *testing.T) string {
			path := validDB(t, 5000)
			// Half of what the database uses: the file itself grows ahead of it.
			os.Truncate(path, int64(usedSize(t, path)/2))
			return path
		}, ErrCorrupt},
		{"foreign buckets", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "other.db")
			boltUpdate(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("widgets"))
				if err != nil {
					return err
				}
				return b.Put([]byte("k"), []byte("v"))
			})
			return path
		}, ErrNotFrontier},
		{"other format", func(t *testing.T) string {
			path := validDB(t, 10)
			boltUpdate(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket(bucketMeta).Put(keyFormat, []byte("politecrawl-frontier 99"))
			})
			return path
		}, ErrNotFrontier},
		{"missing bucket", func(t *testing.T) string {
			path := validDB(t, 10)
			boltUpdate(t, path, func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketSeen) })
			return path
		}, ErrCorrupt},
		{"bad host record", func(t *testing.T) string {
			path := validDB(t, 10)
			boltUpdate(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket(bucketHosts).Put([]byte("http://h1.test"), []byte{1, 0xff})
			})
			return path
		}, ErrCorrupt},
		{"bad counter", func(t *testing.T) string {
			path := validDB(t, 10)
			boltUpdate(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket(bucketMeta).Put([]byte("n/done"), []byte{0xff})
			})
			return path
		}, ErrCorrupt},
		{"directory", func(t *testing.T) string { return t.TempDir() }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.make(t)
			for _, ro := range []bool{false, true} {
				f, err := Open(path, Options{ReadOnly: ro})
				if err == nil {
					f.Close()
					t.Fatalf("Open(ReadOnly=%v): no error", ro)
				}
				if tt.want != nil && !errors.Is(err, tt.want) {
					t.Fatalf("Open(ReadOnly=%v):\n\tgot %v\n\twant %v", ro, err, tt.want)
				}
				t.Logf("ReadOnly=%v: %v", ro, err)
			}
		})
	}
}

func TestCorruptQueueEntry(t *testing.T) {
	path := validDB(t, 3)
	boltUpdate(t, path, func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketQueue).Cursor()
		k, _ := c.First()
		return tx.Bucket(bucketQueue).Put(k, []byte("junk"))
	})
	f, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Next(context.Background()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Next on a corrupt entry: got %v, want ErrCorrupt", err)
	}
	if _, err := f.Add(context.Background(), Entry{URL: "http://x.test/"}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Add after a corrupt entry: got %v, want ErrCorrupt", err)
	}
}

// TestDamagedPages overwrites pages of a valid file with garbage: Open and a short
// crawl must return errors, never panic or fault.
func TestDamagedPages(t *testing.T) {
	opened, failed := 0, 0
	for _, path := range damagedCopies(t, validDB(t, 3000), 20, rand.New(rand.NewPCG(7, 7)), 0) {
		f, err := Open(path, Options{NoSync: true})
		if err != nil {
			continue
		}
		opened++
		ctx := context.Background()
		for range 50 {
			l, err := f.Next(ctx)
			if err == nil {
				err = f.Done(ctx, l, Outcome{Links: []Entry{{URL: l.URL + "/x"}}})
			}
			if err != nil {
				failed++
				break
			}
		}
		f.Stats()
		f.Close()
	}
	t.Logf("%d of 20 damaged files opened, %d of them failed later", opened, failed)
}

// damagedCopies writes n copies of the database at orig, each with 1 to 64 bytes of
// garbage in one page in use, from page first on: at the page's start (its header and
// first elements) or anywhere in it. It returns their paths, named damaged0.db and on.
func damagedCopies(t *testing.T, orig string, n int, rng *rand.Rand, first int) []string {
	t.Helper()
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	const pageSize = 4096
	pages := usedSize(t, orig) / pageSize // the file grows ahead of what is used
	dir := t.TempDir()
	paths := make([]string, n)
	for i := range paths {
		b := append([]byte(nil), data...)
		off := (first + rng.IntN(pages-first)) * pageSize
		if rng.IntN(2) == 0 {
			off += rng.IntN(pageSize - 64)
		}
		for j := range 1 + rng.IntN(64) {
			b[off+j] = byte(rng.Uint32())
		}
		paths[i] = filepath.Join(dir, fmt.Sprintf("damaged%d.db", i))
		if err := os.WriteFile(paths[i], b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// usedSize returns how many bytes of the database at path are in use (its high-water
// mark): the file grows ahead of it, and damage past it is no damage.
func usedSize(t *testing.T, path string) int {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var size int64
	db.View(func(tx *bolt.Tx) error { size = tx.Size(); return nil })
	return int(size)
}
