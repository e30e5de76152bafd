package cluster

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names in the stream and the state bucket.
const (
	keyShards     = "shards" // state bucket key: the crawl's shard count, decimal
	keyNodePrefix = "node."  // state bucket key prefix: node.<Name> holds a State as JSON
)

// Limits of the hand-off.
const (
	// maxAckPending is how many batches one shard's consumer may have delivered and not
	// yet acknowledged.
	maxAckPending = 64
	// publishAckTimeout is how long Publish waits for JetStream's acknowledgement of one
	// message before sending it again (with the same message ID, so never twice).
	publishAckTimeout = 10 * time.Second
)

func subjectOf(stream string, shard int) string { return stream + ".shard." + strconv.Itoa(shard) }
func subjectsOf(stream string) string           { return stream + ".shard.*" } // every shard's
func consumerOf(shard int) string               { return "shard-" + strconv.Itoa(shard) }
func bucketOf(stream string) string             { return stream + "_state" }

// Node is one process's membership in a crawl shared through NATS JetStream. It
// publishes links to their shards' owners, consumes the links of the shards it owns and
// reports its state. Its methods are safe for simultaneous use by multiple goroutines,
// except that Consume runs at most once at a time.
type Node struct {
	cfg    Config
	shards int // the crawl's shard count
	cache  *shardCache
	run    string // this run's random ID, written in every report (State.Run)
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	kv     jetstream.KeyValue

	consumers map[int]jetstream.Consumer // per owned shard
	consuming atomic.Bool
	closed    atomic.Bool
	done      chan struct{} // closed by Close
	pubs      chan *pubReq  // Publish calls for the publisher goroutine

	published, duplicates, consumed, damaged, skipped atomic.Int64

	reportMu sync.Mutex // held by Report from its snapshot to its write, so writes keep their order

	mu sync.Mutex
	// own is the shards this process owns, sorted, and owned the same as a set; a
	// shard another process took over leaves both (lost records it).
	own   []int
	owned []bool
	lost  map[int]string // shard → the process that took it over from this one
	// rev is the revision of this process's last write of its report (0: none); the
	// report is written only over it, so a takeover in between is seen (fencing).
	rev      uint64
	replaced bool // a later run of the same name wrote the report: never write it again
	// The lease: this process may fetch its shards' hosts from leaseFrom to leaseUntil
	// (monotonic readings); leaseMoved is closed and replaced when either changes.
	leaseFrom, leaseUntil time.Time
	leaseMoved            chan struct{}

	acked           map[int]uint64 // per owned shard: highest consumer sequence taken in
	held            map[uint64]int // stream sequence → shard: batches Consume holds (passed on, not settled)
	intakes         uint64         // intakes that returned nil (or batches terminated)
	reportedIntakes uint64         // intakes as of the last Report
	lastCheck       string         // signature of the last Finished check that passed
	stuckOn         *stuckShard    // the shard the last Finished check waited on with every process idle
}

// Join connects to NATS as cfg says and joins the crawl named by cfg.Stream: it creates
// the stream, the state bucket and the owned shards' durable consumers if they do not
// exist, records the shard count at the crawl's creation and refuses a different one
// later, refuses shards that another running process owns, and reports this process
// (not idle) so that others see its shards taken. Close releases the connection.
func Join(ctx context.Context, cfg Config) (*Node, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	nc, err := cfg.connect()
	if err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, nc: nc, consumers: make(map[int]jetstream.Consumer), acked: make(map[int]uint64),
		held: make(map[uint64]int), done: make(chan struct{}), pubs: make(chan *pubReq), run: rand.Text(),
		lost: make(map[int]string), leaseMoved: make(chan struct{})}
	if err := n.join(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	go n.publisher()
	return n, nil
}

