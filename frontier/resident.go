package frontier

// checkMapped drops the file's mapped pages from the process if the process's
// file-backed resident size has grown by Options.ResidentMap since the last drop (see
// package boltmap). Besides the watcher that a writable Open starts, which checks
// every 10 ms, it runs where many pages are read at once: at the end of Open, in
// Check, after each commit, between the groups of links a fold or a large Add
// queues, and every 64 records of the log a fold indexes (a commit may drop too:
// only the committer can remap the file, and it is the one dropping). A failed drop
// turns dropping off and loses nothing: bbolt never writes through the mapping, and
// the page cache keeps the pages.
func (f *Frontier) checkMapped() {
	_ = f.mapped.Check(f.db)
}

// SetResidentMap sets Options.ResidentMap from now on and returns its value before
// (0 means DefaultResidentMap). It changes nothing on a Frontier that never drops its
// mapped pages (a negative ResidentMap, a system other than Linux, a failed drop),
// and returns a negative value then; a negative n changes nothing. It is safe for
// simultaneous use with every other method.
func (f *Frontier) SetResidentMap(n int64) int64 { return f.mapped.SetBudget(n) }
