package storage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// bucketImports records, in the digest index, what ImportDedup took from each
// source file: its size and modification time when read, and how far the
// import got, so that a restart neither reads an unchanged source again nor
// starts a cut import from its beginning.
var bucketImports = []byte("imports")

// importBatch is how many source entries (CDXJ lines or index keys) one
// transaction of ImportDedup adds: what an import cut by a crash reads again.
// A variable so that tests can cut imports into small batches.
var importBatch = 10000

// maxDamageExamples bounds ImportStats.Examples.
const maxDamageExamples = 5

// Kinds of dedup source, in ImportStats.Kind.
const (
	SourceDigestIndex = "digest-index" // a digests.db of an earlier crawl
	SourceCDXJ        = "cdxj"         // a CDXJ index of WARC files
)

// ImportStats says what ImportDedup took from one source file.
type ImportStats struct {
	Path string // the source file, absolute
	Kind string // SourceDigestIndex or SourceCDXJ
	// Unchanged says the file was imported whole before and has the same size
	// and modification time: it was not read again.
	Unchanged bool
	// Resumed says an earlier import of the file was cut (a crash, a stop):
	// this one carried on from its last committed batch.
	Resumed bool
	// Digests counts the payload digests added to the index; digests the index
	// already held keep their first record and are not counted.
	Digests int64
	// Captures counts the captures added, or made newer; a CDXJ source has
	// none. They are kept apart from this crawl's own (Capture.Imported).
	Captures int64
	// Damaged counts the entries that could not be read and were skipped:
	// CDXJ lines, or digest-index values.
	Damaged int64
	// Examples holds up to 5 damaged entries: "line N: reason" (CDXJ) or
	// "bucket key: reason" (digest index).
	Examples []string
}

func (s *ImportStats) damaged(format string, args ...any) {
	s.Damaged++
	if len(s.Examples) < maxDamageExamples {
		s.Examples = append(s.Examples, fmt.Sprintf(format, args...))
	}
}

// DedupSources returns the files that path, an entry of a crawl's dedup_from,
// names: a CDXJ file (name ending in IndexSuffix) or a digest index file as it
// is; for a directory, the digest index of a crawl's data directory
// (DigestIndexName, or warc/DigestIndexName as older versions kept it) when
// there is one, otherwise its CDXJ files (DIR/warc/*.cdxj, DIR/*.cdxj and
// DIR/indexes/*.cdxj, as in an unpacked WACZ), sorted. Paths are absolute.
func DedupSources(path string) ([]string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("storage: dedup source %s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("storage: dedup source: %w", err)
	}
	if !fi.IsDir() {
		return []string{abs}, nil
	}
	for _, p := range []string{filepath.Join(abs, DigestIndexName), filepath.Join(abs, "warc", DigestIndexName)} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return []string{p}, nil
		}
	}
	var files []string
	for _, dir := range []string{filepath.Join(abs, "warc"), abs, filepath.Join(abs, "indexes")} {
		m, _ := filepath.Glob(filepath.Join(dir, "*"+IndexSuffix)) // the pattern is valid
		files = append(files, m...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("storage: dedup source %s: no %s and no CDXJ (*%s) files", abs, DigestIndexName, IndexSuffix)
	}
	sort.Strings(files)
	return files, nil
}

// ImportDedup adds to the writer's digest index what an earlier crawl
// archived, so that a payload it holds is written as a revisit pointing at
// its record, and LastCapture knows the pages it captured (Capture.Imported).
// src is a file DedupSources returned: a digest index (its
// payload digests, with record IDs, and its captures) or a CDXJ file (payload
// digests of its response records, without record IDs: a revisit referring to
// one has no WARC-Refers-To).
//
// The import streams: memory does not grow with the source. It commits every
// importBatch entries and records its progress, so a cut import resumes where
// it stopped, and a source imported whole and unchanged since (same size and
// modification time) is not read again. A digest the index already holds
// keeps its record; a capture is replaced only by a newer one. Damaged
// entries are counted in the stats and skipped.
//
// Call it before the first write; it is not meant to run beside writes.
func (w *WARCWriter) ImportDedup(ctx context.Context, src string) (ImportStats, error) {
	st := ImportStats{Path: src, Kind: SourceDigestIndex}
	if strings.HasSuffix(src, IndexSuffix) {
		st.Kind = SourceCDXJ
	}
	fi, err := os.Stat(src)
	if err != nil {
		return st, fmt.Errorf("storage: dedup source: %w", err)
	}
	if own, err := os.Stat(w.opts.DigestIndex); err == nil && os.SameFile(fi, own) {
		return st, fmt.Errorf("storage: dedup source %s: %w: it is this crawl's own digest index", src, ErrInvalid)
	}
	stamp := strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
	var progress string
	err = w.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketImports)
		if err != nil {
			return err
		}
		if v := b.Get([]byte(src)); v != nil {
			if s, p, ok := strings.Cut(string(v), "\n"); ok && s == stamp {
				progress = p
			}
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("storage: digest index: %w", err)
	}
	switch {
	case progress == "done":
		st.Unchanged = true
		return st, nil
	case progress != "":
		st.Resumed = true
	}
	if st.Kind == SourceCDXJ {
		err = w.importCDXJ(ctx, src, stamp, progress, &st)
	} else {
		err = w.importIndex(ctx, src, stamp, progress, &st)
	}
	return st, err
}

