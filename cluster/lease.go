package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Fencing of shard ownership. A process may fetch the hosts of its shards only while it
// holds its lease: Config.Lease from the moment it sent its last report that the server
// stored. Another process may take a shard over only once the owner's report is older
// than Config.StaleAfter, longer than the lease, and only by rewriting the owner's report
// over the revision it read (a compare-and-set): the owner writes its reports over its
// own last revision too, so its next report fails, and it reads there which shards it
// lost. A process cut off from NATS therefore stops fetching its hosts within the lease,
// before anyone may take them over, and on reconnecting either renews the lease (no one
// took over) or learns that its shards are someone else's.

// ErrReplaced is returned by Report once a later run of the same name has joined the
// crawl: the report's key is that run's now, and this one has lost every shard.
var ErrReplaced = errors.New("cluster: replaced by a later run of the same name")

// ErrShardLost is returned by AwaitLease for a URL whose shard this process does not
// own: another process took it over while this one could not reach NATS, or it was
// never this process's. The URL should go to the shard's owner (Publish) rather than
// be fetched here.
var ErrShardLost = errors.New("cluster: the URL's shard is owned by another process")

// reportTimeout bounds one Report whose context has no deadline.
const reportTimeout = 5 * time.Second

// claimAttempts is how often Join reads the reports again when one changed under it.
const claimAttempts = 5

// Lease returns the lease (Config.Lease or its default).
func (n *Node) Lease() time.Duration { return n.cfg.Lease }

// ErrLeaseLapsed is returned by CheckLease while this process does not hold its lease:
// it has not reached NATS for longer than Config.Lease.
var ErrLeaseLapsed = errors.New("cluster: lease lapsed: NATS not reached for longer than the lease")

// CheckLease is AwaitLease without the wait: nil when this process may fetch rawURL
// now, ErrShardLost for a URL of a shard it does not own, ErrLeaseLapsed while it does
// not hold its lease.
func (n *Node) CheckLease(rawURL string) error {
	_, err := n.checkLease(n.shardOrNone(rawURL))
	return err
}

// shardOrNone returns rawURL's shard, or -1 for a URL without one.
func (n *Node) shardOrNone(rawURL string) int {
	shard, err := n.cache.shardOf(rawURL)
	if err != nil {
		return -1
	}
	return shard
}

// checkLease is CheckLease for shard (-1: none). With ErrLeaseLapsed it returns what
// to wait for: the lease's start when it has not started, or a change of the lease.
func (n *Node) checkLease(shard int) (leaseWait, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if shard >= 0 && !n.owned[shard] {
		return leaseWait{}, ErrShardLost
	}
	now := time.Now()
	if !now.Before(n.leaseFrom) && now.Before(n.leaseUntil) {
		return leaseWait{}, nil
	}
	w := leaseWait{moved: n.leaseMoved}
	if now.Before(n.leaseFrom) && n.leaseFrom.Before(n.leaseUntil) {
		w.after = n.leaseFrom.Sub(now)
	}
	return w, ErrLeaseLapsed
}

// leaseWait is what a caller of AwaitLease waits for while the lease has lapsed.
type leaseWait struct {
	moved <-chan struct{} // closed when the lease changes
	after time.Duration   // > 0: the lease starts then
}

