package frontier

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"net/url"
	"strings"
)

// MaxURLSize is the longest URL, in bytes, that Add accepts; longer URLs are refused
// with reason RefusedURL.
const MaxURLSize = 8 << 10

// Entry is a URL to fetch and what is known about it. The Frontier stores it as given
// and returns it unchanged in a Lease.
type Entry struct {
	// URL is the absolute URL, already canonicalised by the caller.
	URL string
	// Depth is the number of links followed from a seed; seeds have depth 0. Within a
	// host and priority, lower depths are leased first. Depth and Hops are clamped to
	// int32.
	Depth int
	// Priority orders a host's queue before depth: higher first. Zero is the normal
	// priority; seeds and sitemap URLs use positive values. It is clamped to int32.
	Priority int
	// FoundOn is the URL of the page that linked here; empty for seeds.
	FoundOn string
	// Kind is defined by the caller (page, sitemap, robots, ...); stored and returned.
	Kind uint8
	// Hops counts the redirects followed so far to reach URL.
	Hops int
}

// hostOf returns the authority of rawURL, scheme://host[:port] with scheme and host
// lower-cased, or an error if rawURL is not an absolute URL with a host. The answer
// is url.Parse's (hostParse); hostFast gives it without parsing for the common URL.
func hostOf(rawURL string) (string, error) {
	if h, ok := hostFast(rawURL); ok {
		return h, nil
	}
	return hostParse(rawURL)
}

// hostParse is hostOf through url.Parse.
func hostParse(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	if u.Scheme == "" || u.Host == "" {
		return "", errors.New("frontier: URL is not absolute")
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), nil
}

// seenKey is the key of a URL in the seen bucket: 4 bytes of a hash of its host, then
// the first 128 bits of the URL's SHA-256, so that collisions stay negligible at
// billions of URLs. The host prefix keeps one host's URLs together in the tree: a page's
// links, mostly on its own host, then dirty a few pages of the bucket rather than one
// page each.
type seenKey [4 + 16]byte

// fingerprint returns the seen key of rawURL, whose authority is host.
func fingerprint(host, rawURL string) seenKey {
	var k seenKey
	binary.BigEndian.PutUint32(k[:4], hostHash(host))
	sum := sha256.Sum256([]byte(rawURL))
	copy(k[4:], sum[:16])
	return k
}

// hostHash is FNV-1a of host: it only groups keys, so a collision costs nothing.
func hostHash(host string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(host); i++ {
		h ^= uint32(host[i])
		h *= 16777619
	}
	return h
}

// keySize is the length of a queue key: host id, due time, priority, depth, sequence.
const keySize = 8 + 8 + 4 + 4 + 8

// queueKey builds the queue key of an entry due at due (Unix nanoseconds; 0 for a URL
// due at once, as every new link is). Keys sort by host, then due time, then priority
// descending, then depth ascending, then sequence (FIFO): a host's URLs due at once
// come first, in priority order, and the URLs it was given back for later (see
// Outcome.Refetch) follow them by due time.
func queueKey(hostID uint64, due int64, priority, depth int, seq uint64) []byte {
	k := make([]byte, keySize)
	binary.BigEndian.PutUint64(k, hostID)
	binary.BigEndian.PutUint64(k[8:], uint64(max(due, 0)))
	binary.BigEndian.PutUint32(k[16:], ^(uint32(clamp32(priority)) ^ 1<<31))
	binary.BigEndian.PutUint32(k[20:], uint32(max(0, min(depth, math.MaxInt32))))
	binary.BigEndian.PutUint64(k[24:], seq)
	return k
}

// hostPrefix is the common prefix of every queue key of a host.
func hostPrefix(hostID uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, hostID)
}

// laterPrefix is where a host's URLs due later than at once start: the smallest key
// with a due time.
func laterPrefix(hostID uint64) []byte {
	return binary.BigEndian.AppendUint64(hostPrefix(hostID), 1)
}

// dueOf returns the due time in a queue key, 0 for at once.
func dueOf(key []byte) int64 { return int64(binary.BigEndian.Uint64(key[8:])) }

// rankOf returns the part of a queue key that orders URLs due at the same time:
// priority, depth, sequence.
func rankOf(key []byte) []byte { return key[16:] }

func clamp32(v int) int32 {
	return int32(max(math.MinInt32, min(v, math.MaxInt32)))
}

// entryVersion is the first byte of an encoded queue value.
const entryVersion = 1

// encodeEntry encodes the value stored under a queue key: the entry and the number of
// attempts already consumed.
func encodeEntry(e *Entry, attempts int) []byte {
	return appendEntry(make([]byte, 0, entrySize(e)), e, attempts)
}

// entrySize is the most bytes appendEntry appends for e.
func entrySize(e *Entry) int {
	// Version and kind, attempts and two lengths, depth, priority and hops.
	return 2 + 3*binary.MaxVarintLen64 + 3*binary.MaxVarintLen32 + len(e.URL) + len(e.FoundOn)
}

// appendEntry appends encodeEntry's encoding of e to b.
func appendEntry(b []byte, e *Entry, attempts int) []byte {
	b = append(b, entryVersion)
	b = binary.AppendUvarint(b, uint64(max(attempts, 0)))
	b = binary.AppendVarint(b, int64(clamp32(e.Depth)))
	b = binary.AppendVarint(b, int64(clamp32(e.Priority)))
	b = append(b, e.Kind)
	b = binary.AppendVarint(b, int64(clamp32(e.Hops)))
	b = binary.AppendUvarint(b, uint64(len(e.URL)))
	b = append(b, e.URL...)
	b = binary.AppendUvarint(b, uint64(len(e.FoundOn)))
	return append(b, e.FoundOn...)
}

// errCorrupt reports a record that cannot be decoded.
var errCorrupt = errors.New("frontier: corrupt record")

// reader decodes the fields of a record; the first failure sticks.
type reader struct {
	b   []byte
	err bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.err = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes() string {
	n := r.uvarint()
	if r.err || n > uint64(len(r.b)) {
		r.err = true
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// raw is bytes without the copy: the slice returned aliases the record.
func (r *reader) raw() []byte {
	n := r.uvarint()
	if r.err || n > uint64(len(r.b)) {
		r.err = true
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// int reads a varint that must fit an int32.
func (r *reader) int() int {
	v := r.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.err = true
		return 0
	}
	return int(v)
}

// decodeEntry decodes a queue value. It never panics; it returns errCorrupt for
// anything encodeEntry cannot have produced.
func decodeEntry(b []byte) (e Entry, attempts int, err error) {
	r := reader{b: b}
	if r.byte() != entryVersion {
		return Entry{}, 0, errCorrupt
	}
	a := r.uvarint()
	e.Depth = r.int()
	e.Priority = r.int()
	e.Kind = r.byte()
	e.Hops = r.int()
	e.URL = r.bytes()
	e.FoundOn = r.bytes()
	if r.err || len(r.b) != 0 || a > math.MaxInt32 {
		return Entry{}, 0, errCorrupt
	}
	return e, int(a), nil
}

// hostIDOf returns the host id at the start of a queue key.
func hostIDOf(key []byte) uint64 { return binary.BigEndian.Uint64(key) }

// keySize2 is the length of a queue key in format 2, which had no due time.
const keySize2 = 8 + 4 + 4 + 8

// upgradeKey turns a format-2 queue key into a format-3 key due at once.
func upgradeKey(k2 []byte) ([]byte, bool) {
	if len(k2) != keySize2 {
		return nil, false
	}
	k := make([]byte, keySize)
	copy(k, k2[:8])
	copy(k[16:], k2[8:])
	return k, true
}