// putDigest adds digest d → ref to b unless b has it; it reports whether it
// added it.
func putDigest(b *bolt.Bucket, d string, ref digestRef) (bool, error) {
	if b.Get([]byte(d)) != nil {
		return false, nil
	}
	return true, b.Put([]byte(d), []byte(ref.ID+"\n"+ref.Date+"\n"+ref.URI))
}

// putCapture stores c as uri's capture unless b holds a capture of uri fetched
// at the same time or later; it reports whether it stored it.
func putCapture(b *bolt.Bucket, uri []byte, c Capture) (bool, error) {
	if v := b.Get(uri); v != nil {
		if old, ok := decodeCapture(v); ok && !old.Fetched.Before(c.Fetched) {
			return false, nil
		}
	}
	return true, b.Put(uri, encodeCapture(&c))
}

// saveProgress records how far the import of src got.
func saveProgress(tx *bolt.Tx, src, stamp, progress string) error {
	return tx.Bucket(bucketImports).Put([]byte(src), []byte(stamp+"\n"+progress))
}

// importIndex copies the digests and captures buckets of the digest index
// src. Progress is "digests KEY" or "captures KEY", the last key copied, in
// hex.
func (w *WARCWriter) importIndex(ctx context.Context, src, stamp, progress string, st *ImportStats) error {
	db, err := bolt.Open(src, 0, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return fmt.Errorf("storage: dedup source %s: locked (is a crawl running there?)", src)
		}
		return fmt.Errorf("storage: dedup source %s: %w", src, err)
	}
	defer db.Close()
	startBucket, startKey := string(bucketDigests), []byte(nil)
	if b, k, ok := strings.Cut(progress, " "); ok {
		key, err := hex.DecodeString(k)
		if err == nil && (b == string(bucketDigests) || b == string(bucketCaptures)) {
			startBucket, startKey = b, key
		} else {
			st.Resumed = false // unreadable progress: from the start, which is harmless
		}
	}
	return db.View(func(stx *bolt.Tx) error {
		buckets := [][]byte{bucketDigests, bucketCaptures}
		if startBucket == string(bucketCaptures) {
			buckets = buckets[1:]
		}
		for _, name := range buckets {
			sb := stx.Bucket(name)
			if sb == nil {
				continue
			}
			c := sb.Cursor()
			k, v := c.First()
			if startKey != nil {
				if k, v = c.Seek(startKey); k != nil && bytes.Equal(k, startKey) {
					k, v = c.Next()
				}
				startKey = nil
			}
			for k != nil {
				if err := ctx.Err(); err != nil {
					return err
				}
				err := w.db.Update(func(tx *bolt.Tx) error {
					db := tx.Bucket(bucketDigests)
					cb, err := tx.CreateBucketIfNotExists(bucketImportedCaptures)
					if err != nil {
						return err
					}
					var last []byte
					for n := 0; k != nil && n < importBatch; n++ {
						if err := w.importEntry(db, cb, name, k, v, st); err != nil {
							return err
						}
						last = k
						k, v = c.Next()
					}
					return saveProgress(tx, src, stamp, string(name)+" "+hex.EncodeToString(last))
				})
				if err != nil {
					return ioError("update", "digest index", err)
				}
			}
		}
		if err := w.db.Update(func(tx *bolt.Tx) error { return saveProgress(tx, src, stamp, "done") }); err != nil {
			return ioError("update", "digest index", err)
		}
		return nil
	})
}

// importEntry adds one key of bucket name of a source digest index.
func (w *WARCWriter) importEntry(db, cb *bolt.Bucket, name, k, v []byte, st *ImportStats) error {
	if bytes.Equal(name, bucketCaptures) {
		c, ok := decodeCapture(v)
		if !ok {
			st.damaged("captures %q: unreadable value", k)
			return nil
		}
		added, err := putCapture(cb, k, c)
		if added {
			st.Captures++
		}
		return err
	}
	parts := strings.SplitN(string(v), "\n", 3)
	if len(parts) != 3 || parts[1] == "" || parts[2] == "" || !strings.Contains(string(k), ":") {
		st.damaged("digests %q: unreadable value", k)
		return nil
	}
	added, err := putDigest(db, string(k), digestRef{ID: parts[0], Date: parts[1], URI: parts[2]})
	if added {
		st.Digests++
	}
	return err
}

