package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/politecrawl/crawl/internal/boltmap"
)

// Errors callers branch on.
var (
	// ErrClosed is returned by writes to a closed writer.
	ErrClosed = errors.New("storage: closed")
	// ErrInvalid wraps the reason an Exchange, Metadata or Page was refused.
	ErrInvalid = errors.New("storage: invalid input")
)

// Defaults of WARCOptions.
const (
	DefaultPrefix      = "crawl"
	DefaultMaxFileSize = 1 << 30 // bytes
	DefaultSoftware    = "politecrawl"
	// DefaultGzipLevel is the fastest gzip level. It takes about half the CPU
	// time of klauspost/compress's default level (5) for files 6–12%
	// larger; WARC readers do not depend on the level. At this level a record
	// of at most 8 KiB is one deflate block of the fixed codes (a quarter of the
	// CPU, members 10–15% larger).
	DefaultGzipLevel = 1
	// DigestIndexName is the file name of the payload-digest index: in the WARC
	// directory by default, in the data directory beside it for a crawl.
	DigestIndexName = "digests.db"
)

// maxURILength bounds WARC-Target-URI and the other URI fields, in bytes, so a
// record header stays far below what readers accept.
const maxURILength = 16 << 10

// WARCOptions configure OpenWARC. The zero value of each field picks the
// default given beside it; Dir is required.
type WARCOptions struct {
	// Dir holds the WARC files, and the digest index unless DigestIndex puts it
	// elsewhere. It is created if missing.
	Dir string
	// DigestIndex is the path of the payload-digest index (a bbolt file), which
	// a running writer holds locked. Zero: Dir/DigestIndexName. A crawl keeps it
	// outside Dir, so that a glob of Dir matches WARC files only.
	DigestIndex string
	// Prefix starts every file name: <Prefix>-<UTC timestamp>-<serial>.warc.gz.
	// Letters, digits, '.', '_' and '-' only. Zero: "crawl".
	Prefix string
	// MaxFileSize is the size in bytes after which a new file is started; a
	// request/response pair is never split. Zero: 1 GiB.
	MaxFileSize int64
	// Software, Operator and Hostname go into the warcinfo record opening each
	// file. Zero: "politecrawl", none, os.Hostname().
	Software, Operator, Hostname string
	// GzipLevel is the gzip compression level of the records, from 1
	// (fastest) to 9 (smallest). Zero: DefaultGzipLevel.
	GzipLevel int
	// Config summarises the crawl configuration in the warcinfo record, one
	// field per entry, sorted by key (e.g. "user-agent", "max-depth"). A "robots"
	// entry replaces the default "robots: obey"; an entry named like another
	// field of the record (software, hostname, ...) is left out, so that no field
	// appears twice.
	Config map[string]string
	// WET keeps a WET file beside each WARC file (see WETName): a warcinfo
	// record, then the conversion record of each Exchange.Conversion, written and
	// synced with the WARC file's records.
	WET bool
	// Parquet, when not empty, is the directory of the Parquet index (a crawl's
	// data_dir/cc-index): beside each WARC file, once it is closed, the rows of its
	// response and revisit records in Common Crawl's flat cc-index schema, in
	// Parquet/crawl=<CrawlName>/subset=<warc|robotstxt|crawldiagnostics>/<NAME>.parquet.
	// warc_filename names the WARC file as <base name of Dir>/<NAME>, relative to
	// the directory holding Dir. MaxFileSize must then be below 2 GiB.
	Parquet string
	// CrawlName is the crawl partition of the Parquet index. Zero: Prefix.
	CrawlName string
	// KeepSecrets archives the values of Authorization, Cookie and Set-Cookie
	// fields as they were sent and received. By default each is replaced by
	// SecretMark, so that an archive handed to others leaks no credential or
	// session.
	KeepSecrets bool
	// NoSync skips every fsync: for tests and benchmarks only, as records
	// are then not durable when a write returns.
	NoSync bool
	// Now is the clock for file names and record dates not given by the
	// caller. Zero: time.Now.
	Now func() time.Time
}

// Exchange is one HTTP fetch to archive: a request record and a response (or
// revisit) record.
type Exchange struct {
	TargetURI string    // the URI fetched; required
	IP        string    // the server's IP address; empty: not recorded
	Date      time.Time // when the fetch started; zero: now
	// Request is the raw HTTP/1.1 request head as sent; required.
	Request []byte
	// ResponseHeader is the raw status line and header fields as received;
	// required.
	ResponseHeader []byte
	// Body is the entity body as received: content-encoding kept, chunked
	// transfer coding removed.
	Body []byte
	// Protocols, when not empty, are written as WARC-Protocol fields of the
	// request and response (or revisit) records, highest layer first: "h2",
	// "tls/1.3". An HTTP/2 exchange's Request and ResponseHeader are its
	// HTTP/1.1 form (the IIPC's "WARC Extensions for HTTP/2"), and these fields
	// say what it was on the wire.
	Protocols []string
	// Truncated says that Body was cut at the fetch's byte limit; the record
	// then carries WARC-Truncated: length and is never deduplicated.
	Truncated bool
	// Kind says what was fetched: "page" (also when empty), "robots",
	// "sitemap" or "requisite" (what a page needs to be shown). It is counted in
	// Stats.
	Kind string
	// Metadata, when not nil, is archived as a metadata record right after the
	// response (or revisit) record, in the same write and fsync, which costs
	// less than a WriteMetadata call. Its ConcurrentTo is not read: the record
	// points at the response or revisit record.
	Metadata *Metadata
	// Page, when not nil with Metadata, is the page's pages.jsonl line, carried in
	// the metadata record (field pages-line) so that a start after a crash rebuilds
	// a line lost with pages.jsonl's unsynced tail (see PagesWriter.Rebuild); a
	// Group then need not sync pages.jsonl before the page's wait ends. The line is
	// carried without warc_file and warc_offset, which the record's place in the WARC
	// gives back. Finish, if set, is called first, to complete Page from the
	// records' Location; after the write Page's WARCFile, WARCOffset and WARCLength
	// are set. Page must not change after that: its line must be the one carried.
	Page *Page
	// Finish, when not nil, is called with the records' Location (all but File and
	// Offset, unknown until the write) before the metadata record is built; its
	// error ends the call, nothing written.
	Finish func(loc *Location) error
	// Text, when not empty, is the page's main text, archived as a
	// conversion record after the other records, in the same write (see
	// appendConversion).
	Text string
	// TextLanguages are the languages detected in Text, the main one first, as
	// ISO 639-3 codes ("deu"): the conversion record's
	// WARC-Identified-Content-Language, comma-separated as Common Crawl writes it;
	// none: no field.
	TextLanguages []string
	// Conversion, when not nil and the writer keeps WET files (WARCOptions.WET),
	// is archived as a conversion record in the WET file of the WARC file that
	// holds the response (or revisit) record it refers to, in the same commit.
	Conversion *Conversion
}

