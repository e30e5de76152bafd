package storage

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// gunzipOne decodes the one gzip member that member must be (compress/gzip checks
// its CRC and size) and fails the test if anything follows it.
func gunzipOne(t *testing.T, member []byte) []byte {
	t.Helper()
	r := bytes.NewReader(member)
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatalf("gzip.NewReader: %v", err)
	}
	zr.Multistream(false)
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("reading the member: %v", err)
	}
	if r.Len() > 0 {
		t.Fatalf("%d bytes follow the member", r.Len())
	}
	return got
}

// smallInputs are records and edge cases for the small-member encoder.
func smallInputs() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, smallMax)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// Copies from every distance code's range, up to the window the encoder sees:
	// random bytes, then bytes copied from d back for each code's base distance d
	// and the one before the next base.
	far := bytes.Clone(random[:smallMax/2])
	for i, d := range distBase {
		for _, d := range []int{int(d), int(d) + int(1<<distExtra[i]) - 1} {
			if d <= len(far)-8 && len(far)+8 <= smallMax {
				for range 8 { // byte by byte: a copy may overlap what it writes
					far = append(far, far[len(far)-d])
				}
			}
		}
	}
	request := "WARC/1.1\r\nWARC-Type: request\r\nWARC-Record-ID: <urn:uuid:0b5e2f9c-3d1a-4f7e-9a55-1c2b3d4e5f60>\r\n" +
		"WARC-Date: 2026-11-25T09:40:43Z\r\nWARC-Target-URI: http://h0001.example/p/17\r\n" +
		"Content-Type: application/http;msgtype=request\r\nContent-Length: 120\r\n\r\n" +
		"GET /p/17 HTTP/1.1\r\nHost: h0001.example\r\nUser-Agent: politecrawl/1.0\r\nAccept-Encoding: gzip\r\n\r\n\r\n\r\n"
	return map[string][]byte{
		"empty":         {},
		"one byte":      {'x'},
		"three bytes":   []byte("abc"),
		"four repeated": []byte("abcdabcd"),
		"run of 1000":   bytes.Repeat([]byte{'a'}, 1000), // matches longer than 258
		"every byte": func() []byte {
			b := make([]byte, 256)
			for i := range b {
				b[i] = byte(i)
			}
			return b
		}(),
		"request":      []byte(request),
		"ten requests": []byte(strings.Repeat(request, 10)),
		"random":       random,
		"far copies":   far,
	}
}

func TestAppendSmallMember(t *testing.T) {
	for name, in := range smallInputs() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			buf.WriteString("before")
			// In parts, as appendMember passes a record's head and block.
			appendSmallMember(&buf, in[:len(in)/3], in[len(in)/3:])
			member := buf.Bytes()[len("before"):]
			if got := gunzipOne(t, member); !bytes.Equal(got, in) {
				t.Errorf("appendSmallMember(%d bytes) decodes to %d bytes that differ", len(in), len(got))
			}
		})
	}
}

// TestAppendMemberSmallFixed checks that appendMember writes a small record at level
// 1 as one block of the fixed codes (BFINAL 1, BTYPE 01), which the general encoder
// never does: its Huffman tables cost most of a small record's compression.
func TestAppendMemberSmallFixed(t *testing.T) {
	in := smallInputs()["request"]
	for _, tc := range []struct {
		name  string
		level int
		head  []byte
		block [][]byte
		fixed bool
	}{
		{"small, level 1", 1, in[:100], [][]byte{in[100:200], in[200:]}, true},
		{"small, level 6", 6, in[:100], [][]byte{in[100:]}, false},
		{"large, level 1", 1, in, [][]byte{bytes.Repeat(in, smallMax/len(in)+1)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			n, err := appendMember(&buf, tc.level, tc.head, tc.block...)
			if err != nil {
				t.Fatalf("appendMember: %v", err)
			}
			if n != int64(buf.Len()) {
				t.Errorf("appendMember returned %d, wrote %d bytes", n, buf.Len())
			}
			want := append(bytes.Clone(tc.head), bytes.Join(tc.block, nil)...)
			want = append(want, "\r\n\r\n"...)
			if got := gunzipOne(t, buf.Bytes()); !bytes.Equal(got, want) {
				t.Errorf("the member decodes to %d bytes, want the record's %d", len(got), len(want))
			}
			if fixed := buf.Bytes()[10]&7 == 3; fixed != tc.fixed {
				t.Errorf("first block header bits %03b: fixed codes %v, want %v", buf.Bytes()[10]&7, fixed, tc.fixed)
			}
		})
	}
}

func FuzzAppendSmallMember(f *testing.F) {
	for _, in := range smallInputs() {
		if len(in) < 2048 {
			f.Add(in)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > smallMax {
			in = in[:smallMax]
		}
		var buf bytes.Buffer
		appendSmallMember(&buf, in)
		if got := gunzipOne(t, buf.Bytes()); !bytes.Equal(got, in) {
			t.Fatalf("%q decodes to %q", in, got)
		}
	})
}

func BenchmarkAppendMember(b *testing.B) {
	in := smallInputs()["request"]
	for _, level := range []int{1, 2} { // 2: the general encoder, at about level 1's cost
		b.Run(map[int]string{1: "small", 2: "general"}[level], func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				appendMember(&buf, level, in)
			}
			b.ReportMetric(float64(buf.Len()), "bytes")
		})
	}
}
