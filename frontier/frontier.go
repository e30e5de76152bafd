package frontier

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/politecrawl/crawl/internal/boltmap"
)

// Sentinel errors. Callers branch on them with errors.Is.
var (
	// ErrDone is returned by Next when nothing is queued or leased any more (parked
	// hosts aside): the crawl is over.
	ErrDone = errors.New("frontier: done")
	// ErrClosed is returned by every method called after Close.
	ErrClosed = errors.New("frontier: closed")
	// ErrReadOnly is returned by methods that write when Options.ReadOnly is set.
	ErrReadOnly = errors.New("frontier: read-only")
	// ErrLocked is returned by Open when another process holds the database.
	ErrLocked = errors.New("frontier: database is in use by another process")
	// ErrNotFrontier is returned by Open for a valid bbolt file that this package did
	// not write.
	ErrNotFrontier = errors.New("frontier: not a frontier database")
	// ErrCorrupt is returned by Open, and by later calls, when the file is damaged.
	ErrCorrupt = errors.New("frontier: corrupt database")
	// ErrLease is returned by Done for a nil lease, a lease of another Frontier or one
	// already done.
	ErrLease = errors.New("frontier: unknown or finished lease")
	// ErrUnknownHost is returned by SetHostReady for a host that has never had a URL.
	ErrUnknownHost = errors.New("frontier: unknown host")
)