// Location says where WriteExchange put the response (or revisit) record.
type Location struct {
	File     string // base name of the WARC file
	Offset   int64  // of the record's gzip member in File, in bytes
	Length   int64  // of that gzip member, in bytes
	RecordID string // WARC-Record-ID, "<urn:uuid:...>"
	Revisit  bool   // a revisit record: the payload was archived before
	// NotModified says the revisit answers a 304 Not Modified (profile
	// server-not-modified): it refers to the URI's last capture.
	NotModified bool
	// RefersTo, for a revisit, is the WARC-Record-ID of the record it refers to.
	RefersTo      string
	PayloadDigest string // "sha1:" + base32 of the body; empty when NotModified
}

// Stats counts what a WARCWriter wrote since it was opened.
type Stats struct {
	Files       int    // WARC files started
	Requests    int64  // request records
	Responses   int64  // response records
	Revisits    int64  // revisit records
	NotModified int64  // of Revisits, those of 304 Not Modified answers
	Metadata    int64  // metadata records
	Conversions int64  // conversion records (Exchange.Text)
	WETRecords  int64  // conversion records in WET files (Exchange.Conversion)
	Robots      int64  // exchanges of Kind "robots"
	Sitemaps    int64  // exchanges of Kind "sitemap"
	Requisites  int64  // exchanges of Kind "requisite"
	Bytes       int64  // compressed bytes written, warcinfo records included
	Syncs       uint64 // fsyncs of group commit
	// Waits counts the writes that waited for the WARC's group commit
	// (WriteExchange, WriteMetadata).
	Waits uint64
}

// WARCWriter writes WARC 1.1 files. It is safe for concurrent use by multiple
// goroutines.
type WARCWriter struct {
	opts WARCOptions
	db   *bolt.DB
	fl   flusher
	rec  *Recovery
	cdx  *cdxjWriter   // the CDXJ index of each file (cdxj_writer.go)
	pq   *parquetIndex // the Parquet index of each file, when kept (parquet.go)

	// repairs lists what OpenWARC cut or removed, damaged the files of
	// earlier runs it found damaged and left alone (recover.go).
	repairs []Recovery
	damaged []FileCheck
	// openFile, when set, replaces os.OpenFile: tests inject write failures.
	openFile func(name string, flag int, perm os.FileMode) (*os.File, error)

	// mapped drops the digest index's mapped pages from the process once they grow
	// by 64 MiB (package boltmap, checked every 10 ms): lookups read a random page
	// per payload, and each would stay mapped.
	mapped *boltmap.Limit

	mu      sync.Mutex // guards the fields below and the order of bytes in files
	f       *os.File
	name    string
	size    int64    // bytes in f
	wet     *os.File // f's WET file, when opts.WET
	wetSize int64    // bytes in wet
	records int      // records in f after its warcinfo
	serial  int      // serial of the newest file
	seq     uint64
	closed  bool
	err     error // sticky write error
	stats   Stats
	writes  sync.WaitGroup // commits in flight; Close waits for them
	// onRotate, when set (by NewGroup), is called once a new file is started; it
	// must not block.
	onRotate func()

	dmu     sync.Mutex
	pending map[string]pendingDigest // written, not yet in the index
	// claims holds the digests a write found in neither pending nor the index and
	// is archiving as a response: a write of the same payload waits for it (see
	// claim), so that two fetches of one payload at once store it once.
	claims   map[string]chan struct{}
	captures map[string]pendingCapture // by URI, written, not yet in the index
	durable  map[string]int64          // file → durable size, not yet in the index
	// waiting holds, in increasing order, the write of each record that put a
	// digest or a capture into pending or captures since they were last taken
	// into the index: persist counts the durable ones by a binary search.
	waiting    []uint64
	persisting bool
}

type digestRef struct{ ID, Date, URI string }

type pendingDigest struct {
	ref digestRef
	seq uint64
}

var (
	bucketDigests = []byte("digests")
	bucketFiles   = []byte("files")
)

