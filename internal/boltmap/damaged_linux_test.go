//go:build linux

package boltmap

import (
	"encoding/binary"
	"hash/fnv"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// setPgid writes pgid into both meta pages of the closed bbolt file at path, with their
// checksums: the damage of a file cut short after its meta pages were written.
func setPgid(t *testing.T, path string, pageSize int, pgid uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{16, pageSize + 16} { // each meta, after its page header
		m := b[at : at+64]
		binary.LittleEndian.PutUint64(m[40:], pgid) // magic version pageSize flags root(16) freelist, then pgid
		h := fnv.New64a()
		h.Write(m[:56])
		binary.LittleEndian.PutUint64(m[56:], h.Sum64())
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDropDamagedMeta opens a file whose meta pages count more pages than bbolt
// mapped, with memory of the process right after the mapping: a drop leaves that
// memory as it is (MADV_DONTNEED would zero it) and drops the mapping's pages.
func TestDropDamagedMeta(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the meta pages are written in little-endian order here")
	}
	path := filepath.Join(t.TempDir(), "b.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	pageSize := db.Info().PageSize
	if err := db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(bucket)
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), value(1))
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	const mapping = 1 << 20 // InitialMmapSize below: the file is smaller
	const beyond = 256 << 10
	setPgid(t, path, pageSize, uint64(mapping+beyond)/uint64(pageSize))

	// Memory of the process's own right after the mapping, where the damaged size
	// reaches: an anonymous area of the mapping's size and that, whose first part
	// is unmapped again for bbolt's mapping to take (the kernel gives the highest
	// free place that fits, and that one was).
	area, _, errno := syscall.Syscall6(syscall.SYS_MMAP, 0, mapping+beyond,
		syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS, ^uintptr(0), 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	guard := area + mapping
	defer syscall.Syscall(syscall.SYS_MUNMAP, guard, beyond, 0)
	if _, _, errno := syscall.Syscall(syscall.SYS_MUNMAP, area, mapping, 0); errno != 0 {
		t.Fatal(errno)
	}
	// guard's bits as a pointer: memory outside the Go heap, which the collector
	// leaves alone.
	mem := unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&guard))), beyond)
	for i := range mem {
		mem[i] = 0xa5
	}

	db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, InitialMmapSize: mapping})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	addr := db.Info().Data
	if n, err := mappedLen(addr); err != nil || n != mapping || tx.Size() != mapping+beyond {
		t.Fatalf("mapping of %d bytes (%v), transaction of %d; want %d, %d", n, err, tx.Size(), mapping, mapping+beyond)
	}
	if addr != area {
		t.Logf("bbolt mapped the file at %#x, not at %#x before the guard: checking only that the drop succeeds", addr, area)
	}
	if err := DropTx(tx); err != nil {
		t.Fatalf("DropTx over a damaged meta: %v", err)
	}
	for i, c := range mem {
		if c != 0xa5 {
			t.Fatalf("byte %d after the mapping is %#x after the drop; want 0xa5 (MADV_DONTNEED reached it)", i, c)
		}
	}
}
