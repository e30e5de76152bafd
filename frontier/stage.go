package frontier

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Staging (when Options.LinkBatch > 0). Done does not queue a page's links one by one:
// it writes them, in the same transaction, as one record of the staged bucket, whose
// keys only grow, so the write touches the end of one small tree. Once Options.LinkBatch links are staged, commits
// fold them into the seen set and the queues, as many records per commit as rewrite
// foldNodes nodes. Random fingerprints and hosts spread a page's links over the whole
// file, and bbolt rewrites a 4 KiB page for each one it touches; folding thousands
// together makes them share the pages (Mercator's batched URL-seen test, in a B+tree).
//
// Staged links are durable but not yet queued: they are neither duplicates nor added,
// limits apply to them when they are folded, and Stats counts them apart (Staged). Next
// folds them early rather than wait or end the crawl, and Flush folds them on demand.

// cStaged counts the links in the staged bucket.
const cStaged = "staged"

var bucketStaged = []byte("staged")

// stage keeps p's link for the batch's staged record, or for folding if this batch
// folds.
func (b *batch) stage(p *prepared) {
	b.stagedLinks = append(b.stagedLinks, *p)
	b.count(cStaged, 1)
}

// appendStaged encodes p as a part of a staged record.
func appendStaged(dst []byte, p *prepared) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(p.host)))
	dst = append(dst, p.host...)
	dst = append(dst, p.fp[:]...)
	dst = binary.AppendVarint(dst, int64(clamp32(p.e.Priority)))
	dst = binary.AppendVarint(dst, int64(clamp32(p.e.Depth)))
	dst = binary.AppendUvarint(dst, uint64(len(p.val)))
	return append(dst, p.val...)
}

// decodeStaged appends the links of a staged record to dst. It returns errCorrupt for
// anything appendStaged cannot have produced.
func decodeStaged(dst []prepared, rec []byte) ([]prepared, error) {
	r := reader{b: rec}
	for len(r.b) > 0 && !r.err {
		var p prepared
		p.host = r.bytes()
		if len(r.b) < len(p.fp) {
			return dst, errCorrupt
		}
		r.b = r.b[copy(p.fp[:], r.b):]
		p.e.Priority = r.int()
		p.e.Depth = r.int()
		p.val = []byte(r.bytes())
		if r.err || p.host == "" {
			return dst, errCorrupt
		}
		dst = append(dst, p)
	}
	if r.err {
		return dst, errCorrupt
	}
	return dst, nil
}

// shouldFold reports whether this batch folds the staged links in.
func (b *batch) shouldFold() bool {
	n := b.counter(cStaged)
	if n == 0 {
		return false
	}
	return b.folding || n >= int64(b.f.linkBatch)
}

// flushStaged writes the batch's staged links as one record, unless it folded them.
func (b *batch) flushStaged() error {
	if len(b.stagedLinks) == 0 {
		return nil
	}
	var rec []byte
	for i := range b.stagedLinks {
		rec = appendStaged(rec, &b.stagedLinks[i])
	}
	b.seq++
	return b.staged.Put(binary.BigEndian.AppendUint64(nil, b.seq), rec)
}

// foldNodes bounds the B+tree nodes one fold may rewrite, so that a fold's memory
// (measured: 100-150 MB at the peak) stays bounded however scattered the links: in a
// large frontier every link can land on a page of its own, and bbolt holds each
// rewritten page in memory until the commit. A fold that reaches it leaves the later
// records staged.
var foldNodes int64 = 8192 // a variable for tests

func nodeCount(tx *bolt.Tx) int64 {
	s := tx.Stats()
	return s.GetNodeCount()
}

// foldStaged queues staged links, as Add would have, in the order they were staged:
// whole records of earlier commits first, then this batch's links, until the
// transaction has rewritten foldNodes nodes. The records it folds leave the staged
// bucket.
func (b *batch) foldStaged() error {
	nodes := nodeCount(b.tx)
	var links []prepared
	c := b.staged.Cursor()
	for k, v := c.First(); k != nil; k, v = c.First() {
		if nodeCount(b.tx)-nodes >= foldNodes {
			return nil
		}
		var err error
		if links, err = decodeStaged(links[:0], v); err != nil {
			return fmt.Errorf("%w: staged record %x", ErrCorrupt, k)
		}
		if err := c.Delete(); err != nil {
			return err
		}
		if err := b.fold(links); err != nil {
			return err
		}
	}
	if len(b.stagedLinks) > 0 {
		if nodeCount(b.tx)-nodes >= foldNodes {
			return nil // flush stages them
		}
		links, b.stagedLinks = b.stagedLinks, nil
		if err := b.fold(links); err != nil {
			return err
		}
	}
	// Nothing is staged any more; a counter that says otherwise would make Flush loop.
	if n := b.counter(cStaged); n != 0 {
		return fmt.Errorf("%w: no links staged, counter says %d", ErrCorrupt, n)
	}
	return nil
}

// fold queues links, staged in this order. It looks their fingerprints up in key
// order, so that consecutive lookups walk neighbouring pages, then queues them in
// staging order, so that a host's links keep the order in which they were found.
func (b *batch) fold(links []prepared) error {
	b.count(cStaged, -int64(len(links)))
	if b.counter(cStaged) < 0 {
		return fmt.Errorf("%w: more links staged than counted", ErrCorrupt)
	}
	order := make([]int32, len(links))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return bytes.Compare(links[x].fp[:], links[y].fp[:]) })
	for _, i := range order {
		p := &links[i]
		p.known = b.seen.Get(p.fp[:]) != nil
		p.looked = true
	}
	for i := range links {
		if _, err := b.add(&links[i]); err != nil {
			return err
		}
	}
	// Written now, so that foldStaged sees the nodes they rewrite.
	return b.putNew()
}

// Flush folds all the staged links into the queues now, in as many commits as that
// takes, and returns once they are committed. Next folds by itself before it would
// wait or end the crawl; Flush is for callers that want Stats to count every link
// found so far as queued or as a duplicate.
func (f *Frontier) Flush(ctx context.Context) error {
	for {
		if err := f.foldOnce(ctx); err != nil {
			return err
		}
		f.mu.Lock()
		left := f.counters[cStaged]
		f.mu.Unlock()
		if left == 0 {
			return nil
		}
	}
}

// foldOnce commits one fold of staged links, at most foldNodes nodes' worth.
func (f *Frontier) foldOnce(ctx context.Context) error {
	return f.do(ctx, &op{apply: func(b *batch) error {
		b.folding = true
		return nil
	}})
}