// OpenWARC opens the WARC directory opts.Dir, creating it if needed, and its
// payload-digest index. If the newest WARC file of an earlier run ends in a
// torn record (a crash), it is cut after its last whole record (see Recovery);
// a new file is started on the first write.
func OpenWARC(opts WARCOptions) (*WARCWriter, error) {
	if opts.Dir == "" {
		return nil, fmt.Errorf("storage: %w: WARCOptions.Dir is empty", ErrInvalid)
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if strings.ContainsFunc(opts.Prefix, func(r rune) bool {
		return !(r == '.' || r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}) {
		return nil, fmt.Errorf("storage: %w: WARC prefix %q", ErrInvalid, opts.Prefix)
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.Parquet != "" && opts.MaxFileSize > maxParquetFileSize {
		return nil, fmt.Errorf("storage: %w: WARC files of %d bytes with a Parquet index, whose offsets are 32 bits", ErrInvalid, opts.MaxFileSize)
	}
	if opts.CrawlName == "" {
		opts.CrawlName = opts.Prefix
	}
	if opts.Software == "" {
		opts.Software = DefaultSoftware
	}
	switch {
	case opts.GzipLevel == 0:
		opts.GzipLevel = DefaultGzipLevel
	case opts.GzipLevel < 1 || opts.GzipLevel > 9:
		return nil, fmt.Errorf("storage: %w: gzip level %d, want 1 to 9", ErrInvalid, opts.GzipLevel)
	}
	if opts.Hostname == "" {
		opts.Hostname, _ = os.Hostname()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	if opts.DigestIndex == "" {
		opts.DigestIndex = filepath.Join(opts.Dir, DigestIndexName)
	}
	db, err := bolt.Open(opts.DigestIndex, 0o644,
		&bolt.Options{Timeout: time.Second, NoSync: opts.NoSync})
	if err != nil {
		return nil, fmt.Errorf("storage: digest index: %w", err)
	}
	w := &WARCWriter{
		opts:     opts,
		db:       db,
		pending:  make(map[string]pendingDigest),
		claims:   make(map[string]chan struct{}),
		captures: make(map[string]pendingCapture),
		durable:  make(map[string]int64),
		cdx:      newCDXJWriter(opts.Dir, opts.NoSync),
		pq:       newParquetIndex(&opts),
		mapped:   boltmap.NewLimit(0),
	}
	if err := w.recover(); err != nil {
		w.mapped.Close()
		db.Close()
		return nil, err
	}
	if err := w.catchUp(); err != nil {
		w.mapped.Close()
		db.Close()
		return nil, err
	}
	if err := rebuildOpenIndexes(opts.Dir); err != nil {
		w.mapped.Close()
		db.Close()
		return nil, err
	}
	if err := w.rebuildMissingParquet(); err != nil {
		w.mapped.Close()
		db.Close()
		return nil, err
	}
	w.mapped.Watch(db, nil)
	return w, nil
}

// recover finds the newest file and cuts its torn tail.
func (w *WARCWriter) recover() error {
	var durable = map[string]int64{}
	err := w.db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketDigests); err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(bucketCaptures); err != nil {
			return err
		}
		b, err := tx.CreateBucketIfNotExists(bucketFiles)
		if err != nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			n, _ := strconv.ParseInt(string(v), 10, 64)
			durable[string(k)] = n
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("storage: digest index: %w", err)
	}
	entries, err := os.ReadDir(w.opts.Dir)
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	newest := ""
	for _, e := range entries {
		if serial, ok := parseName(w.opts.Prefix, e.Name()); ok && serial >= w.serial {
			w.serial, newest = serial, e.Name()
		}
	}
	if err := w.removeTemps(entries); err != nil {
		return err
	}
	if err := w.removeOrphanWETs(entries); err != nil {
		return err
	}
	if err := w.checkOlder(entries, newest, durable); err != nil {
		return err
	}
	if newest == "" {
		return nil
	}
	from, ok := durable[newest]
	if !ok {
		from = 0
	}
	rec, err := repairFile(filepath.Join(w.opts.Dir, newest), from, w.opts.NoSync)
	if err != nil {
		return err
	}
	if rec.Cut > 0 || rec.Removed {
		w.rec = &rec
		w.repairs = append(w.repairs, rec)
	}
	wrec, err := repairWET(w.opts.Dir, newest, from, durable[WETName(newest)], w.opts.NoSync)
	if err != nil {
		return err
	}
	if rec.Removed {
		if err := os.Remove(filepath.Join(w.opts.Dir, wrec.File)); err == nil {
			wrec.Removed, wrec.Cut, wrec.Kept = true, wrec.Cut+wrec.Kept, 0
		}
	}
	if wrec.Cut > 0 || wrec.Removed {
		w.repairs = append(w.repairs, wrec)
	}
	if n, ok := durable[newest]; ok && (rec.Removed || n > rec.Kept) {
		// The file lost records the index had recorded as written (cut by hand, or
		// by a disk that lied): the repair has reported the loss, and the size the
		// index keeps becomes what is left, so that Verify does not report the same
		// loss forever on a file that now ends on a whole record.
		if err := w.setWritten(newest, rec.Kept, rec.Removed); err != nil {
			return err
		}
	}
	if n, ok := durable[wrec.File]; ok && (wrec.Removed || n > wrec.Kept) {
		if err := w.setWritten(wrec.File, wrec.Kept, wrec.Removed); err != nil {
			return err
		}
	}
	return nil
}

// setWritten records size as the written size of the WARC file name in the digest
// index, or forgets the file when it was removed.
func (w *WARCWriter) setWritten(name string, size int64, removed bool) error {
	err := w.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketFiles)
		if removed {
			return b.Delete([]byte(name))
		}
		return b.Put([]byte(name), strconv.AppendInt(nil, size, 10))
	})
	if err != nil {
		return fmt.Errorf("storage: digest index: %w", err)
	}
	return nil
}

