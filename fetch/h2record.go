package fetch

import (
	"encoding/binary"
	"strconv"
	"sync"

	"golang.org/x/net/http2/hpack"
)

// Recording HTTP/2. On an h2 connection the plaintext under TLS is frames, the
// header blocks compressed with HPACK against a table that every block on the
// connection updates. So the connection's recorder reads every frame in both
// directions (skipping DATA payloads), decodes every header block in order,
// and hands the exchange's fields to the recorder of the request whose stream
// they belong to. The record is the exchange in its HTTP/1.1 form, as the
// IIPC's "WARC Extensions for HTTP/2" proposal says: the request line from
// :method and :path, a "host" field from :authority, then the fields in the
// order and the (lower) case they were sent; the status line "HTTP/1.1 200 "
// (HTTP/2 carries no reason phrase: the line ends in a space), then the fields
// as received. The WARC-Protocol fields ("h2", "tls/1.3") say what it was on
// the wire.

// HTTP/2 frame types and flags that carry or delimit header blocks (RFC 9113 §6).
const (
	h2FrameHeaders      = 0x1
	h2FramePushPromise  = 0x5
	h2FrameContinuation = 0x9
	h2FlagEndHeaders    = 0x4
	h2FlagPadded        = 0x8
	h2FlagPriority      = 0x20
	h2Preface           = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	maxH2Block          = 1 << 20 // bytes of one header block kept; beyond, recording stops
)

// h2conn records the exchanges of one HTTP/2 connection. A request's recorder
// and its stream meet by path: the transport may write a request's HEADERS
// before or after it tells the client which connection the request got
// (httptrace GotConn), so whichever comes second claims the other.
type h2conn struct {
	mu      sync.Mutex
	pending []h2pending          // recorders of requests not yet seen on the wire
	streams map[uint32]*h2stream // streams seen, claimed or not
	out, in h2reader
}

type h2pending struct {
	rec  *recorder
	path string
}

// h2stream is one stream's exchange in its HTTP/1.1 form.
type h2stream struct {
	rec       *recorder // nil until claimed
	path      string
	req, resp []byte
}

// maxH2Unclaimed bounds the streams kept for a recorder that may never come.
const maxH2Unclaimed = 64

func newH2conn() *h2conn {
	h := &h2conn{streams: map[uint32]*h2stream{}}
	h.out = h2reader{skip: len(h2Preface), dec: newH2Decoder(), block: h.sent}
	h.in = h2reader{dec: newH2Decoder(), block: h.received}
	return h
}

func newH2Decoder() *hpack.Decoder {
	d := hpack.NewDecoder(4096, nil)
	d.SetAllowedMaxDynamicTableSize(1 << 16) // lenient: the recorder must never refuse what the transport took
	d.SetMaxStringLength(maxH2Block)
	return d
}

// expect registers the recorder of a request for path (as sent in :path).
func (h *h2conn) expect(rec *recorder, path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var best uint32
	for id, st := range h.streams {
		if st.rec == nil && st.path == path && (best == 0 || id < best) {
			best = id
		}
	}
	if best != 0 {
		h.claim(h.streams[best], rec)
		return
	}
	h.pending = append(h.pending, h2pending{rec, path})
}

// claim gives st to rec and rec what st has seen. h.mu is held.
func (h *h2conn) claim(st *h2stream, rec *recorder) {
	st.rec = rec
	rec.mu.Lock()
	if st.req != nil {
		rec.req = st.req
	}
	if st.resp != nil && !rec.done {
		rec.resp, rec.done = st.resp, true
	}
	rec.mu.Unlock()
}

// forget drops rec, its exchange being over.
func (h *h2conn) forget(rec *recorder) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, p := range h.pending {
		if p.rec == rec {
			h.pending = append(h.pending[:i], h.pending[i+1:]...)
			break
		}
	}
	for id, st := range h.streams {
		if st.rec == rec {
			delete(h.streams, id)
		}
	}
}

// sent takes a request header block the client wrote on stream id.
func (h *h2conn) sent(id uint32, fields []hpack.HeaderField) {
	var method, path, authority string
	for _, f := range fields {
		switch f.Name {
		case ":method":
			method = f.Value
		case ":path":
			path = f.Value
		case ":authority":
			authority = f.Value
		}
	}
	if method == "" {
		return // trailers
	}
	b := make([]byte, 0, 256)
	b = append(append(append(append(b, method...), ' '), path...), " HTTP/1.1\r\n"...)
	if authority != "" {
		b = append(append(b, "host: "...), authority...)
		b = append(b, "\r\n"...)
	}
	b = appendH2Fields(b, fields)
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.streams[id]
	if st == nil {
		st = &h2stream{}
		h.streams[id] = st
	}
	st.path, st.req = path, b
	for i, p := range h.pending {
		if p.path == path {
			h.pending = append(h.pending[:i], h.pending[i+1:]...)
			h.claim(st, p.rec)
			return
		}
	}
	if len(h.streams) > maxH2Unclaimed {
		var oldest uint32
		for sid, s := range h.streams {
			if s.rec == nil && sid != id && (oldest == 0 || sid < oldest) {
				oldest = sid
			}
		}
		delete(h.streams, oldest)
	}
}

