package storage

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// WETSuffix ends the name of a WARC file's WET file, written beside it when
// WARCOptions.WET is set: crawl-…-00001.warc.gz has crawl-…-00001.warc.wet.gz,
// as Common Crawl names them.
const WETSuffix = ".warc.wet.gz"

// WETName returns the name of the WET file of WARC file warcName.
func WETName(warcName string) string {
	return strings.TrimSuffix(warcName, ".warc.gz") + WETSuffix
}

// Conversion is the main text of an HTML page, archived as a conversion record
// in the WET file of the WARC file that holds the page's response (or revisit)
// record (Exchange.Conversion).
type Conversion struct {
	// Text is the page's main text, UTF-8; invalid bytes become U+FFFD. It may be
	// empty: a page without text still has its record.
	Text string
	// Languages are the languages detected in Text, the likeliest first, as codes
	// the crawl's detector gives (Common Crawl writes ISO 639-3 codes such as "eng").
	// They go into WARC-Identified-Content-Language, comma-separated; none: no field.
	Languages []string
}

// appendWETRecord appends the conversion record of c as Common Crawl writes one
// in a WET file (Content-Type text/plain, WARC-Identified-Content-Language when
// known) as one gzip member onto buf.
func appendWETRecord(buf *bytes.Buffer, level int, uri, date, refersTo string, c *Conversion) error {
	text := c.Text
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	block := []byte(text)
	fields := make([]field, 0, 8)
	fields = append(fields,
		field{"WARC-Type", "conversion"},
		field{"WARC-Target-URI", uri},
		field{"WARC-Date", date},
		field{"WARC-Record-ID", newRecordID()},
		field{"WARC-Refers-To", refersTo},
		field{"WARC-Block-Digest", blockDigest(block)})
	if len(c.Languages) > 0 {
		fields = append(fields, field{"WARC-Identified-Content-Language", strings.Join(c.Languages, ",")})
	}
	fields = append(fields, field{"Content-Type", "text/plain"})
	head := appendHead(make([]byte, 0, 512), fields, len(block))
	_, err := appendMember(buf, level, head, block)
	return err
}

// wetInfo returns the gzip member of the warcinfo record opening WET file name,
// which holds the text of WARC file warcName.
func (w *WARCWriter) wetInfo(name, warcName string, now time.Time) []byte {
	return wetInfoMember(w.opts.Software, w.opts.Hostname, w.opts.Operator, name, warcName, now, w.opts.GzipLevel)
}

// wetInfoMember returns the gzip member of the warcinfo record opening WET file
// name, which holds the text of WARC file warcName, written by software on hostname
// for operator (each left out when empty).
func wetInfoMember(software, hostname, operator, name, warcName string, now time.Time, level int) []byte {
	var block bytes.Buffer
	add := func(k, v string) {
		block.WriteString(k)
		block.WriteString(": ")
		block.WriteString(cleanValue(v))
		block.WriteString("\r\n")
	}
	add("software", software)
	add("format", "WARC File Format 1.1")
	add("description", "main text of the HTML pages of "+warcName)
	add("extracted-date", warcDate(now))
	if hostname != "" {
		add("hostname", hostname)
	}
	if operator != "" {
		add("operator", operator)
	}
	head := appendHead(nil, []field{
		{"WARC-Type", "warcinfo"},
		{"WARC-Date", warcDate(now)},
		{"WARC-Filename", name},
		{"WARC-Record-ID", newRecordID()},
		{"WARC-Block-Digest", blockDigest(block.Bytes())},
		{"Content-Type", "application/warc-fields"},
	}, block.Len())
	var out bytes.Buffer
	appendMember(&out, level, head, block.Bytes()) // writes to memory: cannot fail
	return out.Bytes()
}

// both syncs a WARC file, then its WET file: a group commit makes a round's
// records durable in both before any of its pages is acknowledged.
type both struct{ warc, wet syncer }

func (b both) Sync() error {
	if err := b.warc.Sync(); err != nil {
		return err
	}
	return b.wet.Sync()
}

