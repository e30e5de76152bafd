package frontier

import bolt "go.etcd.io/bbolt"

// checkMapped drops the file's mapped pages from the process if the process's
// file-backed resident size has grown by Options.ResidentMap since the last drop (see
// package boltmap). Besides the watcher that a writable Open starts, which checks
// every 10 ms, it runs at the end of Open and in Check, which read many pages at once. A failed drop
// turns dropping off and loses nothing: bbolt never writes through the mapping, and
// the page cache keeps the pages.
func (f *Frontier) checkMapped(db *bolt.DB) {
	_ = f.mapped.Check(db)
}
