package crawl

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/frontier"
)

// seedBatch is how many seed URLs of a seeds file go to the frontier's log in one
// Stage (one commit of it: frontier's stageChunk), with one commit of seeds.db after
// it. Memory holds one batch (the lines, their canonical forms, their entries); a kill
// loses at most one batch's reading, which the next run reads again (the frontier's
// fold drops the seeds queued already). 4,096 rather than 16,384: a batch is held
// several times over while it is staged (the lines, the entries, the frontier's
// prepared links and its copy of them for the record, some 1 KiB a seed), beside
// the fold's index, and the collector's headroom doubles it: 10 million seeds over
// 100,000 hosts peaked at 290 MiB with 16,384, 276 MiB with 4,096 (BENCHMARKS.md,
// "seeds file batches of 4,096").
var seedBatch = 1 << 12 // a variable for tests

// seedsResidentMap bounds the frontier's mapped pages (frontier.resident_map, when
// that is larger) while a seeds file is read: the folds of the seeds read all over
// frontier.db (every host's queue tail, the seen set), and those pages filled the
// whole of resident_map beside the heap at its largest. 10 million seeds over
// 100,000 hosts peaked at 239 MiB with 64 MiB and at 210 MiB with 32 MiB; the
// reading took 1.18 times the CPU (system time: pages mapped again after each drop;
// BENCHMARKS.md, "where a seeds file's peak comes from"). The crawl that follows
// has resident_map again.
var seedsResidentMap int64 = 32 << 20 // a variable for tests

// seedKeysInMemory is the most scope keys of seeds files the scope holds in memory;
// the rest it looks up in seeds.db. A key costs about 85 bytes in a Go map (10.4 MiB
// for 131,072 hosts; 731 MiB for ten million).
var seedKeysInMemory = 1 << 17 // a variable for tests

// maxSeedSkipsLogged is how many skipped lines of a seeds file are logged one by one
// in a run (and handed to OnSeedSkip); the rest are counted.
const maxSeedSkipsLogged = 10

// ErrNoSeeds is returned by Run when the seeds file holds no seed URL, and no seed
// was given otherwise (config.Config.Seeds).
var ErrNoSeeds = errors.New("no seed URL")

// SeedsChangedError is returned by Run when the seeds file changed since an earlier
// run of the crawl read part of it: the part read is no longer what the crawl read,
// so reading on from where it stopped would skip or repeat seeds. Putting the file
// back as it was lets the crawl go on; seeds given in a file of another name are read
// from its start (seeds already queued are not queued twice).
type SeedsChangedError struct {
	Path   string // the seeds file, as configured
	Offset int64  // bytes the crawl had read of it
	Seeds  int64  // seed URLs read from those bytes
	Size   int64  // the file's size now
}

func (e *SeedsChangedError) Error() string {
	return fmt.Sprintf("seeds file %s changed since this crawl read its first %d bytes (%d seeds, now queued): "+
		"its size is now %d and those bytes are not the ones read", e.Path, e.Offset, e.Seeds, e.Size)
}

// SeedsRead is what a run read of the seeds file (config.Config.SeedsFile).
type SeedsRead struct {
	Path    string `json:"path"`    // as configured
	Seeds   int64  `json:"seeds"`   // seed URLs read in this run
	Queued  int64  `json:"queued"`  // URLs new to the frontier's queues in this run: of Seeds, and those a killed run staged without merging
	Skipped int64  `json:"skipped"` // lines read in this run that are not seed URLs
	Bytes   int64  `json:"bytes"`   // bytes of the file read in this run
	Offset  int64  `json:"offset"`  // bytes read over the whole crawl: the position a later run reads on from
	Size    int64  `json:"size"`    // the file's size
	Done    bool   `json:"done"`    // the file is read to its end
	Resumed bool   `json:"resumed"` // this run went on from where an earlier run stopped
	Grown   bool   `json:"grown"`   // the file changed after the part read before (lines added at its end)
}

// SeedsRead returns what Run read of the seeds file; the zero SeedsRead before Run has
// read it, or without a seeds file.
func (c *Crawler) SeedsRead() SeedsRead {
	c.seedsMu.Lock()
	defer c.seedsMu.Unlock()
	return c.seedsRead
}

