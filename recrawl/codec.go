package recrawl

import (
	"encoding/binary"
	"errors"
	"time"
)

// version is the first byte of every stored record and hint.
const version = 1

func appendFetch(b []byte, f *Fetch) []byte {
	b = binary.AppendVarint(b, f.Due)
	b = binary.AppendVarint(b, int64(f.Interval))
	b = binary.AppendVarint(b, f.Fetched.UnixNano())
	b = binary.AppendUvarint(b, uint64(f.Status))
	for _, s := range []string{f.Digest, f.ETag, f.LastModified} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

func encodeRecord(rec *Record) []byte {
	b := []byte{version, 0}
	if rec.HasPrev {
		b[1] = 1
	}
	b = appendFetch(b, &rec.Cur)
	if rec.HasPrev {
		b = appendFetch(b, &rec.Prev)
	}
	return b
}

// errShort ends the decoding of a record that is cut or damaged.
var errShort = errors.New("short record")

// reader reads the varints of a stored record, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = errShort, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = errShort, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) fetch() Fetch {
	f := Fetch{Due: r.varint(), Interval: time.Duration(r.varint())}
	f.Fetched = time.Unix(0, r.varint()).UTC()
	status := r.uvarint()
	if r.err != nil || status > 999 || f.Interval < 0 {
		r.err, r.b = errShort, nil
		return Fetch{}
	}
	f.Status = int(status)
	f.Digest, f.ETag, f.LastModified = r.str(), r.str(), r.str()
	if r.err != nil {
		return Fetch{}
	}
	return f
}

func (r *reader) str() string {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err, r.b = errShort, nil
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// decodeRecord reads what encodeRecord wrote; false for anything else.
func decodeRecord(v []byte) (Record, bool) {
	if len(v) < 2 || v[0] != version || v[1] > 1 {
		return Record{}, false
	}
	r := reader{b: v[2:]}
	rec := Record{Cur: r.fetch(), HasPrev: v[1] == 1}
	if rec.HasPrev {
		rec.Prev = r.fetch()
	}
	if r.err != nil || len(r.b) != 0 {
		return Record{}, false
	}
	return rec, true
}

// changeFreqs are the sitemap protocol's changefreq values, in their stored order.
var changeFreqs = []string{"", "always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}

func encodeHint(h Hint) []byte {
	b := []byte{version, 0}
	for i, f := range changeFreqs {
		if f == h.ChangeFreq {
			b[1] = byte(i)
		}
	}
	var mod int64
	if !h.LastMod.IsZero() {
		mod = h.LastMod.UnixNano()
	}
	return binary.AppendVarint(b, mod)
}

// decodeHint reads what encodeHint wrote; false for anything else.
func decodeHint(v []byte) (Hint, bool) {
	if len(v) < 2 || v[0] != version || int(v[1]) >= len(changeFreqs) {
		return Hint{}, false
	}
	r := reader{b: v[2:]}
	mod := r.varint()
	if r.err != nil || len(r.b) != 0 {
		return Hint{}, false
	}
	h := Hint{ChangeFreq: changeFreqs[v[1]]}
	if mod != 0 {
		h.LastMod = time.Unix(0, mod).UTC()
	}
	return h, true
}
