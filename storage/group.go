package storage

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Group makes what a page leaves on disk durable with one wait: the WARC records
// written by WARCWriter.Append, the page's pages.jsonl line and its skipped.jsonl
// lines. Pages queue their lines (Queue) and wait (Sync), or both at once (Write),
// or queue and let another wait for them: the crawl's frontier runs Sync before it
// commits the pages' Done outcomes. The leader of a round (group commit, as
// each writer alone does) syncs the WARC file first, then writes every line queued
// before the round in one write per file and syncs those files. A line therefore
// reaches pages.jsonl, even the page cache, only once the records it points at are
// on disk: a crash can lose records and lines, or lines alone, never records alone
// with lines pointing at them. Every page of a round shares its fsyncs.
//
// A round whose lines are all pages.jsonl lines carried in the WARC (each page's
// metadata record holds its line: WARCWriter.Append with Exchange.Page, and the
// record was appended before the line was queued) writes them after the WARC
// sync without syncing pages.jsonl: the WARC makes them durable, and
// PagesWriter.Rebuild writes again, at the next start, those a crash lost. Other
// rounds (a skipped.jsonl line, a page not carried) sync both files as above,
// pages.jsonl's earlier lines with them. pages.jsonl is also synced about once a
// second (SyncEvery) by a goroutine of the Group, at each new WARC file, and at
// Close.
//
// Call Close before closing the writers. A Group is safe for concurrent use.
type Group struct {
	warc    *WARCWriter
	pages   *jsonlFile
	skipped *jsonlFile
	fl      flusher

	mu         sync.Mutex
	seq        uint64 // Writes queued so far
	pagesBuf   []byte // lines queued for pages.jsonl since the last round began
	skippedBuf []byte // lines queued for skipped.jsonl since the last round began
	slow       bool   // a line queued since the last round began is not carried in the WARC
	closed     bool
	afterWARC  func() // tests: runs in a round after the WARC sync, before the lines are written

	poke chan struct{} // asks the syncing goroutine to sync pages.jsonl now
	stop chan struct{} // closed by Close: the syncing goroutine ends
	done chan struct{} // closed when the syncing goroutine has ended
}

// SyncEvery is how often a Group syncs pages.jsonl lines that rounds wrote
// without a sync (their durability comes from the WARC records that carry them).
const SyncEvery = time.Second

// NewGroup returns a Group over the three writers, which stay usable on their own:
// their own writes keep their own durability.
func NewGroup(w *WARCWriter, pages *PagesWriter, skipped *SkippedWriter) *Group {
	return newGroup(w, pages, skipped, SyncEvery)
}

// newGroup is NewGroup syncing pages.jsonl every interval.
func newGroup(w *WARCWriter, pages *PagesWriter, skipped *SkippedWriter, every time.Duration) *Group {
	g := &Group{warc: w, pages: pages.file, skipped: skipped.file,
		poke: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.mu.Lock()
	w.onRotate = g.pokeSync
	w.mu.Unlock()
	go g.syncLoop(every)
	return g
}

// pokeSync asks the syncing goroutine to sync pages.jsonl; it never blocks.
func (g *Group) pokeSync() {
	select {
	case g.poke <- struct{}{}:
	default:
	}
}

// syncLoop syncs pages.jsonl every interval and when poked, until Close. It holds
// no lock a page's wait needs: a round that syncs pages.jsonl meanwhile shares
// its sync. A failed sync is sticky: every later wait returns it.
func (g *Group) syncLoop(every time.Duration) {
	defer close(g.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
		case <-g.poke:
		}
		if err := g.pages.syncAll(); err != nil && err != ErrClosed {
			g.fl.fail(err)
		}
	}
}

// Write queues pg's pages.jsonl line (nil: none) and one skipped.jsonl line per
// skip, and returns once they, and every WARC record Append wrote before the call,
// are durable; or with an error, or ctx's error (the lines may still be written and
// become durable). Writing nothing returns at once. It is Queue, then a wait for a
// round as Sync makes, then PersistIndex. It is safe for concurrent use.
func (g *Group) Write(ctx context.Context, pg *Page, skips ...*Skip) error {
	seq, err := g.queue(ctx, pg, skips)
	if err != nil || seq == 0 {
		return err
	}
	if err := g.fl.wait(ctx, seq, g.prepare, func(syncPoint) {}); err != nil {
		return err
	}
	return g.PersistIndex()
}

// Queue queues pg's pages.jsonl line (nil: none) and one skipped.jsonl line per
// skip, and returns without waiting: the next round, which Sync, Write or Close
// starts, writes them after syncing the WARC file, so they never reach the file
// before the records Append wrote before the call. Nothing is durable when Queue
// returns: a caller that must know (before marking the page done) calls Sync after
// it. Queueing nothing returns nil. It returns ErrClosed after Close, and wraps
// ErrInvalid for a line that cannot be encoded. It is safe for concurrent use.
func (g *Group) Queue(pg *Page, skips ...*Skip) error {
	_, err := g.queue(context.Background(), pg, skips)
	return err
}