// Options configures a Frontier. The zero value is a durable frontier with one lease
// per host, three attempts per URL and no limits.
type Options struct {
	// MaxInFlightPerHost is how many URLs of one host may be leased at once; 0 means 1.
	MaxInFlightPerHost int
	// MaxQueuedPerHost refuses new URLs of a host that already has this many queued
	// (leased ones included); 0 means unlimited.
	MaxQueuedPerHost int
	// MaxDepth refuses entries deeper than this; 0 means unlimited.
	MaxDepth int
	// MaxTotal refuses new URLs once this many have been accepted over the whole
	// crawl, across runs; 0 means unlimited. Refused URLs are lost (not marked seen,
	// but not queued either); MaxDone bounds a crawl without losing any.
	MaxTotal int
	// MaxDone stops leasing once this many URLs have finished (Stats.Done, over the
	// whole crawl, across runs): Next leases a URL only while Done plus the leases
	// outstanding is below it, so no more than MaxDone finish, and returns ErrDone
	// once it is reached with no lease outstanding. Failed and Skipped outcomes do not
	// count, and the URLs not leased stay queued: a later Open with a larger MaxDone
	// goes on. 0 means unlimited.
	MaxDone int
	// Uncounted holds Kind bits: an entry whose Kind has any of them set (a page
	// requisite, say) is not counted by MaxDone or MaxQueuedPerHost. Such a lease
	// finishes without using MaxDone's budget and is leased past it: once MaxDone
	// counted URLs are done, a host whose head is a counted URL is set aside for the
	// rest of the run (its URLs stay queued), until an uncounted URL is queued on it.
	// Such an entry is queued whatever MaxQueuedPerHost says. 0: every entry counts.
	Uncounted uint8
	// MaxAttempts is how many times a URL is tried before a Retry outcome becomes
	// Failed; 0 means 3.
	MaxAttempts int
	// LinkBatch, if positive, makes Done stage the links it is given rather than
	// queue them, and commits fold them into the seen set and the queues, sorted by
	// seen key, once this many are staged (see The batched path in the package
	// documentation). Staged links are durable, but they are not leased, counted as
	// added or duplicates, or held to limits until they are folded (see Stats.Staged
	// and Flush); Next folds them early rather than wait for a host or end the
	// crawl. 0 or less queues each Done's links in its own transaction. Staging is
	// off by default: at 1M URLs over 100k hosts it made cycles 1.4-1.6 times faster
	// and wrote 0.72 of the bytes. A fold holds 32 bytes per link it takes in (see
	// FoldLinks); the staged links themselves stay on disk.
	LinkBatch int
	// FoldLinks is the most staged links a fold sorts in memory at once, 32 bytes
	// each (its seen key and where it lies in the log), held until its links are
	// queued. A fold takes in up to LinkBatch links or FoldLinks, whichever is more
	// (whole log records: the record that reaches it is the fold's last); beyond
	// FoldLinks, it sorts them FoldLinks at a time into temporary files in the
	// database's directory (32 bytes per link, unlinked at once where the system
	// allows, else removed at the fold's end or by the next Open) and merges those
	// as it queues the links. A fold writes fewer bytes per link the more links it
	// takes, since it rewrites about one queue page per host it touches however many
	// links that host gets. With LinkBatch 0 or less, it is
	// also how many entries given to Stage start a fold. 0 or less means a fold
	// takes in up to 1,048,576 links (or LinkBatch, if more) and sorts 262,144 of
	// them (8 MiB) at a time.
	FoldLinks int
	// LogBatch is how many queue changes of Done outcomes (a URL finished, failed,
	// skipped, retried or given back for later) are kept in the Done log before a
	// fold writes them, sorted, into the queues and host records (see The Done log
	// in the package documentation); each takes 64 to 90 bytes of memory until
	// then (measured: 40,000 finished URLs over 10,000 hosts held 2.6 MB; a host
	// with one takes 90), 3 to 5 MB at the default. 0 means 50,000.
	LogBatch int
	// ResidentMap bounds, in bytes, the pages of the file the process keeps mapped.
	// bbolt reads the file through a read-only shared mapping, and each page read
	// stays in the process's resident set (RssFile), with the pages around it,
	// although the page cache holds them anyway: every 10 ms while the Frontier is
	// open for writing, at the end of Open and Check, and while a fold reads, once
	// the process's file-backed resident size has grown by more than ResidentMap
	// since the last drop, the Frontier drops the mapping's pages from the process
	// (the page cache keeps them; the next read of one maps it again). Other mapped
	// files count in that growth too, which only makes drops come sooner. Dropping
	// costs time: at 1M URLs, 64 MiB ran 0.75 of the Next/Done cycles of never
	// dropping (BENCHMARKS.md). Linux only; elsewhere the pages are left to the
	// system. 0 means DefaultResidentMap; negative means never drop.
	ResidentMap int64
	// SyncDone, if set, makes what the caller keeps beside the frontier durable
	// before the Frontier marks leases done: the committer calls it with the number
	// of Done outcomes a transaction carries (at least 1), and commits that
	// transaction only once it has returned nil. It runs in a goroutine of its own
	// while the transaction is written (bbolt syncs frontier.db after it: measured,
	// syncing both files at once made each sync slower). An error fails the commit as
	// a failed write does: the Dones return it and the Frontier stops. A transaction
	// that fails otherwise still waits for the SyncDone it started before its Dones
	// return, so that none runs once they have. Transactions without a Done (Add,
	// Stage, SetHostReady, a fold step) do not call it. It must be safe for
	// concurrent use and must not call the Frontier. nil means none.
	SyncDone func(dones int) error
	// NoSync skips fsync at commit: faster, but a machine crash (not a process crash)
	// may lose the last commits.
	NoSync bool
	// ReadOnly opens the file for inspection (crawl status): Add, Next, Done and the
	// other writers return ErrReadOnly. Open fails with ErrLocked if a crawl holds it.
	ReadOnly bool
	// LockTimeout is how long Open waits for another process to release the file;
	// 0 means 1 s, or 100 ms with ReadOnly.
	LockTimeout time.Duration
	// Now is the clock; nil means time.Now. Ready and retry times compare with it.
	Now func() time.Time
}