func (n *Node) join(ctx context.Context) error {
	var err error
	n.js, err = jetstream.New(n.nc,
		jetstream.WithPublishAsyncTimeout(publishAckTimeout),
		jetstream.WithPublishAsyncMaxPending(256))
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	if n.stream, err = ensureStream(ctx, n.js, &n.cfg); err != nil {
		return err
	}
	if n.kv, err = ensureBucket(ctx, n.js, &n.cfg); err != nil {
		return err
	}
	if n.shards, err = ensureShardCount(ctx, n.kv, &n.cfg); err != nil {
		return err
	}
	n.cache = newShardCache(n.shards)
	n.owned = make([]bool, n.shards)
	for _, s := range n.cfg.Own {
		if s < 0 || s >= n.shards {
			return fmt.Errorf("cluster: owned shard %d out of range 0..%d", s, n.shards-1)
		}
		if n.owned[s] {
			return fmt.Errorf("cluster: owned shard %d listed twice", s)
		}
		n.owned[s] = true
	}
	for s, ok := range n.owned {
		if ok {
			n.own = append(n.own, s)
		}
	}
	if err := n.claim(ctx); err != nil {
		return err
	}
	for _, s := range n.own {
		c, err := n.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable:       consumerOf(s),
			Description:   "politecrawl links of shard " + strconv.Itoa(s),
			FilterSubject: subjectOf(n.cfg.Stream, s),
			DeliverPolicy: jetstream.DeliverAllPolicy,
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       n.cfg.AckWait,
			MaxDeliver:    -1,
			MaxAckPending: maxAckPending,
		})
		if err != nil {
			return fmt.Errorf("cluster: consumer of shard %d: %w", s, err)
		}
		n.consumers[s] = c
		// What was acknowledged before this process joined was taken in by an earlier
		// run of this shard's owner (see Finished).
		n.acked[s] = c.CachedInfo().AckFloor.Consumer
	}
	// Over the previous run's report only: a process of the same name that joined
	// meanwhile makes this fail.
	if err := n.writeReport(ctx, State{}); err != nil {
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return fmt.Errorf("cluster: another process named %s joined at the same time: %w", n.cfg.Name, err)
		}
		return err
	}
	return nil
}

// ensureStream opens the crawl's stream, creating it if it does not exist.
func ensureStream(ctx context.Context, js jetstream.JetStream, cfg *Config) (jetstream.Stream, error) {
	want := subjectsOf(cfg.Stream)
	s, err := js.Stream(ctx, cfg.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		s, err = js.CreateStream(ctx, jetstream.StreamConfig{
			Name:        cfg.Stream,
			Description: "politecrawl: links handed to the owners of their shards",
			Subjects:    []string{want},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     jetstream.FileStorage,
			Replicas:    cfg.Replicas,
			Duplicates:  2 * time.Minute,
			Discard:     jetstream.DiscardOld,
		})
		if errCreateRaced(err) { // another process was first
			s, err = js.Stream(ctx, cfg.Stream)
		}
	}
	if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrJetStreamNotEnabled) {
		return nil, fmt.Errorf("cluster: stream %s: JetStream is not enabled on the server (nats-server -js): %w", cfg.Stream, err)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: stream %s: %w", cfg.Stream, err)
	}
	info := s.CachedInfo()
	if len(info.Config.Subjects) != 1 || info.Config.Subjects[0] != want || info.Config.Retention != jetstream.WorkQueuePolicy {
		return nil, fmt.Errorf("cluster: stream %s exists but is not a politecrawl hand-off stream (subjects %q, retention %v)",
			cfg.Stream, info.Config.Subjects, info.Config.Retention)
	}
	return s, nil
}

// errCodeSubjectsOverlap is the JetStream API's error code for a stream whose subjects
// overlap another's (nats-server's JSStreamSubjectOverlapErr).
const errCodeSubjectsOverlap jetstream.ErrorCode = 10065

// errCreateRaced reports whether creating a stream failed because another process
// created it at the same time: the server answers that the name is in use or, when the
// other's creation is still claiming the same subjects (nats-server 2.9 does), that
// they overlap another stream's. The caller opens the stream by its name, and checks
// it is its own.
func errCreateRaced(err error) bool {
	var api jetstream.JetStreamError
	return errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) ||
		errors.As(err, &api) && api.APIError() != nil && api.APIError().ErrorCode == errCodeSubjectsOverlap
}

