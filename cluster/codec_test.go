package cluster

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var sampleLinks = []Link{
	{URL: "https://example.com/a", FoundOn: "https://example.com/", Depth: 1, Priority: 0, Hops: 0, Kind: 1},
	{URL: "https://example.com/b", FoundOn: "https://example.com/", Depth: 1, Priority: -3, Hops: 2, Kind: 1},
	{URL: "https://other.example/", FoundOn: "", Depth: 0, Priority: 10, Hops: 0, Kind: 0},
	{URL: "https://example.com/c?q=ü", FoundOn: "https://other.example/", Depth: 7, Priority: 1, Hops: 5, Kind: 255},
	{URL: "https://example.com/d", FoundOn: "https://example.com/", Depth: math.MaxInt32, Priority: math.MinInt32, Hops: 1, Kind: 3},
}

func TestBatchRoundTrip(t *testing.T) {
	for _, links := range [][]Link{nil, sampleLinks[:1], sampleLinks} {
		data := encodeBatch(links)
		got, err := decodeBatch(data)
		if err != nil {
			t.Fatalf("decodeBatch: %v", err)
		}
		if !slices.Equal(got, links) {
			t.Errorf("round trip:\n\tgot %+v\n\twant %+v", got, links)
		}
	}
}

// TestBatchClamps: ints beyond int32 are clamped, as the frontier stores them (on
// 64-bit builds: on 32-bit ones every int fits).
func TestBatchClamps(t *testing.T) {
	got, err := decodeBatch(encodeBatch([]Link{{URL: "u", Depth: math.MaxInt, Priority: math.MinInt, Hops: math.MaxInt}}))
	if err != nil {
		t.Fatal(err)
	}
	if l := got[0]; l.Depth != math.MaxInt32 || l.Priority != math.MinInt32 || l.Hops != math.MaxInt32 {
		t.Errorf("clamped to %+v", l)
	}
}

// TestBatchSharesFoundOn: a page's links carry its URL once.
func TestBatchSharesFoundOn(t *testing.T) {
	page := "https://example.com/" + strings.Repeat("p", 500)
	links := make([]Link, 100)
	for i := range links {
		links[i] = Link{URL: "https://example.com/" + strconv.Itoa(i), FoundOn: page}
	}
	if n := len(encodeBatch(links)); n > 600+100*30 {
		t.Errorf("100 links from one page take %d bytes", n)
	}
}

// withCRC replaces data's checksum with a correct one, so that the structure checks
// behind it are reached.
func withCRC(body []byte) []byte {
	return binary.BigEndian.AppendUint32(body, crc32.Checksum(body, castagnoli))
}

func TestDecodeBatchDamage(t *testing.T) {
	good := encodeBatch(sampleLinks)
	body := good[:len(good)-trailerSize]
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 1
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"truncated", good[:len(good)-1], "checksum"},
		{"cut in half", good[:len(good)/2], "checksum"},
		{"bit flipped", flipped, "checksum"},
		{"magic", append([]byte("xyz"), good[3:]...), "not a link batch"},
		{"version", append([]byte("pcl\x02"), good[4:]...), "version 2 not supported"},
		{"trailing bytes", withCRC(append(slices.Clone(body), 0)), "1 trailing bytes"},
		{"count too large", withCRC([]byte("pcl\x01\xff\xff\x03\x01u\x00\x00\x00\x00\x00\x00")), "too large"},
		{"count beyond links", withCRC([]byte("pcl\x01\x02\x01u\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")), "empty url"},
		{"empty url", withCRC([]byte("pcl\x01\x01\x00\x00\x00\x00\x00\x00\x00")), "empty url"},
		{"url beyond end", withCRC([]byte("pcl\x01\x01\x7fu\x00\x00\x00\x00\x00\x00")), "url length 127 beyond the message"},
		{"bad reference", withCRC([]byte("pcl\x01\x01\x01u\x02\x00\x00\x00\x00\x00\x00")), "found-on reference 2 beyond table of 0"},
		{"depth out of range", withCRC([]byte("pcl\x01\x01\x01u\x00\x00\xff\xff\xff\xff\x7f\x00\x00\x00")), "depth"},
		{"missing kind", withCRC([]byte("pcl\x01\x01\x01u\x00\x00\x00\x00\x00\x00")[:12]), "missing kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeBatch(tc.data)
			if !errors.Is(err, errBadMessage) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("decodeBatch: got %v, %v\n\twant error containing %q", got, err, tc.want)
			}
			if got != nil {
				t.Errorf("decodeBatch returned links with an error: %+v", got)
			}
		})
	}
}

// FuzzDecodeBatch: decoding never panics; what decodes re-encodes to a batch that
// decodes to the same links; a message damaged in one byte is refused.
func FuzzDecodeBatch(f *testing.F) {
	f.Add(encodeBatch(sampleLinks))
	f.Add(encodeBatch(nil))
	f.Add([]byte("pcl\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		links, err := decodeBatch(data)
		if err != nil {
			if !errors.Is(err, errBadMessage) {
				t.Fatalf("error %v does not wrap errBadMessage", err)
			}
			return
		}
		again := encodeBatch(links)
		got, err := decodeBatch(again)
		if err != nil || !slices.Equal(got, links) {
			t.Fatalf("re-encoded batch decodes to %+v, %v; want %+v", got, err, links)
		}
		for i := range again {
			damaged := slices.Clone(again)
			damaged[i] ^= 0x10
			if _, err := decodeBatch(damaged); err == nil {
				t.Fatalf("batch with byte %d damaged decodes", i)
			}
		}
	})
}