// Bucket names and meta keys of the file format.
var (
	bucketMeta   = []byte("meta")
	bucketHosts  = []byte("hosts")
	bucketQueue  = []byte("queue3") // format 2 had "queue", with no due time in its keys
	bucketSeen   = []byte("seen")
	bucketLeases = []byte("leases")
	bucketRobots = []byte("robots")
	allBuckets   = [][]byte{bucketMeta, bucketHosts, bucketQueue, bucketSeen, bucketLeases, bucketRobots}

	keyFormat    = []byte("format")
	keySeq       = []byte("seq")
	keyHostID    = []byte("hostid")
	formatValue  = []byte("politecrawl-frontier 6") // 6: log records folded and not yet deleted (keyFolded)
	format5      = []byte("politecrawl-frontier 5") // 5: the seen set in runs
	format4      = []byte("politecrawl-frontier 4") // 4: the Done log, host records with a stamp
	format3      = []byte("politecrawl-frontier 3") // 3: queue keys carry a due time
	format2      = []byte("politecrawl-frontier 2") // 2: seen keys carry a host prefix
	bucketQueue2 = []byte("queue")
	counterPfx   = []byte("n/")
)

// mmapSize is the address space the file is mapped with at first (on 64-bit
// platforms; 32-bit ones have too little to spare), and allocSize the step by which
// the file grows, in bytes.
const (
	mmapSize  = (1 << 30) * (strconv.IntSize / 64)
	allocSize = 4 << 20
)

// Frontier is a persistent crawl frontier. It is safe for simultaneous use by multiple
// goroutines.
type Frontier struct {
	db          *bolt.DB
	opts        Options
	now         func() time.Time
	maxInFlight int
	maxAttempts int
	linkBatch   int // <= 0: no staging
	logBatch    int

	mu        sync.Mutex
	hosts     map[string]*host
	heap      hostHeap
	leased    int
	leasedUnc int           // of leased, the leases of Uncounted entries
	wake      chan struct{} // closed and replaced whenever readiness may have changed
	closed    bool
	err       error            // fatal: a failed commit
	counters  map[string]int64 // committed counters, see counter names in stats.go
	parked    map[string]string
	recovered int
	roLeases  int  // lease records found by a read-only Open
	folding   bool // a Next is folding the staged links in

	// Owned by the committer goroutine; written under mu.
	fold        *foldState         // the fold in progress, nil if none
	foldPending bool               // the file records a fold in progress that fold does not hold yet
	dirty       map[*host]struct{} // hosts whose record is newer than the stored one
	pendN       int                // queue changes logged and not folded in, all hosts
	logLen      int                // records in the log (the staged bucket), folded ones not yet deleted included
	folded      uint64             // the log records up to this key are folded in and not all deleted yet (keyFolded); 0: none
	hot         bool               // a host has hostPendMax changes pending

	// Owned by the committer goroutine; written under mu.
	seq    uint64
	hostID uint64
	seen   seenState // the directory of the seen set (seenset.go)
	txid   int       // the bbolt transaction whose state the fields above hold (Check)

	sendMu  sync.RWMutex // held for reading while sending to ops; Close holds it to close ops
	sending bool         // ops is open
	ops     chan *op
	stopped chan struct{}

	mapped *boltmap.Limit // drops the file's mapped pages (Options.ResidentMap)

	// ahead takes the ids of hosts whose heads to read ahead (readahead.go); nil
	// when read-only.
	ahead   chan uint64
	aheadWG sync.WaitGroup
}

// DefaultResidentMap is Options.ResidentMap's default, in bytes: at 10M URLs over
// 100,000 hosts, with folds of 512 nodes a commit, it holds the peak RSS at 227-231
// MiB with 11.2 page faults a Next/Done cycle (BENCHMARKS.md, "Figures moved out of
// the code's comments").
const DefaultResidentMap = 64 << 20

