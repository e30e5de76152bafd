package frontier

import bolt "go.etcd.io/bbolt"

// checkMapped drops the file's mapped pages from the process once the process's
// file-backed resident size has grown by Options.ResidentMap since the last drop (see
// package boltmap). It runs at the end of Open, after commits (force unset: at most
// every 10 ms) and after Check. A failed drop turns dropping off and loses nothing:
// bbolt never writes through the mapping, and the page cache keeps the pages.
func (f *Frontier) checkMapped(db *bolt.DB, force bool) {
	_ = f.mapped.Check(db, force)
}
