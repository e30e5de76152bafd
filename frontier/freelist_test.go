package frontier

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestFreelistArray: the file's free list is held as bbolt's sorted array, which a
// commit writes out by merging in the pages it freed, rather than as the hash map,
// which sorted every free page again at each commit (a fifth of the committer's CPU
// at 10M URLs). A file whose free list a hash map wrote (every file written before)
// opens, reuses its free pages and checks clean.
func TestFreelistArray(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frontier.db")
	f, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.db.FreelistType; got != bolt.FreelistArrayType {
		t.Errorf("free list type %q, want %q", got, bolt.FreelistArrayType)
	}
	ctx := context.Background()
	for i := range 3 {
		es := make([]Entry, 2000)
		for j := range es {
			es[j] = Entry{URL: fmt.Sprintf("http://h%d.test/%d/%d", j%50, i, j)}
		}
		mustAdd(t, f, len(es), es...)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// Pages freed and a free list written by the hash map, as before.
	db, err := bolt.Open(path, 0o600, &bolt.Options{FreelistType: bolt.FreelistMapType})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("scratch"))
		if err != nil {
			return err
		}
		for i := range 5000 {
			if err := b.Put(fmt.Appendf(nil, "%08d", i), make([]byte, 100)); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("scratch")) })
	}
	st := db.Stats()
	free := st.FreePageN + st.PendingPageN // written as free
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if free == 0 {
		t.Fatal("no free pages to reuse")
	}
	f, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Open's own commits may have taken a few already.
	atOpen := f.db.Stats().FreePageN
	if atOpen < free/2 {
		t.Errorf("free pages at Open %d, want about %d", atOpen, free)
	}
	mustAdd(t, f, 1, Entry{URL: "http://new.test/"})
	if got := f.db.Stats().FreePageN; got >= atOpen {
		t.Errorf("free pages after a commit %d, want fewer than %d: none reused", got, atOpen)
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		l, err := f.Next(ctx)
		if err != nil {
			break
		}
		if err := f.Done(ctx, l, Outcome{}); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 6001 {
		t.Errorf("leased %d URLs, want 6001", n)
	}
}