// removeOrphanWETs removes the WET files, and their temporary files, whose WARC
// file does not exist: a crash after a WET file started and before its WARC
// file did leaves one holding its warcinfo record only.
func (w *WARCWriter) removeOrphanWETs(entries []os.DirEntry) error {
	for _, e := range entries {
		base := strings.TrimSuffix(e.Name(), tempSuffix)
		stem, ok := strings.CutSuffix(base, WETSuffix)
		if !ok {
			continue
		}
		warcName := stem + ".warc.gz"
		if _, ok := parseName(w.opts.Prefix, warcName); !ok {
			continue
		}
		if base == e.Name() {
			if _, err := os.Lstat(filepath.Join(w.opts.Dir, warcName)); err == nil {
				continue
			}
		}
		if err := w.removeLeftover(e); err != nil {
			return err
		}
	}
	return nil
}

// repairWET cuts the WET file of the newest WARC file after its last whole
// record whose WARC-Refers-To names a record the WARC file still holds, so that
// no conversion record outlives the response it was made from. warcFrom and
// wetFrom are the sizes the digest index recorded durable for the two files (0:
// unknown), a cut consistent between them: a round syncs both before recording
// both. The WARC file has been repaired already.
func repairWET(dir, warcName string, warcFrom, wetFrom int64, noSync bool) (Recovery, error) {
	path := filepath.Join(dir, WETName(warcName))
	rec := Recovery{File: filepath.Base(path)}
	if _, err := os.Lstat(path); err != nil {
		return rec, nil // no WET file: the crawl did not keep one
	}
	if fi, err := os.Stat(filepath.Join(dir, warcName)); wetFrom == 0 || err != nil || fi.Size() < warcFrom {
		// No consistent cut: the WARC file holds less than was durable (it
		// was damaged, not torn by a crash), or its WET size is unknown.
		warcFrom, wetFrom = 0, 0
	}
	ids, err := recordIDs(filepath.Join(dir, warcName), warcFrom)
	if err != nil {
		return rec, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return rec, fmt.Errorf("storage: repair: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return rec, fmt.Errorf("storage: repair: %w", err)
	}
	size := fi.Size()
	if wetFrom < 0 || wetFrom > size {
		wetFrom = 0
	}
	c := &byteCounter{br: bufio.NewReaderSize(io.NewSectionReader(f, wetFrom, size-wetFrom), 64<<10)}
	var end int64
	eachRecord(c, func(_ int64, br *bufio.Reader) error {
		var typ, to string
		length, err := readRecordHead(br, func(name, value string) {
			switch {
			case strings.EqualFold(name, "WARC-Type"):
				typ = value
			case strings.EqualFold(name, "WARC-Refers-To"):
				to = value
			}
		})
		if err != nil {
			return err
		}
		if typ == "conversion" && !ids[to] {
			return fmt.Errorf("refers to a record cut from %s", warcName)
		}
		if n, err := br.Discard(int(min(length, 1<<40))); err != nil || int64(n) != length {
			return io.ErrUnexpectedEOF
		}
		if err := readRecordEnd(br); err != nil {
			return err
		}
		end = c.n
		return nil
	})
	rec.Kept = wetFrom + end
	rec.Cut = size - rec.Kept
	if rec.Cut == 0 {
		return rec, nil
	}
	if err := f.Truncate(rec.Kept); err != nil {
		return rec, fmt.Errorf("storage: repair: %w", err)
	}
	if !noSync {
		if err := f.Sync(); err != nil {
			return rec, fmt.Errorf("storage: repair: %w", err)
		}
	}
	return rec, nil
}

// recordIDs returns the WARC-Record-IDs of the whole records of the WARC file at
// path from offset from on.
func recordIDs(path string, from int64) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return map[string]bool{}, nil // removed whole by its repair
		}
		return nil, fmt.Errorf("storage: repair: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("storage: repair: %w", err)
	}
	if from < 0 || from > fi.Size() {
		from = 0
	}
	ids := make(map[string]bool)
	c := &byteCounter{br: bufio.NewReaderSize(io.NewSectionReader(f, from, fi.Size()-from), 64<<10)}
	eachRecord(c, func(_ int64, br *bufio.Reader) error {
		var id string
		length, err := readRecordHead(br, func(name, value string) {
			if strings.EqualFold(name, "WARC-Record-ID") {
				id = value
			}
		})
		if err != nil {
			return err
		}
		if n, err := br.Discard(int(min(length, 1<<40))); err != nil || int64(n) != length {
			return io.ErrUnexpectedEOF
		}
		if err := readRecordEnd(br); err != nil {
			return err
		}
		ids[id] = true
		return nil
	})
	return ids, nil
}