// Recovery reports what OpenWARC cut from the newest file of an earlier run;
// ok is false when that file was whole or there was none.
func (w *WARCWriter) Recovery() (r Recovery, ok bool) {
	if w.rec == nil {
		return Recovery{}, false
	}
	return *w.rec, true
}

// fileName returns the name of WARC file number serial started at t.
func fileName(prefix string, t time.Time, serial int) string {
	return fmt.Sprintf("%s-%s-%05d.warc.gz", prefix, t.UTC().Format("20060102150405"), serial)
}

// parseName returns the serial of a WARC file named by fileName.
func parseName(prefix, name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix+"-")
	if !ok {
		return 0, false
	}
	rest, ok = strings.CutSuffix(rest, ".warc.gz")
	if !ok {
		return 0, false
	}
	ts, serial, ok := strings.Cut(rest, "-")
	if !ok || len(ts) != 14 || strings.Trim(ts, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(serial)
	if err != nil || n < 0 || strings.Trim(serial, "0123456789") != "" {
		return 0, false
	}
	return n, true
}

// Stats returns what the writer wrote so far.
func (w *WARCWriter) Stats() Stats {
	w.mu.Lock()
	s := w.stats
	w.mu.Unlock()
	fs := w.fl.stats()
	s.Syncs, s.Waits = fs.Syncs, fs.Waits
	return s
}

func (ex *Exchange) validate() error {
	if err := validURI("target URI", ex.TargetURI); err != nil {
		return err
	}
	if ex.IP != "" {
		if _, err := netip.ParseAddr(ex.IP); err != nil {
			return fmt.Errorf("storage: %w: IP address %q", ErrInvalid, ex.IP)
		}
	}
	switch ex.Kind {
	case "", "page", "robots", "sitemap", "tdmrep", "requisite":
	default:
		return fmt.Errorf("storage: %w: exchange kind %q", ErrInvalid, ex.Kind)
	}
	for _, p := range ex.Protocols {
		if p == "" || strings.ContainsAny(p, " \t\r\n") {
			return fmt.Errorf("storage: %w: protocol %q", ErrInvalid, p)
		}
	}
	if ex.Metadata != nil {
		return ex.Metadata.validate()
	}
	return nil
}

// validURI checks a URI that goes into a WARC header field.
func validURI(what, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("storage: %w: empty %s", ErrInvalid, what)
	case len(s) > maxURILength:
		return fmt.Errorf("storage: %w: %s longer than %d bytes", ErrInvalid, what, maxURILength)
	case strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("storage: %w: %s %q holds white space or control characters", ErrInvalid, what, s)
	}
	return nil
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// WriteExchange archives one fetch: a request record, then a response record,
// or a revisit record when a non-empty, untruncated body with the same payload
// digest was archived before by this crawl (in this run or an earlier one)
// (profile identical-payload-digest), or when the response is a 304 Not
// Modified to a URI whose last 2xx capture is known (profile
// server-not-modified, referring to that capture; see LastCapture), then the
// metadata record of ex.Metadata, if any.
// It returns once the records are durable on disk, or with an error; after
// an error the records may or may not be on disk, never torn in a way a later
// OpenWARC does not repair. It is safe for concurrent use.
func (w *WARCWriter) WriteExchange(ctx context.Context, ex *Exchange) (Location, error) {
	return w.writeExchange(ctx, ex, true)
}

// Append writes ex as WriteExchange does but returns once the records are written,
// before they are durable: a Group's Write, or Queue and then Sync, that follows
// it makes them durable with the page's pages.jsonl line, in one wait. Until then
// a crash may lose them.
func (w *WARCWriter) Append(ctx context.Context, ex *Exchange) (Location, error) {
	return w.writeExchange(ctx, ex, false)
}

