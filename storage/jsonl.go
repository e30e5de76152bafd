package storage

import (
	"context"
	"fmt"
	"os"
	"sync"
)

// jsonlFile is an append-only file of JSON lines (pages.jsonl, skipped.jsonl) whose
// appends return once they are durable, concurrent appenders sharing fsyncs. Opening
// it repairs a tail torn by a crash (see repairTail). It is safe for concurrent use.
type jsonlFile struct {
	name   string // the file's base name, for errors
	noSync bool
	fl     flusher
	repair TailRepair

	mu     sync.Mutex
	f      *os.File
	seq    uint64
	closed bool
	err    error
	writes sync.WaitGroup
}

// openJSONL opens the JSON-lines file at path for appending, creating it if missing,
// and repairs its tail.
func openJSONL(path, name string, noSync bool) (*jsonlFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, ioError("open", name, err)
	}
	r, err := repairTail(f, noSync)
	if err != nil {
		f.Close()
		return nil, ioError("repair", name, err)
	}
	return &jsonlFile{name: name, noSync: noSync, f: f, repair: r}, nil
}

// append writes lines, whole lines each ending in a newline, in one write and returns
// once they are durable. After a failed write every later append fails too.
func (j *jsonlFile) append(ctx context.Context, lines []byte) error {
	seq, err := j.write(lines)
	if err != nil {
		return err
	}
	defer j.writes.Done()
	if j.noSync {
		return nil
	}
	return j.fl.wait(ctx, seq, j.point, func(syncPoint) {})
}

// writeSync writes lines, whole lines each ending in a newline, in one write and
// syncs the file: for the leader of a Group's round, which has waited for the WARC
// records the lines point at. It is no writer's wait and is not counted in fl.
func (j *jsonlFile) writeSync(lines []byte) error {
	seq, err := j.write(lines)
	if err != nil {
		return err
	}
	defer j.writes.Done()
	if j.noSync {
		return nil
	}
	// Through the file's own flusher, so that a round of append shares this sync.
	return j.fl.await(context.Background(), seq, j.point, func(syncPoint) {})
}

// writeOnly writes lines, whole lines each ending in a newline, in one write,
// without a sync: for the leader of a Group's round whose lines the WARC carries.
// syncAll, a later writeSync or close makes them durable.
func (j *jsonlFile) writeOnly(lines []byte) error {
	if _, err := j.write(lines); err != nil {
		return err
	}
	j.writes.Done()
	return nil
}

// syncAll makes every line written so far durable, sharing a sync with the
// file's other writers. After close it returns ErrClosed (close synced them).
func (j *jsonlFile) syncAll() error {
	j.mu.Lock()
	seq, closed := j.seq, j.closed
	j.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if j.noSync {
		return nil
	}
	return j.fl.await(context.Background(), seq, j.point, func(syncPoint) {})
}

// write writes lines in one write and returns the sequence number a sync must reach
// for them to be durable. When it returns no error the caller holds j.writes, so that
// close waits for it, and calls j.writes.Done once it is finished with the file.
func (j *jsonlFile) write(lines []byte) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return 0, ErrClosed
	}
	if j.err != nil {
		return 0, j.err
	}
	if _, err := j.f.Write(lines); err != nil {
		j.err = ioError("write", j.name, err)
		j.fl.fail(j.err)
		return 0, j.err
	}
	j.writes.Add(1)
	j.seq++
	return j.seq, nil
}

// point is where a sync of the file would reach.
func (j *jsonlFile) point() syncPoint {
	j.mu.Lock()
	defer j.mu.Unlock()
	return syncPoint{seq: j.seq, f: j.f}
}

// close waits for appends in flight, then syncs and closes the file. Appends after
// close return ErrClosed; close again returns nil.
func (j *jsonlFile) close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	j.closed = true
	j.mu.Unlock()
	j.writes.Wait()
	var err error
	if !j.noSync {
		err = j.f.Sync()
	}
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("storage: close %s: %w", j.name, err)
	}
	return nil
}
