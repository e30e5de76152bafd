package storage

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// IndexSuffix ends the name of a WARC file's CDXJ index, written beside it:
// crawl-…-00001.warc.gz has crawl-…-00001.warc.gz.cdxj. It exists once the
// WARC file is closed and holds its lines sorted. While the file is being
// written its lines go to the same name with OpenIndexSuffix added, in the
// order written; one left behind by a crash is rebuilt from the WARC file
// when the writer opens the directory again (or by RebuildIndex).
const (
	IndexSuffix     = ".cdxj"
	OpenIndexSuffix = ".open"
)

// cdxjEntry is what a CDXJ line says of a response or revisit record, but
// for its offset and file, which are known once the record is placed.
type cdxjEntry struct {
	url      string
	date     string // WARC-Date
	mime     string // HTTP Content-Type without parameters; revisit: "warc/revisit"
	detected string // the identified payload type, when it differs from mime
	status   int    // HTTP status; 0: none
	digest   string // payload digest with its "sha1:" label
	length   int64  // of the record's gzip member, in bytes
}

// appendPrefix appends the line up to the offset's value: SURT key,
// timestamp and the JSON fields in the order pywb and warcio write them (url,
// mime, status, digest, length), mime-detected after mime.
func (e *cdxjEntry) appendPrefix(b []byte) []byte {
	b = append(b, SURT(e.url)...)
	b = append(b, ' ')
	b = appendTimestamp(b, e.date)
	b = append(b, ` {"url":`...)
	b = appendJSONString(b, e.url)
	if e.mime != "" {
		b = append(b, `,"mime":`...)
		b = appendJSONString(b, e.mime)
	}
	if e.detected != "" && e.detected != e.mime {
		b = append(b, `,"mime-detected":`...)
		b = appendJSONString(b, e.detected)
	}
	if e.status > 0 {
		b = append(b, `,"status":"`...)
		b = strconv.AppendInt(b, int64(e.status), 10)
		b = append(b, '"')
	}
	if _, d, ok := strings.Cut(e.digest, ":"); ok && d != "" {
		b = append(b, `,"digest":`...)
		b = appendJSONString(b, d)
	}
	b = append(b, `,"length":"`...)
	b = strconv.AppendInt(b, e.length, 10)
	b = append(b, `","offset":"`...)
	return b
}

// appendLine appends the whole line, ending in '\n'.
func (e *cdxjEntry) appendLine(b []byte, file string, offset int64) []byte {
	return appendLineEnd(e.appendPrefix(b), file, offset)
}

// appendLineEnd completes a line started by appendPrefix.
func appendLineEnd(b []byte, file string, offset int64) []byte {
	b = strconv.AppendInt(b, offset, 10)
	b = append(b, `","filename":`...)
	b = appendJSONString(b, file)
	return append(b, "}\n"...)
}

// appendTimestamp appends the 14 digits of a WARC-Date (YYYYMMDDhhmmss).
func appendTimestamp(b []byte, date string) []byte {
	n := 0
	for i := 0; i < len(date) && n < 14; i++ {
		if c := date[i]; '0' <= c && c <= '9' {
			b = append(b, c)
			n++
		}
	}
	return b
}

// appendJSONString appends s as a JSON string the way JavaScript's
// JSON.stringify writes it: only '"', '\\' and control characters escaped.
// Invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// httpStatusAndType reads the status code and the Content-Type of an HTTP
// response head: the media type without parameters, as written. Repeated
// Content-Type fields are joined by ", " as a Fetch API Headers object joins
// them.
func httpStatusAndType(head []byte) (status int, mime string) {
	line, rest, _ := bytes.Cut(head, []byte("\n"))
	if _, after, ok := bytes.Cut(line, []byte(" ")); ok {
		code, _, _ := bytes.Cut(bytes.TrimLeft(after, " "), []byte(" "))
		code = bytes.TrimSpace(code)
		if n, err := strconv.Atoi(string(code)); err == nil && n > 0 && n < 1000 {
			status = n
		}
	}
	var types []string
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !strings.EqualFold(string(bytes.TrimSpace(name)), "Content-Type") {
			continue
		}
		types = append(types, strings.Trim(string(value), " \t\r"))
	}
	if len(types) == 0 {
		return status, ""
	}
	ct := strings.Join(types, ", ")
	mime, _, _ = strings.Cut(ct, ";")
	return status, strings.TrimSpace(mime)
}

// indexLine is the CDXJ line of a response or revisit record being written.
type indexLine struct {
	entry    cdxjEntry
	detected string // identified payload type of a response; "" for a revisit
	rel      int64  // offset of the record in the data committed with it
	prefix   []byte // the line up to the offset's value
	// cc, when the writer keeps a Parquet index, is the record's row but for
	// its place.
	cc *ccCapture
}

// newIndexLine describes the response or revisit record of an exchange:
// its payload type is identified here, once, for both the record's
// WARC-Identified-Payload-Type and its line.
func newIndexLine(url, date string, respHead, body []byte, loc *Location) *indexLine {
	ix := &indexLine{entry: cdxjEntry{url: url, date: date, digest: loc.PayloadDigest}}
	ix.entry.status, ix.entry.mime = httpStatusAndType(respHead)
	if loc.Revisit {
		ix.entry.mime = "warc/revisit"
	} else {
		ix.detected = identifyPayload(respHead, body)
		ix.entry.detected = ix.detected
	}
	return ix
}

// finish sets where the record lies in the committed data: after the
// request record of reqLen bytes, respLen bytes long.
func (ix *indexLine) finish(reqLen, respLen int64) {
	ix.rel, ix.entry.length = reqLen, respLen
	ix.prefix = ix.entry.appendPrefix(make([]byte, 0, 256))
}

// line returns the whole line once the data was placed at offset off of
// WARC file name.
func (ix *indexLine) line(name string, off int64) []byte {
	return appendLineEnd(ix.prefix, name, off+ix.rel)
}