// writeExchange is WriteExchange, returning once the records are durable if wait
// is set, once they are written if not.
func (w *WARCWriter) writeExchange(ctx context.Context, ex *Exchange, wait bool) (Location, error) {
	if err := ctx.Err(); err != nil {
		return Location{}, err
	}
	if err := ex.validate(); err != nil {
		return Location{}, err
	}
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return Location{}, ErrClosed
	}
	reqHead, _, ok := httpHead(ex.Request, false)
	if !ok {
		return Location{}, fmt.Errorf("storage: %w: %s: empty request", ErrInvalid, ex.TargetURI)
	}
	respHead, dechunked, ok := httpHead(ex.ResponseHeader, true)
	if !ok {
		return Location{}, fmt.Errorf("storage: %w: %s: empty response header", ErrInvalid, ex.TargetURI)
	}
	if !w.opts.KeepSecrets {
		reqHead, respHead = maskSecrets(reqHead), maskSecrets(respHead)
	}
	date := ex.Date
	if date.IsZero() {
		date = w.opts.Now()
	}
	loc := Location{RecordID: newRecordID(), PayloadDigest: payloadDigest(ex.Body)}
	dedup := len(ex.Body) > 0 && !ex.Truncated
	var ref digestRef
	status, _ := httpStatusAndType(respHead)
	if status == 304 {
		// A 304 answers a conditional GET: it refers to the URI's last capture,
		// if the index knows it; otherwise it is archived as the response it is.
		last, ok, err := w.LastCapture(ex.TargetURI)
		if err != nil {
			return Location{}, err
		}
		if ok {
			ref = digestRef{ID: last.RecordID, Date: last.Date, URI: last.URI}
			loc.Revisit, loc.NotModified = true, true
			loc.RefersTo = ref.ID
			loc.PayloadDigest = "" // no payload: the record carries no digest of one
		}
		dedup = false
	}
	release := func() {}
	if dedup {
		var err error
		if ref, loc.Revisit, release, err = w.claim(ctx, loc.PayloadDigest); err != nil {
			return Location{}, err
		}
		defer release() // on the ways out before the commit
	}
	d := warcDate(date)
	reqID := newRecordID()

	buf := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(buf)
	buf.Reset()

	fields := make([]field, 0, 14)
	fields = append(fields,
		field{"WARC-Type", "request"},
		field{"WARC-Record-ID", reqID},
		field{"WARC-Date", d},
		field{"WARC-Target-URI", ex.TargetURI},
		field{"WARC-Concurrent-To", loc.RecordID})
	if ex.IP != "" {
		fields = append(fields, field{"WARC-IP-Address", ex.IP})
	}
	for _, p := range ex.Protocols {
		fields = append(fields, field{"WARC-Protocol", p})
	}
	fields = append(fields,
		field{"WARC-Block-Digest", blockDigest(reqHead)},
		field{"Content-Type", "application/http;msgtype=request"})
	head := appendHead(make([]byte, 0, 1024), fields, len(reqHead))
	reqLen, err := appendMember(buf, w.opts.GzipLevel, head, reqHead)
	if err != nil {
		return Location{}, fmt.Errorf("storage: compress: %w", err)
	}

	fields = fields[:0]
	block := [][]byte{respHead, ex.Body}
	if loc.Revisit {
		block = block[:1]
		fields = append(fields,
			field{"WARC-Type", "revisit"},
			field{"WARC-Record-ID", loc.RecordID},
			field{"WARC-Date", d},
			field{"WARC-Target-URI", ex.TargetURI})
	} else {
		fields = append(fields,
			field{"WARC-Type", "response"},
			field{"WARC-Record-ID", loc.RecordID},
			field{"WARC-Date", d},
			field{"WARC-Target-URI", ex.TargetURI})
	}
	if ex.IP != "" {
		fields = append(fields, field{"WARC-IP-Address", ex.IP})
	}
	for _, p := range ex.Protocols {
		fields = append(fields, field{"WARC-Protocol", p})
	}
	if loc.Revisit {
		loc.RefersTo = ref.ID
		profile := revisitProfile
		if loc.NotModified {
			profile = revisitNotModified
		}
		fields = append(fields, field{"WARC-Profile", profile})
		if ref.ID != "" {
			// Empty for a record known from a CDXJ index only (ImportDedup).
			fields = append(fields, field{"WARC-Refers-To", ref.ID})
		}
		fields = append(fields,
			field{"WARC-Refers-To-Target-URI", ref.URI},
			field{"WARC-Refers-To-Date", ref.Date})
	}
	fields = append(fields, field{"WARC-Block-Digest", blockDigest(block...)})
	if !loc.NotModified {
		// A 304 has no payload: the one it stands for is the earlier capture's.
		fields = append(fields, field{"WARC-Payload-Digest", loc.PayloadDigest})
	}
	ix := newIndexLine(ex.TargetURI, d, respHead, ex.Body, &loc)
	if w.pq != nil {
		ix.cc = w.ccCapture(ex, d, respHead, ix.detected, &loc)
	}
	if ix.detected != "" {
		fields = append(fields, field{"WARC-Identified-Payload-Type", ix.detected})
	}
	if ex.Truncated {
		fields = append(fields, field{"WARC-Truncated", "length"})
	}
	if dechunked {
		fields = append(fields, field{"WARC-Politecrawl-Dechunked", "yes"})
	}
	fields = append(fields, field{"Content-Type", "application/http;msgtype=response"})
	n := 0
	for _, b := range block {
		n += len(b)
	}
	head = appendHead(head[:0], fields, n)
	respLen, err := appendMember(buf, w.opts.GzipLevel, head, block...)
	if err != nil {
		return Location{}, fmt.Errorf("storage: compress: %w", err)
	}
	loc.Length = respLen
	if ex.Finish != nil {
		if err := ex.Finish(&loc); err != nil {
			return Location{}, err
		}
	}
	var carried []byte
	if ex.Metadata != nil && ex.Page != nil {
		pg := *ex.Page
		pg.WARCFile, pg.WARCOffset, pg.WARCLength = "", 0, respLen
		line, err := pg.MarshalJSON()
		if err != nil {
			return Location{}, fmt.Errorf("storage: %w: page %s: %v", ErrInvalid, pg.URL, err)
		}
		carried = line
	}
	if ex.Metadata != nil {
		if _, err := ex.Metadata.appendRecord(buf, w.opts.GzipLevel, loc.RecordID, carried, func() time.Time { return date }); err != nil {
			return Location{}, fmt.Errorf("storage: compress: %w", err)
		}
	}
	if ex.Text != "" {
		if err := appendConversion(buf, w.opts.GzipLevel, ex.TargetURI, d, loc.RecordID, ex.Text, ex.TextLanguages); err != nil {
			return Location{}, fmt.Errorf("storage: compress: %w", err)
		}
	}
	var wet []byte
	if w.opts.WET && ex.Conversion != nil {
		wbuf := buffers.Get().(*bytes.Buffer)
		defer buffers.Put(wbuf)
		wbuf.Reset()
		if err := appendWETRecord(wbuf, w.opts.GzipLevel, ex.TargetURI, d, loc.RecordID, ex.Conversion); err != nil {
			return Location{}, fmt.Errorf("storage: compress: %w", err)
		}
		wet = wbuf.Bytes()
	}

	var reg *pendingDigest
	if dedup && !loc.Revisit {
		reg = &pendingDigest{ref: digestRef{ID: loc.RecordID, Date: d, URI: ex.TargetURI}}
	}
	var capt *pendingCapture
	if status >= 200 && status < 300 && !ex.Truncated {
		// The capture a later 304 refers to holds the payload: this record, or
		// the one its identical-payload-digest revisit refers to.
		c := Capture{RecordID: loc.RecordID, Date: d, URI: ex.TargetURI, Fetched: date,
			ETag: headerValue(respHead, "ETag"), LastModified: headerValue(respHead, "Last-Modified")}
		if loc.Revisit {
			c.RecordID, c.Date, c.URI = ref.ID, ref.Date, ref.URI
		}
		capt = &pendingCapture{uri: ex.TargetURI, c: c}
	}
	ix.finish(reqLen, respLen)
	file, off, err := w.commit(ctx, buf.Bytes(), wet, wait, loc.PayloadDigest, reg, capt, ix, func(s *Stats) {
		s.Requests++
		if loc.NotModified {
			s.NotModified++
		}
		if loc.Revisit {
			s.Revisits++
		} else {
			s.Responses++
		}
		switch ex.Kind {
		case "robots":
			s.Robots++
		case "sitemap":
			s.Sitemaps++
		case "requisite":
			s.Requisites++
		}
		if ex.Metadata != nil {
			s.Metadata++
		}
		if ex.Text != "" {
			s.Conversions++
		}
		if wet != nil {
			s.WETRecords++
		}
	})
	release() // the digest is in pending now, or the write failed
	if err != nil {
		return Location{}, err
	}
	loc.File, loc.Offset, loc.Length = file, off+reqLen, respLen
	if carried != nil {
		ex.Page.WARCFile, ex.Page.WARCOffset, ex.Page.WARCLength = loc.File, loc.Offset, loc.Length
		ex.Page.carried = true
	}
	return loc, nil
}

