package boltmap

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// The pages a drop keeps mapped.
//
// Every transaction reads a meta page and the root bucket's pages (the top-level
// buckets' headers), and every lookup in a B+tree reads the tree's upper branch
// pages: those few pages are read again right after a drop, each one a page fault
// that maps it back with the pages around it. So are all the pages of a bucket read
// at random all over while the rest of the file is read once (a Limit's hot
// buckets). A drop leaves them mapped, up to a number of bytes: the meta pages, the
// root bucket's pages, the hot buckets' pages (branches and leaves), and the branch
// pages of every other top-level bucket but their lowest level, level by level from
// the root. The lowest branch level, the one over the leaves, is most of a tree's
// branch pages, each read by few lookups; in a large file most of them are not in
// the page cache, and reading them to keep them would read the disk (at 10M URLs,
// keeping them held the drops for seconds while the file's pages mapped grew to four
// times the budget).
//
// The pages are found by reading bbolt's page layout in the mapping (this package's
// one departure from bbolt's API, which gives a page's type but not its children):
// a page starts with a 16-byte header, id u64, flags u16, count u16, overflow u32, in
// the machine's byte order; a branch page's count elements follow it, 16 bytes each,
// pos u32, ksize u32, pgid u64; every leaf of a tree is at the same depth. Only the
// branch pages and the leftmost leaf of each tree (which tells the depth) are read,
// all within the read transaction, whose pages bbolt does not reuse until it ends.
// Anything that does not read as such a tree (a page id beyond the file, a branch
// without children, a tree deeper than 64) stops the walk, and the drop drops every
// page, as if nothing were kept.

// bbolt's page layout (go.etcd.io/bbolt/internal/common/page.go).
const (
	pageHeaderSize    = 16
	branchElementSize = 16
	branchPageFlag    = 0x01
	leafPageFlag      = 0x02
	maxDepth          = 64
)

// errLayout is a page that does not read as bbolt's layout says: the drop keeps
// nothing.
var errLayout = errors.New("boltmap: page layout")

// span is pages [first, last] of the file.
type span struct{ first, last uint64 }

// pages reads the page headers of a file's mapping.
type pages struct {
	mem      []byte // the readable part of the mapping: whole pages of the file
	pageSize int
	n        uint64 // pages in mem
}

func newPages(mem []byte, pageSize int) *pages {
	return &pages{mem: mem, pageSize: pageSize, n: uint64(len(mem) / pageSize)}
}

// header returns page id's flags, count and overflow; ok false if the page (with its
// overflow) is not all in mem.
func (p *pages) header(id uint64) (flags, count uint16, overflow uint32, ok bool) {
	if id >= p.n {
		return 0, 0, 0, false
	}
	h := p.mem[id*uint64(p.pageSize):][:pageHeaderSize]
	flags = binary.NativeEndian.Uint16(h[8:])
	count = binary.NativeEndian.Uint16(h[10:])
	overflow = binary.NativeEndian.Uint32(h[12:])
	if binary.NativeEndian.Uint64(h) != id || uint64(overflow) >= p.n-id {
		return 0, 0, 0, false
	}
	return flags, count, overflow, true
}

// child returns the page id of branch page id's element i, which must be below its
// count: the elements must be within the page and its overflow.
func (p *pages) child(id uint64, overflow uint32, i int) (uint64, bool) {
	at := pageHeaderSize + i*branchElementSize
	if at+branchElementSize > (int(overflow)+1)*p.pageSize {
		return 0, false
	}
	e := p.mem[id*uint64(p.pageSize)+uint64(at):][:branchElementSize]
	return binary.NativeEndian.Uint64(e[8:]), true
}

// tree walks the B+tree whose root page is root, level by level, to find the pages
// a drop keeps.
type tree struct {
	level  []uint64 // the tree's pages at the current depth, from the root's
	depth  int      // levels below the current one: 0 at the leaves
	leaves bool     // keep the leaves too
}

// newTree reads the leftmost path from root to find the tree's depth: the one leaf
// read to keep branch pages.
func (p *pages) newTree(root uint64, leaves bool) (*tree, error) {
	id := root
	for depth := 0; depth <= maxDepth; depth++ {
		flags, count, overflow, ok := p.header(id)
		switch {
		case !ok:
			return nil, errLayout
		case flags == leafPageFlag:
			return &tree{level: []uint64{root}, depth: depth, leaves: leaves}, nil
		case flags != branchPageFlag || count == 0:
			return nil, errLayout
		}
		if id, ok = p.child(id, overflow, 0); !ok {
			return nil, errLayout
		}
	}
	return nil, errLayout
}

