package storage

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// revisitNotModified is the WARC-Profile of a revisit record for a 304 Not
// Modified answer to a conditional GET.
const revisitNotModified = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"

// bucketCaptures holds, in the digest index, the last full capture of each
// URI: what a refetch sends in a conditional GET and what a 304 revisit
// refers to.
var bucketCaptures = []byte("captures")

// bucketImportedCaptures holds the captures ImportDedup took from earlier
// crawls, apart from this crawl's own, so that LastCapture can say which is
// which (Capture.Imported).
var bucketImportedCaptures = []byte("imported-captures")

// A Capture is the last capture of a URI with a 2xx response that the
// writer archived, in this run or an earlier one with the same digest index.
type Capture struct {
	// RecordID, Date and URI name the record that holds the payload: the
	// response record itself, or the record an identical-payload-digest
	// revisit referred to. Date is a WARC-Date ("2006-01-02T15:04:05.000Z"; to
	// the second when the record is known from a CDXJ line).
	// RecordID is empty when that record is known from a CDXJ index only
	// (ImportDedup).
	RecordID, Date, URI string
	// Fetched is when the capture was fetched (WARC-Date of its own record).
	Fetched time.Time
	// ETag and LastModified are the response's validators, empty when it
	// had none: a refetch sends them as If-None-Match and If-Modified-Since.
	ETag, LastModified string
	// Imported says the capture comes from an earlier crawl (ImportDedup),
	// not from this one. A crawl does not send its validators: a 304 would
	// leave the page's body, so its links, unknown to this crawl.
	Imported bool
}

type pendingCapture struct {
	uri string // the URI fetched, the key
	c   Capture
	seq uint64
}

// LastCapture returns the last 2xx capture of uri archived by this writer or
// by an earlier run with the same digest index, or else the one imported from
// an earlier crawl by ImportDedup (Imported set), and false if there is none.
// A capture reaches the index once its records are durable (after a crash, when
// the next OpenWARC reads the last ones back from the WARC files). It is safe
// for concurrent use.
func (w *WARCWriter) LastCapture(uri string) (Capture, bool, error) {
	w.dmu.Lock()
	p, ok := w.captures[uri]
	w.dmu.Unlock()
	if ok {
		return p.c, true, nil
	}
	var c Capture
	err := w.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketCaptures); b != nil {
			if v := b.Get([]byte(uri)); v != nil {
				c, ok = decodeCapture(v)
			}
		}
		if b := tx.Bucket(bucketImportedCaptures); b != nil && !ok {
			if v := b.Get([]byte(uri)); v != nil {
				c, ok = decodeCapture(v)
				c.Imported = ok
			}
		}
		return nil
	})
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return Capture{}, false, ErrClosed
	}
	if err != nil {
		return Capture{}, false, fmt.Errorf("storage: digest index: %w", err)
	}
	return c, ok, nil
}

// encodeCapture encodes a capture's value: record ID, date, referred URI,
// fetch time, ETag and Last-Modified, separated by newlines (none of them
// holds one: they come from single header lines).
func encodeCapture(c *Capture) []byte {
	return []byte(strings.Join([]string{c.RecordID, c.Date, c.URI,
		c.Fetched.UTC().Format(time.RFC3339Nano), c.ETag, c.LastModified}, "\n"))
}

// decodeCapture decodes what encodeCapture wrote; a value it cannot read is
// no capture (the refetch is then unconditional).
func decodeCapture(v []byte) (Capture, bool) {
	parts := strings.Split(string(v), "\n")
	if len(parts) != 6 || parts[1] == "" || parts[2] == "" {
		return Capture{}, false
	}
	fetched, err := time.Parse(time.RFC3339Nano, parts[3])
	if err != nil {
		return Capture{}, false
	}
	return Capture{RecordID: parts[0], Date: parts[1], URI: parts[2], Fetched: fetched,
		ETag: parts[4], LastModified: parts[5]}, true
}

// headerValue returns the first value of field name in an HTTP head, trimmed,
// or "".
func headerValue(head []byte, name string) string {
	_, rest, _ := bytes.Cut(head, []byte("\n"))
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		k, v, ok := bytes.Cut(line, []byte(":"))
		if ok && strings.EqualFold(string(bytes.TrimSpace(k)), name) {
			return strings.Trim(string(v), " \t\r")
		}
	}
	return ""
}