// commit appends data (whole gzip members) to the current file, and wet to its
// WET file, starting a new one first if data would take it past MaxFileSize,
// registers reg under digest once written, and, if wait is set, waits until data
// is durable. It returns the file and the offset data starts at.
func (w *WARCWriter) commit(ctx context.Context, data, wet []byte, wait bool, digest string, reg *pendingDigest, capt *pendingCapture, ix *indexLine, count func(*Stats)) (string, int64, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return "", 0, ErrClosed
	}
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return "", 0, err
	}
	w.writes.Add(1)
	defer w.writes.Done()
	if w.f == nil || w.records > 0 && w.size+int64(len(data)) > w.opts.MaxFileSize {
		if err := w.rotate(); err != nil {
			w.err = err
			w.mu.Unlock()
			return "", 0, err
		}
	}
	name, off := w.name, w.size
	if _, err := w.f.Write(data); err != nil {
		// The file may now end in a torn record: refuse further writes;
		// OpenWARC repairs the file.
		w.err = ioError("write", name, err)
		w.fl.fail(w.err)
		w.mu.Unlock()
		return "", 0, w.err
	}
	w.size += int64(len(data))
	w.records++
	if wet != nil && w.wet != nil {
		if _, err := w.wet.Write(wet); err != nil {
			w.err = ioError("write", WETName(name), err)
			w.fl.fail(w.err)
			w.mu.Unlock()
			return "", 0, w.err
		}
		w.wetSize += int64(len(wet))
	}
	if ix != nil {
		w.cdx.add(name, w.size, ix.line(name, off))
		if ix.cc != nil {
			w.pq.add(name, off+ix.rel, ix.entry.length, ix.cc)
		}
	}
	w.seq++
	seq := w.seq
	w.stats.Bytes += int64(len(data))
	count(&w.stats)
	if reg != nil || capt != nil {
		w.dmu.Lock()
		w.waiting = append(w.waiting, seq)
		if reg != nil {
			reg.seq = seq
			if _, dup := w.pending[digest]; !dup {
				w.pending[digest] = *reg
			}
		}
		if capt != nil {
			capt.seq = seq
			w.captures[capt.uri] = *capt
		}
		w.dmu.Unlock()
	}
	if w.opts.NoSync {
		w.fl.advance(seq)
		w.markDurable(w.syncPointLocked())
	}
	w.mu.Unlock()

	if wait && !w.opts.NoSync {
		err := w.fl.wait(ctx, seq, w.syncPoint, w.markDurable)
		if err != nil {
			return "", 0, err
		}
	}
	if err := w.persist(persistBatch); err != nil {
		return "", 0, err
	}
	return name, off, nil
}

// syncWritten makes every record written so far durable, sharing a round with
// the WARC's own group commit: for the leader of a Group's round, whose writes
// were made by Append. Its wait is not counted in Stats.Waits.
func (w *WARCWriter) syncWritten() error { return w.syncThrough(w.written()) }

// written returns the number of the last record written so far, for syncThrough.
func (w *WARCWriter) written() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seq
}

// syncThrough makes the records up to write seq durable, as syncWritten does, at
// once if they are already.
func (w *WARCWriter) syncThrough(seq uint64) error {
	if w.opts.NoSync {
		return nil
	}
	return w.fl.await(context.Background(), seq, w.syncPoint, w.markDurable)
}

// syncPoint tells the group-commit leader what to sync.
func (w *WARCWriter) syncPoint() syncPoint {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncPointLocked()
}