// received takes a response header block the server wrote on stream id.
func (h *h2conn) received(id uint32, fields []hpack.HeaderField) {
	status := ""
	for _, f := range fields {
		if f.Name == ":status" {
			status = f.Value
		}
	}
	if status == "" || status[0] == '1' {
		return // trailers, or an interim response the transport skips too
	}
	b := make([]byte, 0, 512)
	b = append(append(append(b, "HTTP/1.1 "...), status...), " \r\n"...)
	b = appendH2Fields(b, fields)
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.streams[id]
	if st == nil {
		// The answer was read before the request's bytes were seen going out.
		st = &h2stream{}
		h.streams[id] = st
	}
	if st.resp != nil {
		return
	}
	st.resp = b
	if st.rec != nil {
		st.rec.mu.Lock()
		if !st.rec.done {
			st.rec.resp, st.rec.done = b, true
		}
		st.rec.mu.Unlock()
	}
}

// appendH2Fields appends the regular fields as HTTP/1.1 lines and the blank line.
func appendH2Fields(b []byte, fields []hpack.HeaderField) []byte {
	for _, f := range fields {
		if f.IsPseudo() {
			continue
		}
		b = append(append(append(b, f.Name...), ": "...), f.Value...)
		b = append(b, "\r\n"...)
	}
	return append(b, "\r\n"...)
}

// h2reader splits one direction's bytes into frames and decodes the header
// blocks. It is fed by one goroutine at a time (the transport's reader or
// writer of that direction).
type h2reader struct {
	skip  int // preface bytes still to skip
	dec   *hpack.Decoder
	block func(stream uint32, fields []hpack.HeaderField)

	head    [9]byte
	nhead   int
	left    int    // payload bytes of the current frame still to come
	keep    bool   // the current frame's payload is part of a header block
	payload []byte // the current frame's payload, when kept
	typ     byte
	flags   byte
	stream  uint32

	frag     []byte // the header block being assembled
	fragID   uint32
	fragPush bool // it started with PUSH_PROMISE
	failed   bool
}

func (r *h2reader) feed(p []byte) {
	if r.failed {
		return
	}
	if r.skip > 0 {
		n := min(r.skip, len(p))
		r.skip -= n
		p = p[n:]
	}
	for len(p) > 0 {
		if r.nhead < len(r.head) {
			n := copy(r.head[r.nhead:], p)
			r.nhead += n
			p = p[n:]
			if r.nhead < len(r.head) {
				return
			}
			r.left = int(r.head[0])<<16 | int(r.head[1])<<8 | int(r.head[2])
			r.typ, r.flags = r.head[3], r.head[4]
			r.stream = binary.BigEndian.Uint32(r.head[5:]) & 0x7fffffff
			r.keep = r.typ == h2FrameHeaders || r.typ == h2FramePushPromise || r.typ == h2FrameContinuation
			r.payload = r.payload[:0]
			if r.left == 0 {
				r.endFrame()
			}
			continue
		}
		n := min(r.left, len(p))
		if r.keep {
			if len(r.payload)+n > maxH2Block {
				r.failed = true
				return
			}
			r.payload = append(r.payload, p[:n]...)
		}
		r.left -= n
		p = p[n:]
		if r.left == 0 {
			r.endFrame()
		}
	}
}

// endFrame handles a frame whose payload is complete.
func (r *h2reader) endFrame() {
	r.nhead = 0
	if !r.keep {
		return
	}
	b := r.payload
	if r.typ == h2FrameHeaders || r.typ == h2FramePushPromise {
		if r.flags&h2FlagPadded != 0 {
			if len(b) < 1 || int(b[0]) > len(b)-1 {
				r.failed = true
				return
			}
			b = b[1 : len(b)-int(b[0])]
		}
		skip := 0
		if r.typ == h2FrameHeaders && r.flags&h2FlagPriority != 0 {
			skip = 5
		}
		if r.typ == h2FramePushPromise {
			skip = 4
		}
		if len(b) < skip {
			r.failed = true
			return
		}
		r.frag = append(r.frag[:0], b[skip:]...)
		r.fragID = r.stream
		r.fragPush = r.typ == h2FramePushPromise
	} else {
		if len(r.frag)+len(b) > maxH2Block {
			r.failed = true
			return
		}
		r.frag = append(r.frag, b...)
	}
	if r.flags&h2FlagEndHeaders == 0 {
		return
	}
	fields, err := r.dec.DecodeFull(r.frag)
	if err != nil {
		r.failed = true // the table is out of step: nothing later can be decoded
		return
	}
	if r.fragPush {
		return // a pushed request: the client refuses pushes, but the table must keep in step
	}
	r.block(r.fragID, fields)
}

// h2StatusLine is the start of a rebuilt HTTP/2 response's status line.
func h2StatusLine(code int) string { return "HTTP/1.1 " + strconv.Itoa(code) + " \r\n" }
