package storage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// maxConvertBlock bounds the response block RebuildWET reads to convert, in bytes.
const maxConvertBlock = 64 << 20

// Converter returns the Conversion of a response: uri is its WARC-Target-URI, head
// its HTTP status line and header fields, body its entity body as stored
// (content-encoding kept). It returns nil for a response that has none (not a 2xx
// HTML page).
type Converter func(uri string, head, body []byte) *Conversion

// RebuildWET writes the WET file of every WARC file in dir anew, as a WARCWriter with
// WARCOptions.WET writes it: a warcinfo record, then the conversion record convert
// gives for each response record and for each identical-payload revisit (converting
// the response it refers to again, wherever it lies in dir), in the order of the WARC
// file. fn, when not nil, is called after each file with its path and its number of
// conversion records. A damaged tail of a WARC file is left out. It refuses a
// directory a running crawl writes to (ErrInUse).
func RebuildWET(dir string, convert Converter, fn func(path string, records int)) error {
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	paths, err := WARCFiles(dir)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	placed := map[string]recordPlace{} // response record ID → where it lies
	for _, path := range paths {
		n, err := rebuildWETFile(path, convert, placed, host)
		if err != nil {
			return err
		}
		if fn != nil {
			fn(path, n)
		}
	}
	return nil
}

// recordPlace is where a response record lies.
type recordPlace struct {
	path   string
	offset int64
}

// rebuildWETFile writes the WET file of the WARC file at path and returns its number
// of conversion records. placed gains the place of each response record it reads.
func rebuildWETFile(path string, convert Converter, placed map[string]recordPlace, host string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("storage: wet: %w", err)
	}
	defer f.Close()
	name := filepath.Base(path)
	wetPath := filepath.Join(filepath.Dir(path), WETName(name))
	tmp := wetPath + tempSuffix
	tf, err := os.Create(tmp)
	if err != nil {
		return 0, fmt.Errorf("storage: wet: %w", err)
	}
	defer func() {
		tf.Close()
		os.Remove(tmp) // gone after the rename
	}()
	bw := bufio.NewWriterSize(tf, 256<<10)
	bw.Write(wetInfoMember(DefaultSoftware, host, "", WETName(name), name, time.Now(), DefaultGzipLevel))
	var member bytes.Buffer
	records := 0
	err = ReadRecords(f, func(r *Record) error {
		typ, id, uri := r.Get("WARC-Type"), r.Get("WARC-Record-ID"), r.Get("WARC-Target-URI")
		var head, body []byte
		switch {
		case typ == "response":
			placed[id] = recordPlace{path, r.Offset}
			var err error
			if head, body, err = httpMessage(r.Block); err != nil {
				return nil // a block it cannot read has no text
			}
		case typ == "revisit" && r.Get("WARC-Profile") == revisitProfile:
			p, ok := placed[r.Get("WARC-Refers-To")]
			if !ok {
				return nil // the payload is outside dir (an imported crawl)
			}
			var err error
			if head, body, err = responseAt(p); err != nil {
				return nil
			}
		default:
			return nil
		}
		c := convert(uri, head, body)
		if c == nil {
			return nil
		}
		records++
		member.Reset()
		if err := appendWETRecord(&member, DefaultGzipLevel, uri, r.Get("WARC-Date"), id, c); err != nil {
			return err
		}
		_, err := bw.Write(member.Bytes())
		return err
	})
	var re *ReadError
	if err != nil && !errors.As(err, &re) {
		return 0, err
	}
	err = bw.Flush()
	if err == nil {
		err = tf.Sync()
	}
	if err == nil {
		err = os.Rename(tmp, wetPath)
	}
	if err != nil {
		return 0, fmt.Errorf("storage: wet: %w", err)
	}
	return records, nil
}

// httpMessage reads a response block: its HTTP head (through the empty line) and body.
func httpMessage(block io.Reader) (head, body []byte, err error) {
	b, err := io.ReadAll(io.LimitReader(block, maxConvertBlock))
	if err != nil {
		return nil, nil, err
	}
	i := bytes.Index(b, []byte("\r\n\r\n"))
	if i < 0 {
		return nil, nil, errors.New("no end of HTTP head")
	}
	return b[:i+4], b[i+4:], nil
}

// responseAt reads the HTTP message of the response record at p.
func responseAt(p recordPlace) (head, body []byte, err error) {
	f, err := os.Open(p.path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	errDone := errors.New("done")
	err = ReadRecords(bufio.NewReader(io.NewSectionReader(f, p.offset, fi.Size()-p.offset)), func(r *Record) error {
		head, body, err = httpMessage(r.Block)
		if err != nil {
			return err
		}
		return errDone
	})
	if errors.Is(err, errDone) {
		err = nil
	}
	return head, body, err
}