// syncPointLocked is syncPoint with w.mu held.
func (w *WARCWriter) syncPointLocked() syncPoint {
	sp := syncPoint{seq: w.seq, f: w.f, name: w.name, size: w.size}
	if w.wet != nil {
		sp.f = both{warc: w.f, wet: w.wet}
		sp.wetSize = w.wetSize
	}
	return sp
}

// markDurable notes that sp's files are durable up to its sizes. The sizes of a
// WARC file and its WET file go into the index together (recover needs them
// consistent).
func (w *WARCWriter) markDurable(sp syncPoint) {
	w.dmu.Lock()
	if sp.size > w.durable[sp.name] {
		w.durable[sp.name] = sp.size
	}
	if sp.wetSize > 0 {
		if wn := WETName(sp.name); sp.wetSize > w.durable[wn] {
			w.durable[wn] = sp.wetSize
		}
	}
	w.dmu.Unlock()
	w.cdx.durable(sp.name, sp.size)
}

// rotate closes the current file, synced, and starts the next with its
// warcinfo record. The warcinfo record is written under a temporary name
// that is renamed once it is whole, so a failed start (a full disk) leaves
// no empty or partial WARC file behind. w.mu is held.
func (w *WARCWriter) rotate() error {
	if err := w.closeFile(); err != nil {
		return err
	}
	now := w.opts.Now()
	w.serial++
	name := fileName(w.opts.Prefix, now, w.serial)
	var wet *os.File
	var wetSize int64
	if w.opts.WET {
		// The WET file first: a crash before its WARC file starts leaves an
		// orphan, which the next OpenWARC removes.
		var err error
		wn := WETName(name)
		if wet, wetSize, err = w.startFile(wn, w.wetInfo(wn, name, now)); err != nil {
			return err
		}
	}
	f, size, err := w.startFile(name, w.warcinfo(name, now))
	if err != nil {
		if wet != nil {
			wet.Close()
			os.Remove(filepath.Join(w.opts.Dir, WETName(name)))
		}
		return err
	}
	w.f, w.name, w.size, w.records = f, name, size, 0
	w.wet, w.wetSize = wet, wetSize
	w.stats.Files++
	w.stats.Bytes += size
	if w.onRotate != nil {
		w.onRotate()
	}
	return nil
}

// closeFile syncs and closes the current file, if any. w.mu is held.
func (w *WARCWriter) closeFile() error {
	if w.f == nil {
		return nil
	}
	sp := w.syncPointLocked()
	if !w.opts.NoSync {
		if err := sp.f.Sync(); err != nil {
			w.fl.fail(fmt.Errorf("storage: sync %s: %w", w.name, err))
			return fmt.Errorf("storage: sync %s: %w", w.name, err)
		}
	}
	err := w.f.Close()
	if w.wet != nil {
		if werr := w.wet.Close(); werr != nil && err == nil {
			err = werr
		}
	}
	w.fl.advance(w.seq)
	w.markDurable(sp)
	w.cdx.finish(w.name, w.size) // an error is kept and returned by Close
	if w.pq != nil {
		w.pq.finish(w.name) // likewise
	}
	w.f, w.wet = nil, nil
	if err != nil {
		return fmt.Errorf("storage: close %s: %w", w.name, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("storage: sync %s: %w", dir, err)
	}
	return nil
}

// warcinfo returns the gzip member of the warcinfo record opening file name.
func (w *WARCWriter) warcinfo(name string, now time.Time) []byte {
	var block bytes.Buffer
	written := map[string]bool{}
	add := func(k, v string) {
		if written[k] {
			return // a field appears once: the fixed fields win over Config's
		}
		written[k] = true
		block.WriteString(k)
		block.WriteString(": ")
		block.WriteString(cleanValue(v))
		block.WriteString("\r\n")
	}
	add("software", w.opts.Software)
	add("format", "WARC File Format 1.1")
	add("conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/")
	if w.opts.Hostname != "" {
		add("hostname", w.opts.Hostname)
	}
	if w.opts.Operator != "" {
		add("operator", w.opts.Operator)
	}
	if _, ok := w.opts.Config["robots"]; !ok {
		add("robots", "obey")
	}
	keys := make([]string, 0, len(w.opts.Config))
	for k := range w.opts.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		add(fieldName(k), w.opts.Config[k])
	}
	head := appendHead(nil, []field{
		{"WARC-Type", "warcinfo"},
		{"WARC-Record-ID", newRecordID()},
		{"WARC-Date", warcDate(now)},
		{"WARC-Filename", name},
		{"WARC-Block-Digest", blockDigest(block.Bytes())},
		{"Content-Type", "application/warc-fields"},
	}, block.Len())
	var out bytes.Buffer
	appendMember(&out, w.opts.GzipLevel, head, block.Bytes()) // writes to memory: cannot fail
	return out.Bytes()
}

// fieldName makes k a valid field name: characters other than letters,
// digits, '-', '_' and '.' become '-'.
func fieldName(k string) string {
	if k == "" {
		return "-"
	}
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return r
		}
		return '-'
	}, k)
}