// keeper collects the spans of pages to keep, up to a number of bytes.
type keeper struct {
	*pages
	spans []span
	left  int64 // bytes that may still be kept
}

func (k *keeper) full() bool { return k.left <= 0 }

// keep keeps pages [id, id+overflow] if there is room.
func (k *keeper) keep(id uint64, overflow uint32) {
	if k.left > 0 {
		k.spans = append(k.spans, span{id, id + uint64(overflow)})
		k.left -= int64(overflow+1) * int64(k.pageSize)
	}
}

// level keeps t's pages at its current depth while there is room, and moves t down
// one level; it returns false once there is nothing more of t to keep. Branch pages
// are read for their children; a leaf is kept as one page, unread (its overflow, if
// any, is dropped).
func (k *keeper) level(t *tree) (bool, error) {
	if t.depth == 0 {
		if t.leaves {
			for _, id := range t.level {
				k.keep(id, 0)
			}
		}
		return false, nil
	}
	var below []uint64
	for _, id := range t.level {
		if k.full() {
			return false, nil
		}
		flags, count, overflow, ok := k.header(id)
		if !ok || flags != branchPageFlag || count == 0 {
			return false, errLayout
		}
		k.keep(id, overflow)
		if !t.leaves && t.depth <= 2 {
			// The children are the lowest branch pages, or leaves: not kept, not
			// read either.
			continue
		}
		for i := range int(count) {
			c, ok := k.child(id, overflow, i)
			// A level of a tree has at most as many pages as the file: more is a
			// page read twice (a damaged tree whose pages point back up).
			if !ok || c >= k.n || uint64(len(below)) >= k.n {
				return false, errLayout
			}
			below = append(below, c)
		}
	}
	t.level, t.depth = below, t.depth-1
	return len(below) > 0, nil
}

// keepSpans returns the pages of tx's file a drop keeps, sorted and merged, or an
// error if a page does not read as bbolt's layout says. It keeps, in this order and
// while they fit in limit bytes: the meta pages; the root bucket's pages; the pages
// of the top-level buckets named in hot, level by level, leaves included; and the
// branch pages of the other top-level buckets, level by level from their roots, but
// for the lowest level (unless it is the root). mem
// is the readable part of the mapping: whole pages within the file and the mapping.
func keepSpans(tx *bolt.Tx, mem []byte, limit int64, hot [][]byte) ([]span, error) {
	var roots []bucketRoot
	err := tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		if r := uint64(b.Root()); r != 0 { // 0: an inline bucket, in its parent's leaf
			isHot := slices.ContainsFunc(hot, func(h []byte) bool { return string(h) == string(name) })
			roots = append(roots, bucketRoot{r, isHot})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return keepPages(newPages(mem, tx.DB().Info().PageSize), uint64(tx.Cursor().Bucket().Root()), roots, limit)
}

// bucketRoot is a top-level bucket's root page, and whether its leaves are kept.
type bucketRoot struct {
	page uint64
	hot  bool
}

// keepPages is keepSpans on pages p, whose root bucket's root page is root.
func keepPages(p *pages, root uint64, buckets []bucketRoot, limit int64) ([]span, error) {
	k := &keeper{pages: p, left: limit}
	if k.n < 2 {
		return nil, errLayout
	}
	k.keep(0, 1) // the meta pages
	rootTree, err := k.newTree(root, true)
	if err != nil {
		return nil, err
	}
	var hotTrees, trees []*tree
	for _, b := range buckets {
		t, err := k.newTree(b.page, b.hot)
		if err != nil {
			return nil, err
		}
		if b.hot {
			hotTrees = append(hotTrees, t)
		} else {
			trees = append(trees, t)
		}
	}
	for _, group := range [][]*tree{{rootTree}, hotTrees, trees} {
		// Level by level, every tree's level before the next level of any.
		for len(group) > 0 && !k.full() {
			more := group[:0]
			for _, t := range group {
				deeper, err := k.level(t)
				if err != nil {
					return nil, err
				}
				if deeper {
					more = append(more, t)
				}
			}
			group = more
		}
	}
	return merge(k.spans), nil
}

// merge sorts spans and merges those that overlap or touch.
func merge(spans []span) []span {
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.first, b.first) })
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.first <= last.last+1 {
			last.last = max(last.last, s.last)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}
