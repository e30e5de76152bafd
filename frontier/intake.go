package frontier

import "context"

// stageChunk is the most entries one commit of Stage writes to the log: each commit
// holds its entries, prepared, and its record in memory until it is written.
var stageChunk = 16384 // a variable for tests

// Stage writes entries to the Done log as staged links, as Done does with a page's
// links when Options.LinkBatch is set, and returns how many it staged. It is the
// cheap way in for many URLs whose caller needs no answer per URL (a hand-off from
// another process, a large seed list): the entries are appended to the log in
// commits of at most 16,384, each writing one record at the end of the staged
// bucket, and a later fold merges them into the seen set and the queues sorted by
// seen key, with the page's links, rewriting about one queue page per host per fold
// rather than per Stage.
//
// Entries refused for their URL or their depth are counted in Stats.Refused at once,
// as Add counts them, and are not staged. The others are counted in Stats.Staged
// until they are folded: unlike Add, which decides at once, duplicates (against the
// queued URLs and between staged ones, the first staged winning) and the limits
// (MaxTotal, MaxQueuedPerHost) are decided at the fold, in seen-key order, and the
// URLs Next may lease are those folded. Each entry gets its queue sequence number
// when staged, so a host's URLs of one priority and depth queue in the order given,
// after those added or staged before.
//
// The fold runs with the commit that brings the staged links to Options.LinkBatch,
// or, with LinkBatch 0 or less, to a fold's span (Options.FoldLinks, 1,048,576 by
// default), goes on
// with the commits that follow, and runs early when Next finds no URL ready or Flush
// is called: a caller that wants the entries counted as added or duplicates calls
// Flush.
//
// The staged entries are durable once Stage returns. If ctx ends or the Frontier
// fails part way, the entries of the commits made are staged, in the order given:
// Stage returns how many with the error. It returns ctx.Err() only if ctx ends
// before a commit is handed to the committer, ErrReadOnly on a read-only Frontier
// and ErrClosed after Close.
func (f *Frontier) Stage(ctx context.Context, entries ...Entry) (staged int, err error) {
	if err := f.checkOpen(); err != nil {
		return 0, err
	}
	for len(entries) > 0 {
		n := min(len(entries), stageChunk)
		ps := f.prepare(entries[:n])
		k := 0
		err := f.do(ctx, &op{apply: func(b *batch) error {
			k = 0
			for i := range ps {
				p := &ps[i]
				if p.reject != "" {
					b.count(pRefused+p.reject, 1)
					continue
				}
				b.stage(p)
				k++
			}
			return nil
		}})
		if err != nil {
			return staged, err
		}
		staged += k
		entries = entries[n:]
	}
	return staged, nil
}