// ensureBucket opens the crawl's state bucket, creating it if it does not exist.
func ensureBucket(ctx context.Context, js jetstream.JetStream, cfg *Config) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, bucketOf(cfg.Stream))
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      bucketOf(cfg.Stream),
			Description: "politecrawl: shard count and the state of each process",
			History:     1,
			Storage:     jetstream.FileStorage,
			Replicas:    cfg.Replicas,
		})
		if errors.Is(err, jetstream.ErrBucketExists) || errCreateRaced(err) {
			kv, err = js.KeyValue(ctx, bucketOf(cfg.Stream))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: state bucket %s: %w", bucketOf(cfg.Stream), err)
	}
	return kv, nil
}

// ensureShardCount records cfg.Shards as the crawl's shard count if none is recorded, and
// otherwise checks it against the recorded one. It returns the crawl's shard count.
func ensureShardCount(ctx context.Context, kv jetstream.KeyValue, cfg *Config) (int, error) {
	want := cfg.Shards
	if want == 0 {
		want = DefaultShards
	}
	_, err := kv.Create(ctx, keyShards, []byte(strconv.Itoa(want)))
	if err == nil {
		return want, nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return 0, fmt.Errorf("cluster: record shard count: %w", err)
	}
	have, err := shardCount(ctx, kv)
	if err != nil {
		return 0, err
	}
	if cfg.Shards != 0 && have != cfg.Shards {
		return 0, fmt.Errorf("cluster: crawl %s has %d shards, not %d: every process of a crawl needs the same shard count",
			cfg.Stream, have, cfg.Shards)
	}
	return have, nil
}

// shardCount reads the crawl's recorded shard count.
func shardCount(ctx context.Context, kv jetstream.KeyValue) (int, error) {
	e, err := kv.Get(ctx, keyShards)
	if err != nil {
		return 0, fmt.Errorf("cluster: read shard count: %w", err)
	}
	have, err := strconv.Atoi(string(e.Value()))
	if err != nil || have < 1 || have > MaxShards {
		return 0, fmt.Errorf("cluster: recorded shard count %q is not a number in 1..%d", e.Value(), MaxShards)
	}
	return have, nil
}

// Name returns the process's name in the crawl (Config.Name or its default).
func (n *Node) Name() string { return n.cfg.Name }

// Shards returns the crawl's shard count.
func (n *Node) Shards() int { return n.shards }

// Own returns the shards this process owns, in increasing order: those it joined
// with, less those another process took over (see AwaitLease).
func (n *Node) Own() []int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.own)
}

// Owns reports whether this process owns rawURL's shard, and that shard. The error is
// ShardOf's.
func (n *Node) Owns(rawURL string) (bool, int, error) {
	s, err := n.cache.shardOf(rawURL)
	if err != nil {
		return false, 0, err
	}
	return n.ownsShard(s), s, nil
}

// ownsShard reports whether this process owns shard s (in range).
func (n *Node) ownsShard(s int) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.owned[s]
}

// Stats counts what a Node has done since Join.
type Stats struct {
	Published  int64 // links acknowledged by JetStream (duplicates included)
	Duplicates int64 // messages JetStream had already stored (same message ID)
	Consumed   int64 // links handed to intake and acknowledged
	Damaged    int64 // messages dropped because they could not be decoded
	Skipped    int64 // links Publish dropped because their URL has no shard
}

// Stats returns the node's counters.
func (n *Node) Stats() Stats {
	return Stats{
		Published:  n.published.Load(),
		Duplicates: n.duplicates.Load(),
		Consumed:   n.consumed.Load(),
		Damaged:    n.damaged.Load(),
		Skipped:    n.skipped.Load(),
	}
}

// Close flushes what the node has sent (acknowledgements included) and closes its
// connection; a running Consume returns. Batches delivered to it and not acknowledged
// are delivered again after AckWait. It does not report the process stopped: call Report with Stopped first.
// Close is idempotent.
func (n *Node) Close() error {
	if n.closed.Swap(true) {
		return nil
	}
	close(n.done)
	err := n.nc.FlushTimeout(5 * time.Second)
	n.nc.Close()
	if err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
		return fmt.Errorf("cluster: close: %w", err)
	}
	return nil
}