// claim finds the record that archived payload digest d first, as lookup does. When
// there is none, the caller is to archive it: claim returns release, which the
// caller calls once the record is in pending (or its write failed), and until then
// another claim of d waits, then finds the caller's record. release may be called
// more than once.
func (w *WARCWriter) claim(ctx context.Context, d string) (ref digestRef, found bool, release func(), err error) {
	for {
		w.dmu.Lock()
		if p, ok := w.pending[d]; ok {
			w.dmu.Unlock()
			return p.ref, true, func() {}, nil
		}
		c, busy := w.claims[d]
		if !busy {
			c = make(chan struct{})
			w.claims[d] = c
		}
		w.dmu.Unlock()
		if busy {
			select {
			case <-c:
				continue
			case <-ctx.Done():
				return digestRef{}, false, nil, ctx.Err()
			}
		}
		var once sync.Once
		release = func() {
			once.Do(func() {
				w.dmu.Lock()
				delete(w.claims, d)
				w.dmu.Unlock()
				close(c)
			})
		}
		ref, found, err = w.lookup(d)
		if err != nil || found {
			release()
			return ref, found, func() {}, err
		}
		return digestRef{}, false, release, nil
	}
}

// lookup finds the record that archived payload digest d first.
func (w *WARCWriter) lookup(d string) (digestRef, bool, error) {
	w.dmu.Lock()
	p, ok := w.pending[d]
	w.dmu.Unlock()
	if ok {
		return p.ref, true, nil
	}
	var ref digestRef
	err := w.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketDigests).Get([]byte(d))
		if v == nil {
			return nil
		}
		parts := strings.SplitN(string(v), "\n", 3)
		if len(parts) == 3 {
			ref, ok = digestRef{ID: parts[0], Date: parts[1], URI: parts[2]}, true
		}
		return nil
	})
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return digestRef{}, false, ErrClosed // Close ran meanwhile
	}
	if err != nil {
		return digestRef{}, false, fmt.Errorf("storage: digest index: %w", err)
	}
	return ref, ok, nil
}

// persistBatch is how many pages' durable digests and captures wait in memory
// before a write moves them into the index. A crash loses them from the index
// only: the next OpenWARC reads them back from the WARC files (catchUp). A write rewrites the index pages its keys fall
// on (in a large index about one a key) and commits: 1,024 makes a quarter of the
// commits 256 would (BENCHMARKS.md).
const persistBatch = 1024

// persist moves durable digests and file sizes into the index in one
// transaction when the records of at least min pages are durable and waiting.
// It returns at once when another goroutine is persisting; what it leaves is
// taken by a later call.
func (w *WARCWriter) persist(min int) error {
	synced := w.fl.durableSeq()
	w.dmu.Lock()
	// A page adds a digest and a capture: count pages, not both. Every write comes
	// here, most with a batch that is not due: count without copying, in O(log n).
	due := sort.Search(len(w.waiting), func(i int) bool { return w.waiting[i] > synced })
	if w.persisting || due < min || due == 0 && len(w.durable) == 0 {
		w.dmu.Unlock()
		return nil
	}
	var through uint64 // every digest and capture up to this write is taken
	if due > 0 {
		through = w.waiting[due-1]
	}
	digests := make(map[string]pendingDigest, due)
	for d, p := range w.pending {
		if p.seq <= through {
			digests[d] = p
		}
	}
	captures := make(map[string]pendingCapture, due)
	for u, p := range w.captures {
		if p.seq <= through {
			captures[u] = p
		}
	}
	w.persisting = true
	files := w.durable
	w.durable = make(map[string]int64)
	w.dmu.Unlock()

	err := w.db.Update(func(tx *bolt.Tx) error {
		// Keys in order: bbolt's cursor walks the pages left to right, each once.
		b := tx.Bucket(bucketDigests)
		for _, d := range slices.Sorted(maps.Keys(digests)) {
			if b.Get([]byte(d)) != nil {
				continue // the first record of a payload stays the reference
			}
			p := digests[d]
			v := p.ref.ID + "\n" + p.ref.Date + "\n" + p.ref.URI
			if err := b.Put([]byte(d), []byte(v)); err != nil {
				return err
			}
		}
		cb := tx.Bucket(bucketCaptures)
		for _, u := range slices.Sorted(maps.Keys(captures)) {
			p := captures[u]
			if err := cb.Put([]byte(u), encodeCapture(&p.c)); err != nil {
				return err
			}
		}
		fb := tx.Bucket(bucketFiles)
		for name, size := range files {
			if err := fb.Put([]byte(name), strconv.AppendInt(nil, size, 10)); err != nil {
				return err
			}
		}
		return nil
	})

	w.dmu.Lock()
	w.persisting = false
	if err == nil {
		for d, p := range digests {
			if q, ok := w.pending[d]; ok && q.seq == p.seq {
				delete(w.pending, d)
			}
		}
		for u, p := range captures {
			if q, ok := w.captures[u]; ok && q.seq == p.seq {
				delete(w.captures, u)
			}
		}
		// The writes up to through are in the index; those after it stay counted.
		n := sort.Search(len(w.waiting), func(i int) bool { return w.waiting[i] > through })
		w.waiting = append(w.waiting[:0], w.waiting[n:]...)
	} else {
		for name, size := range files {
			if size > w.durable[name] {
				w.durable[name] = size
			}
		}
	}
	w.dmu.Unlock()
	if err != nil {
		return ioError("update", "digest index", err)
	}
	return nil
}

// Close waits for writes in flight, syncs and closes the current file and
// the digest index. Writes after Close return ErrClosed; Close again returns
// nil.
func (w *WARCWriter) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	w.writes.Wait()

	w.mu.Lock()
	err := w.closeFile()
	w.mu.Unlock()
	if perr := w.persist(0); perr != nil && err == nil {
		err = perr
	}
	w.mapped.Close()
	if cerr := w.db.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("storage: digest index: %w", cerr)
	}
	if cerr := w.cdx.close(); cerr != nil && err == nil {
		err = cerr
	}
	if w.pq != nil {
		if perr := w.pq.close(); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}