// AwaitLease returns nil when this process may fetch rawURL now: it owns the URL's
// shard (a URL without a shard counts as owned) and holds its lease. While the lease
// has lapsed (NATS unreachable for longer than Config.Lease), it waits until a report
// renews it or ctx ends (ctx's error). It returns ErrShardLost at once for a URL of a
// shard this process does not own, or no longer owns. Call it before a request to a
// host, and CheckLease just before sending it: the lease then bounds how long after
// its last contact with NATS a process still sends requests.
func (n *Node) AwaitLease(ctx context.Context, rawURL string) error {
	shard := n.shardOrNone(rawURL)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		w, err := n.checkLease(shard)
		if err != ErrLeaseLapsed {
			return err
		}
		var wake <-chan time.Time
		if w.after > 0 {
			if timer == nil {
				timer = time.NewTimer(w.after)
			} else {
				timer.Reset(w.after)
			}
			wake = timer.C
		}
		select {
		case <-w.moved:
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// HoldsLease reports whether this process holds its lease now.
func (n *Node) HoldsLease() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := time.Now()
	return !now.Before(n.leaseFrom) && now.Before(n.leaseUntil)
}

// renew extends the lease to Lease after sent, the moment a stored report was sent.
// n.mu is held.
func (n *Node) renew(sent time.Time) {
	if until := sent.Add(n.cfg.Lease); until.After(n.leaseUntil) {
		n.leaseUntil = until
		n.moveLease()
	}
}

// moveLease wakes AwaitLease's waiters. n.mu is held.
func (n *Node) moveLease() {
	close(n.leaseMoved)
	n.leaseMoved = make(chan struct{})
}

// reconcile is called when this process's report changed since it last wrote it: it
// reads it, adopts its revision, and gives up the shards another process took over
// (all of them if a later run of the same name wrote it), logging each loss.
func (n *Node) reconcile(ctx context.Context) error {
	e, err := n.kv.Get(ctx, keyNodePrefix+n.cfg.Name)
	var rev uint64
	var s State
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		// Deleted by hand: this process writes it anew.
	case err != nil:
		return fmt.Errorf("cluster: report: read it back: %w", err)
	default:
		rev = e.Revision()
		if err := json.Unmarshal(e.Value(), &s); err != nil {
			return fmt.Errorf("cluster: report: read it back: %w", err)
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	lost := map[int]string{}
	if rev != 0 && s.Run != n.run {
		// The key is the later run's now: this one never writes it again.
		n.replaced = true
		for _, sh := range n.own {
			lost[sh] = s.Name + " (a later run of the same name)"
		}
	}
	n.rev = rev
	for sh, by := range s.TakenOver {
		if sh >= 0 && sh < n.shards && n.owned[sh] {
			lost[sh] = by
		}
	}
	if len(lost) == 0 {
		return nil
	}
	defer n.moveLease()
	for sh, by := range lost {
		n.owned[sh] = false
		n.lost[sh] = by
	}
	n.own = slices.DeleteFunc(n.own, func(sh int) bool { return !n.owned[sh] })
	shards := slices.Sorted(maps.Keys(lost))
	takers := map[string]bool{}
	for _, by := range lost {
		takers[by] = true
	}
	n.cfg.Log.Error("cluster: shards taken over by another process while this one could not reach NATS: "+
		"it no longer fetches their hosts and hands their queued URLs to the new owner",
		"shards", FormatShards(shards), "taken_by", slices.Sorted(maps.Keys(takers)), "still_owned", FormatShards(n.own))
	return nil
}

// claim takes this process's place in the crawl: it refuses shards that a running
// process owns (a fresh report) and takes over those of processes whose reports are
// stale or stopped, by rewriting their reports over the revision it read. It records
// the revision of the previous run's report, over which Join then writes this run's,
// and when the lease starts: at once, unless a previous run of the same name may still
// hold one, then when that would have lapsed.
func (n *Node) claim(ctx context.Context) error {
	for range claimAttempts {
		states, err := readStates(ctx, n.kv)
		if err != nil {
			return err
		}
		var self uint64
		var notBefore time.Time // wall clock: when no earlier run of this name holds a lease
		changed := false
		for _, e := range states {
			if e.Name == n.cfg.Name {
				self = e.rev
				if !e.Stopped {
					notBefore = e.Updated.Add(n.cfg.Lease)
				}
				continue
			}
			var take []int
			for _, sh := range e.Shards {
				if sh >= 0 && sh < n.shards && n.owned[sh] {
					take = append(take, sh)
				}
			}
			if len(take) == 0 {
				continue
			}
			if e.live(n.cfg.StaleAfter) {
				return fmt.Errorf("cluster: shard %d is owned by running process %s (last report %s ago)",
					take[0], e.Name, time.Since(e.Updated).Round(time.Second))
			}
			// Stale: its lease lapsed at e.Updated+Lease, before StaleAfter.
			err := n.takeOver(ctx, e, take)
			if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
				changed = true // it reported meanwhile: read again
				break
			}
			if err != nil {
				return err
			}
		}
		if changed {
			continue
		}
		n.mu.Lock()
		n.rev = self
		if wait := time.Until(notBefore); wait > 0 {
			n.leaseFrom = time.Now().Add(wait)
			n.cfg.Log.Warn("cluster: an earlier run of this process reported moments ago: fetching waits until its lease has lapsed",
				"wait", wait.Round(time.Millisecond).String())
		}
		n.mu.Unlock()
		return nil
	}
	return errors.New("cluster: join: the processes' reports kept changing; try again")
}

// takeOver rewrites e's report over its revision without the shards take, which it
// lists as taken over by this process. e's process, if it still runs, finds that at its
// next report.
func (n *Node) takeOver(ctx context.Context, e entry, take []int) error {
	s := e.State
	s.Shards = slices.DeleteFunc(slices.Clone(s.Shards), func(sh int) bool { return slices.Contains(take, sh) })
	s.TakenOver = maps.Clone(s.TakenOver)
	if s.TakenOver == nil {
		s.TakenOver = map[int]string{}
	}
	for _, sh := range take {
		s.TakenOver[sh] = n.cfg.Name
		delete(s.Acked, sh)
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("cluster: take over shards of %s: %w", e.Name, err)
	}
	if _, err := n.kv.Update(ctx, keyNodePrefix+e.Name, data, e.rev); err != nil {
		return fmt.Errorf("cluster: take over shards of %s: %w", e.Name, err)
	}
	n.cfg.Log.Warn("cluster: took over shards of a process whose reports stopped",
		"shards", FormatShards(take), "from", e.Name, "last_report", e.Updated, "stopped", e.Stopped)
	return nil
}