// Open opens or creates the frontier database at path. Leases left by a process that
// died are returned to their queues. A garbage, truncated or foreign file gives an
// error wrapping ErrCorrupt or ErrNotFrontier; a file held by a running crawl gives
// ErrLocked after Options.LockTimeout.
func Open(path string, opts Options) (f *Frontier, err error) {
	// bbolt trusts the file: a damaged one can make it panic or fault on a page
	// access. Turn both into an error for this goroutine.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var db *bolt.DB
	// The resident size before the file is mapped: Open's own reads count.
	if opts.ResidentMap == 0 {
		opts.ResidentMap = DefaultResidentMap
	}
	mapped := boltmap.NewLimit(opts.ResidentMap)
	defer func() {
		if f == nil {
			mapped.Close()
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			if db != nil {
				db.Close()
			}
			f, err = nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, r)
		}
	}()
	timeout := opts.LockTimeout
	if timeout <= 0 {
		timeout = time.Second
		if opts.ReadOnly {
			timeout = 100 * time.Millisecond
		}
	}
	db, err = bolt.Open(path, 0o600, &bolt.Options{
		Timeout:  timeout,
		ReadOnly: opts.ReadOnly,
		NoSync:   opts.NoSync,
		// The free list as one sorted array, not bbolt's hash map: every commit
		// writes the whole list, sorted, and the map sorted all its free pages
		// again for that (at 10M URLs, a fifth of the committer's CPU), where the
		// array, always sorted, merges in the pages the commit freed. Allocating a
		// page takes the lowest free one, at once; a run of pages (the free list's
		// own, a few a commit) is a walk along the array. The file is the same.
		FreelistType: bolt.FreelistArrayType,
		// Map a gigabyte of address space from the start (not memory: only the pages
		// read count), so that a growing file is not remapped at every doubling: each
		// remap copies every node the transaction has changed, and waits for readers.
		// The file then grows by allocSize at a time (set below).
		InitialMmapSize: mmapSize,
	})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("%w: %s", ErrLocked, path)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch):
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	case err != nil:
		return nil, fmt.Errorf("frontier: open %s: %w", path, err)
	}
	db.AllocSize = allocSize
	f = &Frontier{
		db:          db,
		opts:        opts,
		now:         opts.Now,
		maxInFlight: max(opts.MaxInFlightPerHost, 1),
		maxAttempts: opts.MaxAttempts,
		hosts:       make(map[string]*host),
		wake:        make(chan struct{}),
		counters:    make(map[string]int64),
		parked:      make(map[string]string),
		dirty:       make(map[*host]struct{}),
		mapped:      mapped,
	}
	if f.now == nil {
		f.now = time.Now
	}
	if f.maxAttempts <= 0 {
		f.maxAttempts = 3
	}
	f.linkBatch = max(opts.LinkBatch, 0)
	f.logBatch = opts.LogBatch
	if f.logBatch <= 0 {
		f.logBatch = defaultLogBatch
	}
	if !opts.ReadOnly {
		removeFoldFiles(filepath.Dir(path)) // left by a fold cut short
	}
	if err := f.load(path); err != nil {
		db.Close()
		return nil, err
	}
	for _, h := range f.hosts {
		f.fix(h)
	}
	// The pages load read (every host record, the log), in either mode; then, for
	// writing, every 10 ms until Close, beside whatever runs. (Not read-only: there
	// bbolt loads its free list lazily, in Check, unguarded against a transaction
	// beginning beside it; Check drops the pages at its end.)
	f.checkMapped()
	if !opts.ReadOnly {
		f.mapped.Watch(db, nil)
		f.ops = make(chan *op, 1024)
		f.sending = true
		f.stopped = make(chan struct{})
		go f.commitLoop()
		f.startReadAhead()
	}
	return f, nil
}