// cdxjFields are the fields of a CDXJ line that ImportDedup reads.
type cdxjFields struct {
	URL    string `json:"url"`
	Mime   string `json:"mime"`
	Digest string `json:"digest"`
}

// parseCDXJLine reads the payload digest of a CDXJ line and the record it
// names. ok is false with a reason for a damaged line, and false with no
// reason for a line with nothing to import (a revisit, no digest).
func parseCDXJLine(line []byte) (digest string, ref digestRef, ok bool, reason string) {
	key, rest, _ := bytes.Cut(line, []byte(" "))
	ts, js, _ := bytes.Cut(rest, []byte(" "))
	if len(key) == 0 || len(js) == 0 || js[0] != '{' {
		return "", ref, false, "not a CDXJ line"
	}
	t, err := time.Parse("20060102150405", string(ts))
	if err != nil {
		return "", ref, false, "bad timestamp"
	}
	var f cdxjFields
	if err := json.Unmarshal(js, &f); err != nil {
		return "", ref, false, "bad JSON"
	}
	if f.URL == "" || len(f.URL) > maxURILength || strings.ContainsAny(f.URL, "\r\n") {
		return "", ref, false, "no url"
	}
	if f.Mime == "warc/revisit" || f.Digest == "" {
		return "", ref, false, "" // no payload of its own
	}
	if strings.ContainsAny(f.Digest, "\r\n ") {
		return "", ref, false, "bad digest"
	}
	digest = f.Digest
	if !strings.Contains(digest, ":") {
		digest = "sha1:" + digest // pywb, warcio and we write the base32 without its label
	}
	return digest, digestRef{Date: t.Format(warcSecondsLayout), URI: f.URL}, true, ""
}

// importCDXJ adds the payload digests of the CDXJ file src. Progress is the
// byte offset after the last line imported.
func (w *WARCWriter) importCDXJ(ctx context.Context, src, stamp, progress string, st *ImportStats) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("storage: dedup source: %w", err)
	}
	defer f.Close()
	var off int64
	if progress != "" {
		if off, err = strconv.ParseInt(progress, 10, 64); err != nil || off < 0 {
			off, st.Resumed = 0, false
		}
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return fmt.Errorf("storage: dedup source: %w", err)
		}
	}
	br := bufio.NewReaderSize(f, 64<<10)
	lineNo := 0 // counted from off: a resumed import numbers lines from there
	eof := false
	var readErr error
	for !eof && readErr == nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := w.db.Update(func(tx *bolt.Tx) error {
			db := tx.Bucket(bucketDigests)
			for n := 0; n < importBatch; n++ {
				line, size, err := readLimitedLine(br, 1<<20)
				if errors.Is(err, io.EOF) && size == 0 {
					eof = true
					break
				}
				if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, errLongLine) {
					readErr = err // what was read so far is kept
					break
				}
				lineNo++
				off += int64(size)
				if errors.Is(err, errLongLine) {
					st.damaged("line %d: longer than 1 MiB", lineNo)
					continue
				}
				if !bytes.HasSuffix(line, []byte("\n")) {
					// A last line without its newline: a file being written or cut.
					st.damaged("line %d: no newline at the end of the file", lineNo)
					eof = true
					break
				}
				d, ref, ok, reason := parseCDXJLine(bytes.TrimRight(line, "\r\n"))
				if !ok {
					if reason != "" {
						st.damaged("line %d: %s", lineNo, reason)
					}
					continue
				}
				added, err := putDigest(db, d, ref)
				if err != nil {
					return err
				}
				if added {
					st.Digests++
				}
			}
			state := strconv.FormatInt(off, 10)
			if eof {
				state = "done"
			}
			return saveProgress(tx, src, stamp, state)
		})
		if err != nil {
			return ioError("update", "digest index", err)
		}
	}
	if readErr != nil {
		return fmt.Errorf("storage: dedup source: %w", readErr)
	}
	return nil
}

// errLongLine is readLimitedLine's answer for a line longer than its limit.
var errLongLine = errors.New("storage: line too long")

// readLimitedLine returns the next line of br with its newline (none at the end of
// the input) and its size in bytes. A line longer than limit is consumed
// whole and returned cut to limit bytes, with errLongLine.
func readLimitedLine(br *bufio.Reader, limit int) (line []byte, size int, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		size += len(frag)
		if size <= limit {
			line = append(line, frag...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if size > limit {
			return line, size, errLongLine
		}
		return line, size, err
	}
}
