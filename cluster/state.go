package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// State is what a process reports about itself in the crawl's state bucket, under the
// key "node.<Name>". Report fills in the fields marked "set by Report"; the engine fills
// in the rest.
type State struct {
	Name   string `json:"name"`   // the process's name (set by Report)
	Shards []int  `json:"shards"` // the shards it owns (set by Report)
	// Idle says the process has nothing to do: nothing due, nothing leased, nothing
	// waiting to be published. Report clears it if links were taken in since the
	// previous Report, as the engine may have looked before they arrived.
	Idle   bool  `json:"idle"`
	Queued int64 `json:"queued"` // URLs in its frontier
	// Staged counts the links its frontier holds found and not yet sorted into the
	// queues (frontier.Stats.Staged): durable, but neither deduplicated nor queued yet.
	Staged      int64   `json:"staged,omitempty"`
	Leased      int64   `json:"leased"`        // URLs being fetched
	Pages       int64   `json:"pages"`         // pages fetched by this run
	Errors      int64   `json:"errors"`        // fetch errors of this run
	PagesPerSec float64 `json:"pages_per_sec"` // recent fetch rate, pages per second
	Published   int64   `json:"published"`     // links handed off by this run (set by Report)
	Consumed    int64   `json:"consumed"`      // links taken in by this run (set by Report)
	// Acked is, per owned shard, the consumer sequence (deliveries of the shard's
	// consumer) up to which the process has taken in that shard's links (set by Report;
	// see Finished). Not the stream's sequence: NATS Server 2.9 moves a filtered
	// consumer's ack floor past other subjects' messages when nothing is pending.
	Acked   map[int]uint64 `json:"acked,omitempty"`
	Updated time.Time      `json:"updated"` // when the report was made (set by Report)
	// Stopped says the process has exited (Ctrl-C, or the end of the crawl). A stopped
	// process's shards wait for it to be started again, unless it stopped idle.
	Stopped bool `json:"stopped"`
	// Run identifies the run of the process that wrote the report, drawn at random by
	// Join (set by Report): a report of the same name with another Run was written by a
	// later run, which has replaced this one.
	Run string `json:"run,omitempty"`
	// TakenOver lists, per shard, the process that took the shard over from this one
	// after this one's reports had gone stale (written by that process's Join, and kept
	// by Report). This process no longer owns those shards.
	TakenOver map[int]string `json:"taken_over,omitempty"`
}

// live reports whether s is the report of a running process: not stopped, and younger
// than staleAfter.
func (s *State) live(staleAfter time.Duration) bool {
	return !s.Stopped && time.Since(s.Updated) <= staleAfter
}

// Report writes s as this process's state. It sets Name, Shards, Published, Consumed,
// Acked, Run, TakenOver and Updated, and clears Idle if links were taken in since the
// previous Report. Call it every few seconds and on change, with s made just before the
// call: Finished relies on it, and so does the lease (see AwaitLease), which each
// report that the server stores renews. Simultaneous calls are written in the order
// they took their snapshot.
//
// The report is written only over this process's previous one (the revision is the
// fencing token): if another process took shards over in between, Report finds it,
// gives those shards up and logs it, and the report it then writes no longer claims
// them.
func (n *Node) Report(ctx context.Context, s State) error {
	n.reportMu.Lock()
	defer n.reportMu.Unlock()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, reportTimeout)
		defer cancel()
	}
	for range 3 {
		n.mu.Lock()
		replaced := n.replaced
		n.mu.Unlock()
		if replaced {
			return ErrReplaced
		}
		err := n.writeReport(ctx, s)
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return err
		}
		if err := n.reconcile(ctx); err != nil {
			return err
		}
	}
	return errors.New("cluster: report: the report keeps changing under this process")
}

// writeReport makes and writes one report over revision n.rev and renews the lease if
// the server stored it.
func (n *Node) writeReport(ctx context.Context, s State) error {
	sent := time.Now() // before Updated: the lease never outlasts what others read
	n.mu.Lock()
	s.Name = n.cfg.Name
	s.Shards = slices.Clone(n.own)
	s.Run = n.run
	if len(n.lost) > 0 {
		s.TakenOver = maps.Clone(n.lost)
	}
	s.Published = n.published.Load()
	s.Consumed = n.consumed.Load()
	if n.intakes != n.reportedIntakes {
		s.Idle = false
	}
	intakes := n.intakes
	s.Acked = make(map[int]uint64, len(n.acked))
	for k, v := range n.acked {
		if n.owned[k] {
			s.Acked[k] = v
		}
	}
	rev := n.rev
	n.mu.Unlock()
	s.Updated = time.Now().UTC()
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("cluster: report: %w", err)
	}
	rev, err = n.kv.Update(ctx, keyNodePrefix+n.cfg.Name, data, rev)
	if err != nil {
		return fmt.Errorf("cluster: report: %w", err)
	}
	n.mu.Lock()
	n.rev = rev
	n.reportedIntakes = intakes
	n.renew(sent)
	n.mu.Unlock()
	return nil
}

