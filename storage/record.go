package storage

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"encoding/hex"
	"hash"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// warcDateLayout is WARC-Date with millisecond precision in UTC, which WARC 1.1
// §5.4 allows: the delays between two requests to a host, which an audit reads
// from these dates, are often 200 ms to 1 s. The time is truncated, so a record's
// date is never later than the moment it names. CDXJ timestamps keep their 14
// digits (appendTimestamp).
const warcDateLayout = "2006-01-02T15:04:05.000Z"

// warcSecondsLayout is WARC-Date with second precision, for a date known to the
// second only (from a 14-digit CDXJ timestamp).
const warcSecondsLayout = "2006-01-02T15:04:05Z"

// The WARC-Profile of revisit records that repeat an earlier payload.
const revisitProfile = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

// field is one WARC named field.
type field struct{ name, value string }

// warcDate formats t as a WARC-Date.
func warcDate(t time.Time) string { return t.UTC().Format(warcDateLayout) }

// newRecordID returns a fresh random (version 4) UUID URN in angle brackets,
// the form WARC-Record-ID takes.
func newRecordID() string {
	var u [16]byte
	rand.Read(u[:]) // never fails (crypto/rand.Read crashes the program instead)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var b [47]byte
	n := copy(b[:], "<urn:uuid:")
	for i, part := range [][]byte{u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]} {
		if i > 0 {
			b[n] = '-'
			n++
		}
		n += hex.Encode(b[n:], part)
	}
	b[n] = '>'
	return string(b[:n+1])
}

// sha1Digest formats a SHA-1 sum the way WARC digests are written.
func sha1Digest(h hash.Hash) string {
	var sum [sha1.Size]byte
	return "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(sum[:0]))
}

// payloadDigest returns the WARC digest of b.
func payloadDigest(b []byte) string {
	h := sha1.New()
	h.Write(b)
	return sha1Digest(h)
}

// blockDigest returns the WARC digest of the concatenation of parts.
func blockDigest(parts ...[]byte) string {
	h := sha1.New()
	for _, p := range parts {
		h.Write(p)
	}
	return sha1Digest(h)
}

// cleanValue makes s safe as a WARC field value: CR, LF and other control
// characters become spaces, so a value can never start a new field.
func cleanValue(s string) string {
	if !strings.ContainsFunc(s, isCtl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isCtl(r) {
			return ' '
		}
		return r
	}, s)
}

func isCtl(r rune) bool { return r < 0x20 || r == 0x7f }

// appendHead appends the WARC version line, the fields, Content-Length and the
// blank line that ends the header.
func appendHead(b []byte, fields []field, contentLength int) []byte {
	b = append(b, "WARC/1.1\r\n"...)
	for _, f := range fields {
		b = append(b, f.name...)
		b = append(b, ": "...)
		b = append(b, cleanValue(f.value)...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(contentLength), 10)
	b = append(b, "\r\n\r\n"...)
	return b
}

// crlf2 ends every record.
var crlf2 = []byte("\r\n\r\n")

// gzipWriters holds idle gzip writers, one pool per level (1 to 9).
var gzipWriters [gzip.BestCompression + 1]sync.Pool

// appendMember compresses one record (head, block parts, the closing CRLF CRLF)
// as one gzip member of the given level onto buf and returns the member's
// length in bytes. At level 1 a record of at most smallMax bytes (a request, a
// metadata record, a small response) is written by appendSmallMember.
func appendMember(buf *bytes.Buffer, level int, head []byte, block ...[]byte) (int64, error) {
	start := buf.Len()
	if level == gzip.BestSpeed {
		n := len(head) + len(crlf2)
		for _, p := range block {
			n += len(p)
		}
		if n <= smallMax {
			parts := make([][]byte, 0, 8)
			parts = append(append(append(parts, head), block...), crlf2)
			appendSmallMember(buf, parts...)
			return int64(buf.Len() - start), nil
		}
	}
	zw, ok := gzipWriters[level].Get().(*gzip.Writer)
	if !ok {
		var err error
		if zw, err = gzip.NewWriterLevel(io.Discard, level); err != nil {
			return 0, err
		}
	}
	defer gzipWriters[level].Put(zw)
	zw.Reset(buf)
	if _, err := zw.Write(head); err != nil {
		return 0, err
	}
	for _, p := range block {
		if _, err := zw.Write(p); err != nil {
			return 0, err
		}
	}
	if _, err := zw.Write(crlf2); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return int64(buf.Len() - start), nil
}