// scopeOf says which scope keys a crawl's configuration reads: keys stored for
// another one are read again from the files.
func scopeOf(cfg *config.Config) string {
	return cfg.Scope.Mode + " seed-prefixes=" + strconv.FormatBool(len(cfg.Scope.Prefixes) == 0)
}

// addSeeds queues the configured seeds at seed priority, then the seeds file's.
func (c *Crawler) addSeeds(ctx context.Context) error {
	if len(c.cfg.Seeds) > 0 {
		entries := make([]frontier.Entry, 0, len(c.cfg.Seeds))
		for _, s := range c.cfg.Seeds {
			entries = append(entries, frontier.Entry{URL: s, Priority: prioritySeed, Kind: kindPage})
		}
		n, err := c.queueSeeds(ctx, entries, false)
		if errors.Is(err, errHandOffStopped) {
			return ctx.Err()
		}
		if err != nil {
			return err
		}
		c.log.Info("seeds queued", "new", n, "given", len(entries))
	}
	if err := c.readSeedsFile(ctx); err != nil {
		return err
	}
	close(c.seedsIn)
	c.step("done")
	return nil
}

// step calls the seedsStep hook of tests.
func (c *Crawler) step(stage string) {
	if c.seedsStep != nil {
		c.seedsStep(stage)
	}
}

// queueSeeds adds seeds to the frontier, or in a cluster hands those of other shards to
// their owners, and returns how many were new here. With stage, they go to the
// frontier's log (frontier.Stage), to be merged into the queues in large sorted
// batches, and n counts them staged. It returns errHandOffStopped when the cluster
// stopped this process's hand-offs before they were taken.
func (c *Crawler) queueSeeds(ctx context.Context, entries []frontier.Entry, stage bool) (n int, err error) {
	entries, err = c.handOff(ctx, entries)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, err
	}
	if stage {
		n, err = c.front.Stage(ctx, entries...)
	} else {
		n, err = c.front.Add(ctx, entries...)
	}
	if err != nil {
		return n, fmtErr("adding seeds", err)
	}
	return n, nil
}

// openSeeds opens seeds.db when the crawl has a seeds file or read one in an earlier
// run, and gives the scope the keys it holds: a run without the seeds file still has
// the scope of its seeds.
func (c *Crawler) openSeeds() error {
	path := filepath.Join(c.cfg.DataDir, SeedsStateName)
	if c.cfg.SeedsFile == "" {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil
		}
	}
	store, err := openSeedStore(path)
	if err != nil {
		return err
	}
	reset, err := store.checkScope(scopeOf(&c.cfg))
	if err != nil {
		store.Close()
		return err
	}
	if reset {
		c.log.Warn("the scope's mode or prefixes changed since the seeds file was read: it is read again for the new scope (seeds queued before are not queued twice)")
	}
	c.seeds = store
	more, err := store.loadKeys(c.addSeedKey)
	if err != nil {
		return err // closed with the rest
	}
	if more {
		c.spillSeedKeys()
	}
	return nil
}

// spillSeedKeys marks that seeds.db holds scope keys the scope does not hold in memory,
// and has the scope look them up there.
func (c *Crawler) spillSeedKeys() {
	if !c.seeds.spilled.Swap(true) {
		c.scope.SetSeedIndex(c.seeds)
	}
}

// addSeedKey adds a seed key to the scope's memory, and reports false when the memory
// is full (seedKeysInMemory).
func (c *Crawler) addSeedKey(key string) bool {
	if c.scope.SeedKeys() >= seedKeysInMemory {
		return false
	}
	c.scope.AddSeedKey(key)
	return true
}

