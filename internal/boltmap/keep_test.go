package boltmap

import (
	"encoding/binary"
	"slices"
	"testing"
)

// fakeFile lays out pages of pageSize bytes in bbolt's layout: each page is
// {flags, children...}, the overflow 0.
func fakeFile(pageSize int, pages [][]uint64) []byte {
	mem := make([]byte, pageSize*len(pages))
	for id, p := range pages {
		h := mem[id*pageSize:]
		binary.NativeEndian.PutUint64(h, uint64(id))
		binary.NativeEndian.PutUint16(h[8:], uint16(p[0]))
		binary.NativeEndian.PutUint16(h[10:], uint16(len(p)-1))
		for i, c := range p[1:] {
			binary.NativeEndian.PutUint64(h[pageHeaderSize+i*branchElementSize+8:], c)
		}
	}
	return mem
}

const (
	meta   = 0x04
	branch = branchPageFlag
	leaf   = leafPageFlag
)

// a small file: meta pages 0 and 1; the root bucket's leaf 2; bucket A, a branch 3
// over leaves 4 and 5; bucket B, a branch 6 over branches 7 and 8 over leaves 9-12.
var small = [][]uint64{{meta}, {meta}, {leaf}, {branch, 4, 5}, {leaf}, {leaf}, {branch, 7, 8},
	{branch, 9, 10}, {branch, 11, 12}, {leaf}, {leaf}, {leaf}, {leaf}}

func TestKeepPages(t *testing.T) {
	t.Parallel()
	const ps = 64
	damaged := func(id int, p []uint64) [][]uint64 {
		d := slices.Clone(small)
		d[id] = p
		return d
	}
	for _, tc := range []struct {
		name    string
		pages   [][]uint64
		buckets []bucketRoot
		limit   int64
		want    []span // nil: errLayout
	}{
		{"branches", small, []bucketRoot{{3, false}, {6, false}}, 1 << 20, []span{{0, 3}, {6, 6}}},
		{"hot", small, []bucketRoot{{3, true}, {6, false}}, 1 << 20, []span{{0, 6}}},
		{"hot B", small, []bucketRoot{{3, false}, {6, true}}, 1 << 20, []span{{0, 3}, {6, 12}}},
		{"limit", small, []bucketRoot{{3, false}, {6, false}}, 4 * ps, []span{{0, 3}}},
		{"limit hot first", small, []bucketRoot{{3, false}, {6, true}}, 6 * ps, []span{{0, 2}, {6, 8}}},
		{"nothing", small, nil, 1, []span{{0, 1}}},
		{"one-leaf bucket", small, []bucketRoot{{4, false}}, 1 << 20, []span{{0, 2}}},
		{"root beyond the file", small, []bucketRoot{{13, false}}, 1 << 20, nil},
		{"child beyond the file", damaged(6, []uint64{branch, 7, 99}), []bucketRoot{{6, true}}, 1 << 20, nil},
		{"lowest branch beyond the file, unread", damaged(6, []uint64{branch, 7, 99}), []bucketRoot{{6, false}}, 1 << 20, []span{{0, 2}, {6, 6}}},
		{"leaf beyond the file", damaged(7, []uint64{branch, 9, 99}), []bucketRoot{{6, true}}, 1 << 20, nil},
		{"leaf beyond the file, unread", damaged(7, []uint64{branch, 9, 99}), []bucketRoot{{6, false}}, 1 << 20, []span{{0, 2}, {6, 6}}},
		{"branch not a branch", damaged(8, []uint64{0x40, 11, 12}), []bucketRoot{{6, true}}, 1 << 20, nil},
		{"branch without children", damaged(8, []uint64{branch}), []bucketRoot{{6, true}}, 1 << 20, nil},
		{"root without children", damaged(6, []uint64{branch}), []bucketRoot{{6, false}}, 1 << 20, nil},
		{"leaf where a branch is", damaged(8, []uint64{leaf}), []bucketRoot{{6, true}}, 1 << 20, nil},
		{"a loop", damaged(6, []uint64{branch, 6, 8}), []bucketRoot{{6, false}}, 1 << 20, nil},
	} {
		got, err := keepPages(newPages(fakeFile(ps, tc.pages), ps), 2, tc.buckets, tc.limit)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s: keepPages = %v, want an error", tc.name, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: keepPages:\n\tgot %v, %v\n\twant %v", tc.name, got, err, tc.want)
		}
	}
}

// FuzzKeepPages reads arbitrary bytes as pages: keepPages never panics, and what it
// keeps lies within the file, sorted, apart.
func FuzzKeepPages(f *testing.F) {
	f.Add(fakeFile(64, small), uint16(64), uint64(2), uint64(6), true)
	f.Add(fakeFile(32, small), uint16(32), uint64(2), uint64(3), false)
	f.Fuzz(func(t *testing.T, mem []byte, pageSize uint16, root, bucket uint64, hot bool) {
		if pageSize < pageHeaderSize {
			return
		}
		p := newPages(mem, int(pageSize))
		spans, err := keepPages(p, root, []bucketRoot{{bucket, hot}}, 1<<20)
		if err != nil {
			return
		}
		for i, s := range spans {
			if s.first > s.last || s.last >= p.n || (i > 0 && s.first <= spans[i-1].last+1) {
				t.Fatalf("spans %v of a file of %d pages", spans, p.n)
			}
		}
	})
}