// load checks the file format and reads hosts and counters; in write mode it creates
// the buckets of a new file and drops the leases of a dead process.
func (f *Frontier) load(path string) error {
	fn := func(tx *bolt.Tx) error {
		f.txid = tx.ID()
		if fi, err := os.Stat(path); err == nil && fi.Size() < tx.Size() {
			return fmt.Errorf("%w: %s: file is %d bytes, database needs %d (truncated?)",
				ErrCorrupt, path, fi.Size(), tx.Size())
		}
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			var names []string
			if err := tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
				names = append(names, fmt.Sprintf("%q", name))
				return nil
			}); err != nil {
				return err
			}
			if len(names) > 0 {
				return fmt.Errorf("%w: %s: has buckets %s", ErrNotFrontier, path, strings.Join(names, ", "))
			}
			if !tx.Writable() {
				return fmt.Errorf("%w: %s: empty database", ErrNotFrontier, path)
			}
			for _, name := range allBuckets {
				if _, err := tx.CreateBucket(name); err != nil {
					return err
				}
			}
			for _, name := range [][]byte{bucketStaged, bucketSeen0, bucketSeenRuns} {
				if _, err := tx.CreateBucket(name); err != nil {
					return err
				}
			}
			f.seen = seenState{nextID: 1}
			return tx.Bucket(bucketMeta).Put(keyFormat, formatValue)
		}
		buckets := allBuckets
		switch v := meta.Get(keyFormat); {
		case bytes.Equal(v, formatValue):
		case bytes.Equal(v, format3), bytes.Equal(v, format4), bytes.Equal(v, format5):
			// Format 6 reads formats 3 to 5 as they are (their seen bucket becomes
			// the oldest level of the seen set, read and never written again; they
			// have no log records folded and left to delete); the marker keeps
			// older builds from reading what this one writes (log records, stamped
			// host records, seen runs, and log records that a fold took in and that
			// only the mark "folded" says not to fold again).
			if tx.Writable() {
				if err := meta.Put(keyFormat, formatValue); err != nil {
					return err
				}
			}
		case bytes.Equal(v, format2) && !tx.Writable():
			// A read-only Open reads host records only, which format 2 has too.
			buckets = slices.Concat(allBuckets[:2], [][]byte{bucketQueue2}, allBuckets[3:])
		default:
			return fmt.Errorf("%w: %s: format %q, want %q", ErrNotFrontier, path, v, formatValue)
		}
		if meta.Get(keySeenSet) != nil {
			// The directory of the seen set names runs and counts level 0's keys.
			buckets = slices.Concat(buckets, [][]byte{bucketSeen0, bucketSeenRuns})
		}
		for _, name := range buckets {
			if tx.Bucket(name) == nil {
				return fmt.Errorf("%w: %s: bucket %q missing", ErrCorrupt, path, name)
			}
		}
		// Files written before staging have no staged bucket, before format 5 no
		// level 0 or runs of the seen set; they get them.
		if tx.Writable() {
			for _, name := range [][]byte{bucketStaged, bucketSeen0, bucketSeenRuns} {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
		}
		if err := f.loadMeta(meta); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
		}
		ids := make(map[uint64]*host)
		err := tx.Bucket(bucketHosts).ForEach(func(k, v []byte) error {
			rec, err := decodeHost(v)
			if err != nil || ids[rec.id] != nil || rec.id > f.hostID {
				return fmt.Errorf("%w: %s: host record %q", ErrCorrupt, path, k)
			}
			h := &host{name: string(k), rec: rec, index: -1}
			ids[rec.id] = h
			f.hosts[h.name] = h
			return nil
		})
		if err != nil {
			return err
		}
		// The Done outcomes logged and not folded in yet.
		if err := f.replay(tx, ids); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
		}
		leases := tx.Bucket(bucketLeases)
		n := leases.Stats().KeyN
		if !tx.Writable() {
			f.roLeases = n
			return nil
		}
		f.recovered = n
		// The leased entries never left the queue: forgetting the leases requeues them.
		if n > 0 {
			if err := tx.DeleteBucket(bucketLeases); err != nil {
				return err
			}
			_, err = tx.CreateBucket(bucketLeases)
		}
		return err
	}
	if f.opts.ReadOnly {
		return f.view(fn)
	}
	if err := f.upgrade(path); err != nil {
		return err
	}
	return f.update(fn)
}