// readSeedsFile reads the seeds file a batch at a time into the frontier, from where
// an earlier run stopped, recording after each batch how far it has read.
func (c *Crawler) readSeedsFile(ctx context.Context) error {
	name := c.cfg.SeedsFile
	if name == "" {
		return nil
	}
	path, err := filepath.Abs(name)
	if err != nil {
		return fmt.Errorf("seeds file %s: %w", name, err)
	}
	st, ok, err := c.seeds.file(path)
	if err != nil {
		return err
	}
	read := SeedsRead{Path: name, Offset: st.Offset, Size: st.Size, Done: st.Done, Resumed: ok && st.Offset > 0}
	defer func() {
		c.setSeedsRead(read)
		if read.Done && c.OnSeedsRead != nil {
			c.OnSeedsRead(read)
		}
	}()
	info, statErr := os.Stat(name)
	if st.Done && statErr == nil && info.Size() == st.Size && info.ModTime().UnixNano() == st.ModTime {
		c.log.Info("seeds file read in an earlier run: not read again", "path", name, "bytes", st.Offset, "seeds", st.Seeds)
		return nil
	}
	if st.Done && errors.Is(statErr, os.ErrNotExist) {
		c.log.Info("seeds file gone, read to its end in an earlier run", "path", name, "seeds", st.Seeds)
		return nil
	}
	file, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("seeds file: %w", err) // an *fs.PathError names the file
	}
	defer file.Close()
	if info, err = file.Stat(); err != nil {
		return fmt.Errorf("seeds file: %w", err)
	}
	read.Size = info.Size()
	if ok && st.Offset > 0 && (info.Size() != st.Size || info.ModTime().UnixNano() != st.ModTime) {
		// Changed since the last run: lines added at its end are read on; any other
		// change is refused. Telling them apart reads the part read before once.
		same, err := sameSeedsRead(file, info.Size(), &st)
		if err != nil {
			return fmt.Errorf("seeds file: %w", err)
		}
		if !same {
			return &SeedsChangedError{Path: name, Offset: st.Offset, Seeds: st.Seeds, Size: info.Size()}
		}
		read.Grown = true
		c.log.Warn("seeds file changed since the last run, after the part read before, which is as it was: reading on from there",
			"path", name, "from_byte", st.Offset, "size", info.Size())
		if st.Done && info.Size() == st.Offset {
			st.Size, st.ModTime = info.Size(), info.ModTime().UnixNano()
			return c.seeds.commit(path, &st, nil)
		}
		st.Done = false
	}
	if _, err := file.Seek(st.Offset, io.SeekStart); err != nil {
		return fmt.Errorf("seeds file: %w", err)
	}
	if read.Resumed {
		c.log.Info("seeds file: reading on from where the last run stopped", "path", name, "from_byte", st.Offset, "line", st.Line+1)
	}
	if rm := residentMap(c.cfg.Frontier); rm > seedsResidentMap {
		c.front.SetResidentMap(seedsResidentMap)
		defer c.front.SetResidentMap(rm)
	}
	r := config.NewSeedReader(file, st.Offset, st.Line)
	statusAt := time.Now()
	added := c.front.Stats().Added
	for {
		seeds, skipped, rerr := r.Read(seedBatch)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return fmt.Errorf("seeds file %s: %w", name, rerr)
		}
		for _, s := range skipped {
			c.seedSkip(name, s, read.Skipped)
			read.Skipped++
			st.Skipped++
		}
		entries := make([]frontier.Entry, 0, len(seeds))
		keys := make([]string, 0, len(seeds))
		for _, s := range seeds {
			u, err := c.urls.Canonical(s)
			if err == nil {
				var key string
				if key, err = c.scope.SeedKey(u); err == nil {
					entries = append(entries, frontier.Entry{URL: u, Priority: prioritySeed, Kind: kindPage})
					if key != "" && !c.scope.HasSeedKey(key) {
						keys = append(keys, key)
					}
					continue
				}
			}
			// config.ParseSeeds checks what the frontier and the scope take: kept for
			// a URL the canonical form refuses all the same.
			c.seedSkip(name, config.SeedSkip{Line: r.Line(), Text: s, Err: err}, read.Skipped)
			read.Skipped++
			st.Skipped++
		}
		n, err := c.queueSeeds(ctx, entries, true)
		c.step("added")
		if errors.Is(err, errHandOffStopped) {
			// The cluster stopped this process's hand-offs: the batch is read again
			// by the next run.
			c.log.Warn("seeds file: reading stopped, the cluster took no more seeds; the next run reads on", "path", name, "from_byte", st.Offset)
			return ctx.Err()
		}
		if err != nil {
			return err
		}
		read.Seeds += int64(len(entries))
		st.Seeds += int64(len(entries))
		read.Bytes += r.Offset() - st.Offset
		st.Offset, st.Line, st.Done = r.Offset(), r.Line(), rerr != nil
		st.Size, st.ModTime = info.Size(), info.ModTime().UnixNano()
		if st.Hash, err = hashOn(file, st.Hash, read.Offset, st.Offset); err != nil {
			return fmt.Errorf("seeds file %s: %w", name, err)
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		if err := c.seeds.commit(path, &st, keys); err != nil {
			return err
		}
		c.step("committed")
		for _, k := range keys {
			if !c.addSeedKey(k) {
				c.spillSeedKeys()
			}
		}
		read.Offset, read.Done = st.Offset, st.Done
		if now := time.Now(); now.Sub(statusAt) >= c.statusEvery() {
			// A large file takes minutes: crawl status shows how far it is.
			c.setSeedsRead(read)
			if err := c.writeStatus(StateRunning, 0, nil); err != nil {
				c.log.Warn("status file not written", "err", err)
			}
			statusAt = now
		}
		c.log.Debug("seeds file: batch staged", "path", name, "to_byte", st.Offset, "seeds", len(entries), "staged", n)
		if st.Done {
			break
		}
	}
	// The seeds are in the frontier's log; merged into the queues now, they are
	// counted (and the workers find them at once).
	if err := c.front.Flush(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmtErr("adding seeds", err)
	}
	read.Queued = c.front.Stats().Added - added
	if read.Skipped > maxSeedSkipsLogged {
		c.log.Warn("seeds file: more lines skipped", "path", name, "lines", read.Skipped-maxSeedSkipsLogged)
	}
	c.log.Info("seeds file read", "path", name, "seeds", read.Seeds, "new", read.Queued, "skipped", read.Skipped,
		"bytes", read.Bytes, "scope_keys_in_memory", c.scope.SeedKeys(), "scope_keys_on_disk", c.seeds.spilled.Load())
	if st.Seeds == 0 && len(c.cfg.Seeds) == 0 {
		if st.Skipped > 0 {
			return fmt.Errorf("seeds file %s: %w (%d lines skipped)", name, ErrNoSeeds, st.Skipped)
		}
		return fmt.Errorf("seeds file %s: %w", name, ErrNoSeeds)
	}
	return nil
}