// entry is a State read from the bucket with its revision.
type entry struct {
	State
	rev uint64
}

// readStates returns every process's last report, sorted by name. Reports that cannot
// be read are skipped.
func readStates(ctx context.Context, kv jetstream.KeyValue) ([]entry, error) {
	w, err := kv.Watch(ctx, keyNodePrefix+"*", jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("cluster: read states: %w", err)
	}
	defer w.Stop()
	var out []entry
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return nil, errors.New("cluster: read states: watch ended")
			}
			if e == nil { // the initial values are all delivered
				slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.Name, b.Name) })
				return out, nil
			}
			var s State
			if json.Unmarshal(e.Value(), &s) == nil {
				out = append(out, entry{State: s, rev: e.Revision()})
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("cluster: read states: %w", ctx.Err())
		}
	}
}

// owners returns, per shard, the latest report of a process that claims it (nil if none).
func owners(states []entry, shards int) []*entry {
	own := make([]*entry, shards)
	for i := range states {
		e := &states[i]
		for _, s := range e.Shards {
			if s >= 0 && s < shards && (own[s] == nil || own[s].rev < e.rev) {
				own[s] = e
			}
		}
	}
	return own
}

// Finished reports whether the whole crawl has ended: every shard 0..Shards-1 is owned
// by a process whose latest report is idle (and younger than StaleAfter unless the
// process stopped), every running process that owns no shard (a publisher) is idle,
// every shard's consumer has no pending and no unacknowledged batch (one the stream no
// longer holds does not count: see waiting), every owner's report covers what its
// consumers acknowledged (so links taken in after the report are not missed), and all
// of this held, unchanged, at the previous call too. The first true answer comes
// therefore at the earliest on the second call: call it periodically (every few
// seconds) once the process itself is idle. A shard that keeps it waiting, unchanged,
// while every process is idle is logged as an error (see stuck).
func (n *Node) Finished(ctx context.Context) (bool, error) {
	sig, ok, err := n.check(ctx)
	if err != nil {
		return false, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	prev := n.lastCheck
	n.lastCheck = sig
	return ok && sig == prev, nil
}

// check makes one Finished check. It returns ok and a signature of what it saw.
func (n *Node) check(ctx context.Context) (sig string, ok bool, err error) {
	states, err := readStates(ctx, n.kv)
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, e := range states {
		if len(e.Shards) == 0 && !e.Idle && e.live(n.cfg.StaleAfter) {
			n.stuck(nil)
			return "", false, nil // a running process that owns nothing may still publish
		}
		fmt.Fprintf(&b, "%s:%d:%d;", e.Name, e.Published, e.Consumed)
	}
	own := owners(states, n.shards)
	for _, e := range own {
		if e == nil || !e.Idle || (!e.Stopped && time.Since(e.Updated) > n.cfg.StaleAfter) {
			n.stuck(nil)
			return "", false, nil
		}
	}
	si, err := n.stream.Info(ctx, jetstream.WithSubjectFilter(subjectsOf(n.cfg.Stream)))
	if err != nil {
		return "", false, fmt.Errorf("cluster: stream info: %w", err)
	}
	for s, e := range own {
		info, err := n.consumerInfo(ctx, s)
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		inStream := si.State.Subjects[subjectOf(n.cfg.Stream, s)]
		if waiting(info, inStream) || e.Acked[s] < info.AckFloor.Consumer {
			n.stuck(&stuckShard{shard: s, owner: e.Name, acked: e.Acked[s], info: info, inStream: inStream})
			return "", false, nil
		}
		fmt.Fprintf(&b, "%d:%s:%d;", s, e.Name, info.AckFloor.Consumer)
	}
	n.stuck(nil)
	fmt.Fprintf(&b, "last:%d", si.State.LastSeq)
	return b.String(), true, nil
}

// stuckShard is a shard that keeps the crawl from ending while every process is idle,
// as a Finished check saw it.
type stuckShard struct {
	shard    int
	owner    string
	acked    uint64 // the owner's report's Acked for the shard
	info     *jetstream.ConsumerInfo
	inStream uint64 // the stream's batches of the shard
	since    time.Time
	logged   bool
}

// stuckAfter is how long a shard may keep the crawl from ending while every process is
// idle before Finished says so in the log: far longer than a batch takes to be
// delivered again (AckWait) or to be found in the stream by its owner (leftovers: two
// looks an AckWait apart, each after a pull that brought nothing).
func (n *Node) stuckAfter() time.Duration { return 5*n.cfg.AckWait + 4*fetchWait }

// stuck records the shard a Finished check waited on with every process idle (nil if
// the check passed, or waited on a busy process) and logs an error, once, when one
// shard has waited, its consumer and stream unchanged, for longer than stuckAfter: a state of the
// NATS server that neither the owner nor Finished can reconcile. The crawl then goes on
// waiting (ending it would lose that shard's batches); the log says what it waits on.
func (n *Node) stuck(s *stuckShard) {
	n.mu.Lock()
	prev := n.stuckOn
	n.stuckOn = s
	switch {
	case s == nil:
	case prev == nil || prev.shard != s.shard || prev.info.Delivered.Consumer != s.info.Delivered.Consumer ||
		prev.info.AckFloor.Consumer != s.info.AckFloor.Consumer || prev.inStream != s.inStream:
		s.since = time.Now()
	default:
		s.since, s.logged = prev.since, prev.logged
	}
	log := s != nil && !s.logged && time.Since(s.since) >= n.stuckAfter()
	if log {
		s.logged = true
	}
	n.mu.Unlock()
	if !log {
		return
	}
	n.cfg.Log.Error("cluster: the crawl cannot end: every process is idle but a shard's hand-off queue "+
		"still counts batches for its owner that nothing delivers; the NATS server's state may be damaged "+
		"(a server killed with SIGKILL?). The processes keep waiting",
		"shard", s.shard, "owner", s.owner, "waited", time.Since(s.since).Round(time.Second),
		"pending", s.info.NumPending, "ack_pending", s.info.NumAckPending,
		"delivered", s.info.Delivered.Stream, "ack_floor", s.info.AckFloor.Stream,
		"ack_floor_consumer", s.info.AckFloor.Consumer, "owner_acked", s.acked, "in_stream", s.inStream)
}

// waiting reports whether a shard's consumer, in state info, still has batches for its
// owner: batches not yet delivered, or delivered and not acknowledged while the stream
// still holds batches of the shard (inStream). With work-queue retention an
// acknowledged batch leaves the stream; a nats-server 2.9 (Debian 12's) killed with
// SIGKILL can come back having removed a batch whose acknowledgement its consumer
// state lost, and then counts that batch as delivered and unacknowledged until the
// stream's first sequence passes it, unable to deliver it again ("error looking up
// message for consumer: deleted message"): trusting the consumer alone, the crawl
// would not end. If the stream also holds a batch of the shard that the consumer will
// not deliver (its removal lost), the owner takes that one from the stream and deletes
// it (see leftovers), and inStream falls to zero.
func waiting(info *jetstream.ConsumerInfo, inStream uint64) bool {
	return info.NumPending > 0 || info.NumAckPending > 0 && inStream > 0
}

// consumerInfo reads the state of shard's consumer from the server.
func (n *Node) consumerInfo(ctx context.Context, shard int) (*jetstream.ConsumerInfo, error) {
	c, err := n.stream.Consumer(ctx, consumerOf(shard))
	if err != nil {
		return nil, fmt.Errorf("cluster: consumer of shard %d: %w", shard, err)
	}
	return c.CachedInfo(), nil
}

// ShardInfo is one shard's hand-off queue as Status sees it.
type ShardInfo struct {
	Shard      int    // the shard number
	Owner      string // the process that reported it last; empty if none has
	Pending    uint64 // batches in the stream not yet delivered to the owner
	AckPending uint64 // batches delivered and not yet acknowledged
}

// Status connects to NATS as cfg says and returns every process's last report (sorted
// by name) and every shard's queue, for `crawl status -cluster`. It creates nothing:
// a crawl that does not exist is an error. cfg.Own, cfg.Shards and cfg.Name are not used.
func Status(ctx context.Context, cfg Config) ([]State, []ShardInfo, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, nil, err
	}
	nc, err := cfg.connect()
	if err != nil {
		return nil, nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: %w", err)
	}
	stream, err := js.Stream(ctx, cfg.Stream)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: stream %s: %w", cfg.Stream, err)
	}
	kv, err := js.KeyValue(ctx, bucketOf(cfg.Stream))
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: state bucket %s: %w", bucketOf(cfg.Stream), err)
	}
	total, err := shardCount(ctx, kv)
	if err != nil {
		return nil, nil, err
	}
	entries, err := readStates(ctx, kv)
	if err != nil {
		return nil, nil, err
	}
	states := make([]State, len(entries))
	for i, e := range entries {
		states[i] = e.State
	}
	own := owners(entries, total)
	shards := make([]ShardInfo, total)
	for s := range shards {
		shards[s].Shard = s
		if own[s] != nil {
			shards[s].Owner = own[s].Name
		}
		c, err := stream.Consumer(ctx, consumerOf(s))
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			// Never owned: its links wait in the stream.
			si, err := stream.Info(ctx, jetstream.WithSubjectFilter(subjectOf(cfg.Stream, s)))
			if err != nil {
				return nil, nil, fmt.Errorf("cluster: stream info: %w", err)
			}
			shards[s].Pending = si.State.Subjects[subjectOf(cfg.Stream, s)]
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("cluster: consumer of shard %s: %w", strconv.Itoa(s), err)
		}
		info := c.CachedInfo()
		shards[s].Pending, shards[s].AckPending = info.NumPending, uint64(info.NumAckPending)
	}
	return states, shards, nil
}
