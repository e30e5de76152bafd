package storage

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// catchUpBatch is how many digests and captures one catch-up transaction writes.
const catchUpBatch = 4096

// catchUp brings the digest index up to the WARC files, once recover has cut the torn
// end of the newest: the index takes a page's digest and capture in batches
// (persistBatch), so a kill loses those of up to a batch of pages whose records are
// durable. It reads each WARC file of the crawl from the size the index records as
// written (all of it when none is recorded) and adds the payload digest of each
// response record (the first record of a payload stays its reference), the capture of
// each 2xx response or identical-payload revisit (the last one of a URI wins, with its
// validators), and the file's size. Without this, a payload archived just before a kill
// would be stored in full again, and the URI's next refetch would go out without its
// validators.
func (w *WARCWriter) catchUp() error {
	var written map[string]int64
	err := w.db.View(func(tx *bolt.Tx) error {
		written = make(map[string]int64)
		return tx.Bucket(bucketFiles).ForEach(func(k, v []byte) error {
			n, _ := strconv.ParseInt(string(v), 10, 64)
			written[string(k)] = n
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
	for _, e := range entries { // in name order, which is the order of writing
		if _, ok := parseName(w.opts.Prefix, e.Name()); !ok || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			return fmt.Errorf("storage: %w", err)
		}
		from := written[e.Name()]
		if from >= fi.Size() {
			continue
		}
		if err := w.catchUpFile(filepath.Join(w.opts.Dir, e.Name()), from); err != nil {
			return err
		}
	}
	return nil
}

// catchUpFile adds to the index what the WARC file at path holds from offset from on
// (see catchUp), and records the length of its whole records as written.
func (w *WARCWriter) catchUpFile(path string, from int64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("storage: catch up digest index: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return fmt.Errorf("storage: catch up digest index: %w", err)
	}
	c := &byteCounter{br: bufio.NewReaderSize(f, 64<<10), n: from}
	digests := map[string]digestRef{}
	captures := map[string]Capture{}
	end := from
	flush := func() error {
		err := w.db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketDigests)
			for d, ref := range digests {
				if b.Get([]byte(d)) != nil {
					continue // the first record of a payload stays the reference
				}
				if err := b.Put([]byte(d), []byte(ref.ID+"\n"+ref.Date+"\n"+ref.URI)); err != nil {
					return err
				}
			}
			cb := tx.Bucket(bucketCaptures)
			for u, capt := range captures {
				if err := cb.Put([]byte(u), encodeCapture(&capt)); err != nil {
					return err
				}
			}
			return tx.Bucket(bucketFiles).Put([]byte(filepath.Base(path)), strconv.AppendInt(nil, end, 10))
		})
		if err != nil {
			return fmt.Errorf("storage: catch up digest index: %w", err)
		}
		clear(digests)
		clear(captures)
		return nil
	}
	// The scan stops at the first record that is not whole: recover cut the newest
	// file's torn end, and an older file's damage is reported by checkOlder.
	_ = eachRecord(c, func(_ int64, br *bufio.Reader) error {
		r, ok := readCatchUpRecord(br)
		if !ok {
			return errNotWhole
		}
		end = c.n
		if r.digest != "" {
			if _, ok := digests[r.digest]; !ok {
				digests[r.digest] = digestRef{ID: r.id, Date: r.date, URI: r.uri}
			}
		}
		if r.capture != nil {
			captures[r.uri] = *r.capture
		}
		if len(digests)+len(captures) >= catchUpBatch {
			return flush()
		}
		return nil
	})
	return flush()
}

// catchUpRecord is what catchUp takes from one record.
type catchUpRecord struct {
	id, date, uri string
	digest        string   // a response's payload digest to register; "" for none
	capture       *Capture // a 2xx capture of uri; nil for none
}

// readCatchUpRecord reads one decompressed record to the end of its gzip member and
// returns what the index takes from it, as WriteExchange registers it; ok is false
// when the record is not whole.
func readCatchUpRecord(br *bufio.Reader) (r catchUpRecord, ok bool) {
	var typ, payload, profile, truncated, refID, refURI, refDate string
	length, err := readRecordHead(br, func(name, value string) {
		switch strings.ToLower(name) {
		case "warc-type":
			typ = value
		case "warc-record-id":
			r.id = value
		case "warc-date":
			r.date = value
		case "warc-target-uri":
			r.uri = value
		case "warc-payload-digest":
			payload = value
		case "warc-profile":
			profile = value
		case "warc-truncated":
			truncated = value
		case "warc-refers-to":
			refID = value
		case "warc-refers-to-target-uri":
			refURI = value
		case "warc-refers-to-date":
			refDate = value
		}
	})
	if err != nil {
		return r, false
	}
	var head []byte
	body := length // bytes of the block after the HTTP head
	if typ == "response" || typ == "revisit" {
		// The HTTP head: the block up to its blank line (br buffers maxRecordHead).
		peek, _ := br.Peek(int(min(length, maxHTTPHead, int64(br.Size()))))
		if i := bytes.Index(peek, []byte("\r\n\r\n")); i >= 0 {
			head = bytes.Clone(peek[:i+4])
			body -= int64(len(head))
		}
	}
	if n, err := br.Discard(int(min(length, 1<<40))); err != nil || int64(n) != length {
		return r, false
	}
	if readRecordEnd(br) != nil {
		return r, false
	}
	if head == nil || truncated != "" {
		return r, true
	}
	status, _ := httpStatusAndType(head)
	if typ == "response" && payload != "" && body > 0 {
		r.digest = payload
	}
	if status < 200 || status > 299 {
		return r, true
	}
	fetched, err := time.Parse(warcDateLayout, r.date)
	if err != nil {
		fetched, _ = time.Parse(time.RFC3339Nano, r.date)
	}
	capt := Capture{RecordID: r.id, Date: r.date, URI: r.uri, Fetched: fetched,
		ETag: headerValue(head, "ETag"), LastModified: headerValue(head, "Last-Modified")}
	if typ == "revisit" {
		if profile != revisitProfile {
			return r, true
		}
		capt.RecordID, capt.Date, capt.URI = refID, refDate, refURI
	}
	r.capture = &capt
	return r, true
}