func (c *Crawler) setSeedsRead(r SeedsRead) {
	c.seedsMu.Lock()
	defer c.seedsMu.Unlock()
	c.seedsRead = r
}

// seedSkip reports a line of the seeds file that is not a seed URL: the first
// maxSeedSkipsLogged of a run one by one, to OnSeedSkip or as a warning.
func (c *Crawler) seedSkip(name string, s config.SeedSkip, before int64) {
	if before >= maxSeedSkipsLogged {
		return
	}
	if c.OnSeedSkip != nil {
		c.fileLog.Warn("seeds file: line skipped", "path", name, "line", s.Line, "text", s.Text, "err", s.Err)
		c.OnSeedSkip(name, s)
		return
	}
	c.log.Warn("seeds file: line skipped", "path", name, "line", s.Line, "text", s.Text, "err", s.Err)
}

// sameSeedsRead reports whether the file still starts with the st.Offset bytes an
// earlier run read: whether they hash to st.Hash.
func sameSeedsRead(file *os.File, size int64, st *seedFile) (bool, error) {
	if size < st.Offset {
		return false, nil
	}
	h, err := hashOn(file, nil, 0, st.Offset)
	if err != nil {
		return false, err
	}
	return bytes.Equal(h, st.Hash), nil
}

// hashOn feeds bytes from to to of file into the SHA-256 whose state is state (nil: a
// new one, from byte 0) and returns its state after them. The bytes were just read,
// so they come from the page cache.
func hashOn(file *os.File, state []byte, from, to int64) ([]byte, error) {
	h := sha256.New()
	if state != nil {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
			return nil, err
		}
	}
	if _, err := io.Copy(h, io.NewSectionReader(file, from, to-from)); err != nil {
		return nil, err
	}
	return h.(encoding.BinaryMarshaler).MarshalBinary()
}