func (f *Frontier) loadMeta(meta *bolt.Bucket) error {
	f.seq = getUint(meta, keySeq)
	f.hostID = getUint(meta, keyHostID)
	f.foldPending = meta.Get(keyFold) != nil
	if v := meta.Get(keyFolded); v != nil {
		if len(v) != 8 {
			return fmt.Errorf("folded mark %x", v)
		}
		f.folded = binary.BigEndian.Uint64(v)
	}
	var err error
	if f.seen, err = decodeSeenState(meta.Get(keySeenSet)); err != nil {
		return fmt.Errorf("seen set directory %x", meta.Get(keySeenSet))
	}
	c := meta.Cursor()
	for k, v := c.Seek(counterPfx); bytes.HasPrefix(k, counterPfx); k, v = c.Next() {
		n, w := binary.Uvarint(v)
		if w != len(v) || w == 0 {
			return fmt.Errorf("counter %q", k)
		}
		f.counters[string(k[len(counterPfx):])] = int64(n)
	}
	return nil
}

func getUint(b *bolt.Bucket, k []byte) uint64 {
	v := b.Get(k)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// Close waits for pending writes, stops the committer and closes the file. Leases
// still outstanding are returned to their queues at the next Open. Close is safe to
// call more than once; calls after the first return nil.
func (f *Frontier) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	f.broadcast()
	f.mu.Unlock()
	if f.ops != nil {
		f.sendMu.Lock()
		f.sending = false
		close(f.ops)
		f.sendMu.Unlock()
		<-f.stopped
	}
	f.stopReadAhead()
	f.mapped.Close()
	if f.fold != nil {
		f.fold.close() // its files; the fold goes on at the next Open
	}
	if err := f.db.Close(); err != nil {
		return &opError{op: "close", err: err}
	}
	return nil
}

// opError is an error met during op. Its message names the package once, however the
// error it wraps was made: an error from elsewhere (bbolt, the disk, SyncDone) gets
// the package's name, "frontier: commit: storage: sync ...", and one the package made
// already carries it, "commit: frontier: corrupt database: ...".
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string {
	if ours(e.err) {
		return e.op + ": " + e.err.Error()
	}
	return "frontier: " + e.op + ": " + e.err.Error()
}

// ours reports whether err was made by this package, and so names it already.
func ours(err error) bool {
	var op *opError
	if errors.As(err, &op) {
		return true
	}
	for _, s := range []error{ErrDone, ErrClosed, ErrReadOnly, ErrLocked, ErrNotFrontier, ErrCorrupt, ErrLease, ErrUnknownHost, errCorrupt, errRollback, errStale} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

func (e *opError) Unwrap() error { return e.err }

// guard turns a panic or a memory fault inside bbolt, which trusts the file, into an
// error wrapping ErrCorrupt. Use it as: defer guard(&err).
func guard(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %v", ErrCorrupt, r)
	}
}

// view is db.View with guard.
func (f *Frontier) view(fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer guard(&err)
	return f.db.View(fn)
}

// update is db.Update with guard.
func (f *Frontier) update(fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer guard(&err)
	return f.db.Update(fn)
}

// broadcast wakes every goroutine waiting in Next. f.mu must be held.
func (f *Frontier) broadcast() {
	close(f.wake)
	f.wake = make(chan struct{})
}

// fix puts h in the ready heap, moves it, or takes it out, after its counts, leases,
// ready time or parking changed. f.mu must be held.
func (f *Frontier) fix(h *host) {
	want := !h.parked && !h.capped && h.available() > 0 && len(h.leaseList()) < f.maxInFlight
	h.at = h.eligible()
	switch {
	case want && h.index < 0:
		heap.Push(&f.heap, h)
	case want:
		heap.Fix(&f.heap, int(h.index))
	case h.index >= 0:
		heap.Remove(&f.heap, int(h.index))
	}
}