// queue queues the lines and returns their number in the Group's writes (0 when
// there are none).
func (g *Group) queue(ctx context.Context, pg *Page, skips []*Skip) (uint64, error) {
	if pg == nil && len(skips) == 0 {
		return 0, nil
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var page, skipped []byte
	if pg != nil {
		line, err := pg.MarshalJSON()
		if err != nil {
			return 0, fmt.Errorf("storage: %w: page %s: %v", ErrInvalid, pg.URL, err)
		}
		page = append(line, '\n')
	}
	for _, s := range skips {
		line, err := s.MarshalJSON()
		if err != nil {
			return 0, fmt.Errorf("storage: %w: skipped %s: %v", ErrInvalid, s.URL, err)
		}
		skipped = append(append(skipped, line...), '\n')
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return 0, ErrClosed
	}
	g.pagesBuf = append(g.pagesBuf, page...)
	g.skippedBuf = append(g.skippedBuf, skipped...)
	if len(skipped) > 0 || pg != nil && !pg.carried {
		g.slow = true
	}
	g.seq++
	return g.seq, nil
}

// Sync returns once every line queued before the call, and every WARC record
// Append wrote before the call, is durable (at once when they are already), or
// with the error of a write or a sync, which stays: nothing is durable through the
// Group after one fails. Concurrent calls share rounds. A round syncs the WARC file,
// then writes the lines queued so far in one write per file and syncs those files.
// Sync leaves the digest index alone (see PersistIndex). After Close it returns
// what Close's round returned.
func (g *Group) Sync() error {
	records := g.warc.written()
	g.mu.Lock()
	seq := g.seq
	g.mu.Unlock()
	if err := g.fl.wait(context.Background(), seq, g.prepare, func(syncPoint) {}); err != nil {
		return err
	}
	// The round synced the WARC file before the lines; records appended with no
	// line queued after them may have come after that sync (or with no round at
	// all). Those of the round cost nothing here.
	return g.warc.syncThrough(records)
}

// PersistIndex moves the payload digests and captures of the WARC records made
// durable so far into the WARC's digest index (WARCWriter's, as after
// WriteExchange), once enough of them wait to be worth a write (those of 1,024
// pages); it returns at once when another call is writing. The index may lag the WARC files: OpenWARC
// rebuilds what a crash lost from them. It is safe for concurrent use.
func (g *Group) PersistIndex() error { return g.warc.persist(persistBatch) }

// prepare takes the lines queued so far into a round: its leader syncs them.
func (g *Group) prepare() syncPoint {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := &groupRound{g: g, pages: g.pagesBuf, skipped: g.skippedBuf, slow: g.slow}
	g.pagesBuf, g.skippedBuf, g.slow = nil, nil, false
	return syncPoint{seq: g.seq, f: r}
}

// groupRound is what one round of a Group makes durable, in order.
type groupRound struct {
	g              *Group
	pages, skipped []byte
	slow           bool // some line is not carried in the WARC: sync the lines too
}

// Sync syncs the WARC file, then writes and syncs the lines; a round whose lines
// are all carried in the WARC writes them without syncing. The pages.jsonl and
// skipped.jsonl lines do not depend on each other: they are written in parallel.
func (r *groupRound) Sync() error {
	g := r.g
	if err := g.warc.syncWritten(); err != nil {
		return err
	}
	if g.afterWARC != nil {
		g.afterWARC()
	}
	if !r.slow {
		if len(r.pages) == 0 {
			return nil
		}
		return g.pages.writeOnly(r.pages)
	}
	var skipErr error
	var wg sync.WaitGroup
	if len(r.skipped) > 0 {
		wg.Go(func() { skipErr = g.skipped.writeSync(r.skipped) })
	}
	var err error
	if len(r.pages) > 0 {
		err = g.pages.writeSync(r.pages)
	}
	wg.Wait()
	if err == nil {
		err = skipErr
	}
	return err
}

// SyncStats returns the Group's rounds (each syncs the WARC file and the JSON-lines
// files that got lines) and the Writes that waited for one.
func (g *Group) SyncStats() SyncStats { return g.fl.stats() }

// Close waits for the rounds in flight and makes the lines still queued durable
// (those of Writes that gave up waiting). Writes after Close return ErrClosed;
// Close again returns nil. It closes none of the writers.
func (g *Group) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	seq := g.seq
	g.mu.Unlock()
	close(g.stop)
	<-g.done
	// The error is a write's or a sync's, already naming the file and the package.
	if err := g.fl.await(context.Background(), seq, g.prepare, func(syncPoint) {}); err != nil {
		return err
	}
	return g.pages.syncAll()
}
