package frontier

import (
	"context"
	"fmt"
)

// Requeue gives URLs whose results were lost back to their queues, due at once: a URL
// seen before and not in its host's queue now (it was finished) is queued again as
// entries give it, and taken off Stats.Done and its host's Done, on the assumption that
// it had finished (the caller knows: its record was archived and then lost). A URL
// queued already, due now or later, leased or not, is left as it is. A URL never seen is
// added as by Add, limits and all. It returns how many URLs were queued, and returns
// once that is committed, or with ctx.Err() if ctx ends before the write is handed to
// the committer.
//
// Requeue costs a pass over the queue of each host it names: it is meant for repairs
// at the start of a run, not for the crawl's own path.
func (f *Frontier) Requeue(ctx context.Context, entries ...Entry) (int, error) {
	if len(entries) == 0 {
		return 0, f.checkOpen()
	}
	ps := f.prepare(entries)
	n := 0
	err := f.do(ctx, &op{apply: func(b *batch) error {
		queued := make(map[string]map[string]bool) // host → URLs in its queue
		again := make(map[seenKey]bool)            // URLs seen before and requeued by this call
		for i := range ps {
			ok, err := b.requeue(&ps[i], queued, again)
			if err != nil {
				return err
			}
			if ok {
				n++
			}
		}
		return nil
	}})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// requeue queues one prepared entry for Requeue and reports whether it did. queued
// caches the URLs in the queues of the hosts looked at so far; again holds the URLs
// seen before that this call queued again (they are not new to the seen set).
func (b *batch) requeue(p *prepared, queued map[string]map[string]bool, again map[seenKey]bool) (bool, error) {
	if p.reject != "" {
		return b.add(p)
	}
	seen, err := b.seenBefore(p)
	if err != nil {
		return false, err
	}
	if !seen {
		return b.add(p)
	}
	if _, ok := b.newSeen[p.fp]; ok || again[p.fp] {
		return false, nil // queued by this batch
	}
	ht := b.host(p.host, true)
	urls, ok := queued[p.host]
	if !ok {
		var err error
		if urls, err = b.queuedURLs(ht); err != nil {
			return false, err
		}
		queued[p.host] = urls
	}
	if urls[p.e.URL] {
		return false, nil
	}
	b.seq++
	again[p.fp] = true
	b.newQueue = append(b.newQueue, keyValue{queueKey(ht.rec.id, 0, p.e.Priority, p.e.Depth, b.seq), p.val})
	ht.rec.queued++
	if ht.rec.done > 0 {
		ht.rec.done--
		if b.counter(cDone) > 0 {
			b.count(cDone, -1)
		}
	}
	return true, nil
}

// queuedURLs returns the URLs in the queue of a host, due now or later.
func (b *batch) queuedURLs(ht *hostTx) (map[string]bool, error) {
	urls := make(map[string]bool)
	id := ht.rec.id
	err := ht.overlay().each(b.queue, hostPrefix(id), hostEnd(id), func(k, v []byte) error {
		e, _, err := decodeEntry(v)
		if err != nil {
			return fmt.Errorf("%w: queue entry %x of %s", ErrCorrupt, k, ht.name)
		}
		urls[e.URL] = true
		return nil
	})
	return urls, err
}
