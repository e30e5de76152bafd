package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// fetchBatch is how many messages one pull request of a shard asks for, at most;
	// fetchTotal bounds the sum over the owned shards (so memory does not grow with them).
	fetchBatch = 16
	fetchTotal = 1024
	// fetchWait is how long one pull request waits for messages before the next.
	fetchWait = 5 * time.Second
	// maxIntakeLinks is about the most links handed to one intake call: messages are
	// gathered until this many links, or until none is waiting.
	maxIntakeLinks = 16384
	// maxNakDelay caps the delay before a batch whose intake failed is delivered again.
	maxNakDelay = 30 * time.Second
)

// Intake adds links to the local frontier and returns only once they are committed: a
// nil error means they survive a crash of this process. Consume calls it from one
// goroutine at a time; the slice is not used after it returns.
type Intake func(ctx context.Context, links []Link) error

// inMsg is one delivered message of an owned shard.
type inMsg struct {
	shard int
	seq   uint64 // its stream sequence (0 if unknown)
	msg   jetstream.Msg
	links []Link
}

// Consume takes in the links published to the shards this process owns: each shard has
// a durable pull consumer named "shard-<n>"; delivered batches are decoded and handed to
// intake, several messages per call, and acknowledged only after intake returned nil. If
// intake fails, the batches are delivered again after a delay that grows with each
// delivery (at most 30 s). A message that cannot be decoded is terminated (never
// delivered again), counted in Stats.Damaged and logged: it never blocks its shard. While
// intake runs, its batches are kept from being redelivered.
//
// Consume runs until ctx ends and then returns ctx's error, or returns a fatal error
// (the node closed, a consumer deleted). It waits through a lost connection or a server
// restart. Batches delivered but not yet taken in when it returns are released for
// immediate redelivery. Only one Consume may run at a time.
func (n *Node) Consume(ctx context.Context, intake Intake) error {
	if n.closed.Load() {
		return errors.New("cluster: consume: node closed")
	}
	if !n.consuming.CompareAndSwap(false, true) {
		return errors.New("cluster: consume already running")
	}
	defer n.consuming.Store(false)
	own := n.Own()
	if len(own) == 0 {
		<-ctx.Done()
		return ctx.Err()
	}

	run, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	in := make(chan *inMsg, 2*fetchBatch)
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-n.done:
			cancel(errors.New("cluster: consume: node closed"))
		case <-run.Done():
		}
	})
	batch := max(1, min(fetchBatch, fetchTotal/len(own)))
	for _, s := range own {
		wg.Go(func() { n.fetch(run, cancel, s, batch, in) })
	}
	n.intakeLoop(run, intake, in)
	err := context.Cause(run)
	cancel(nil)
	wg.Wait()
	for {
		select {
		case m := <-in:
			n.settle(m, m.msg.Nak)
		default:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
	}
}

// fetch pulls shard's messages into in until ctx ends, or another process took the
// shard over, or calls fail with a fatal error. When a pull brings nothing, at most
// once per AckWait, it looks for batches the stream holds that the consumer will not
// deliver (see leftovers) and passes those on too.
func (n *Node) fetch(ctx context.Context, fail context.CancelCauseFunc, shard, size int, in chan<- *inMsg) {
	cons := n.consumers[shard]
	backoff := 100 * time.Millisecond
	// The last look for leftovers, and what it found.
	swept, seen := time.Now(), n.sweep(ctx, shard, nil, in)
	for ctx.Err() == nil && n.ownsShard(shard) {
		fctx, cancel := context.WithTimeout(ctx, fetchWait)
		batch, err := cons.Fetch(size, jetstream.FetchContext(fctx))
		got := 0
		if err == nil {
			for m := range batch.Messages() {
				got++
				n.pass(ctx, &inMsg{shard: shard, msg: m}, in)
			}
			err = batch.Error()
		}
		cancel()
		switch {
		case err == nil, ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded),
			errors.Is(err, nats.ErrTimeout), errors.Is(err, jetstream.ErrNoMessages):
			backoff = 100 * time.Millisecond
			if got == 0 && ctx.Err() == nil && time.Since(swept) >= n.cfg.AckWait {
				swept = time.Now()
				seen = n.sweep(ctx, shard, seen, in)
			}
		case errors.Is(err, jetstream.ErrConsumerDeleted), errors.Is(err, jetstream.ErrConsumerNotFound),
			errors.Is(err, nats.ErrConnectionClosed):
			fail(fmt.Errorf("cluster: consume shard %d: %w", shard, err))
			return
		default:
			n.cfg.Log.Warn("cluster: consume: fetch failed, retrying", "shard", shard, "err", err)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			backoff = min(2*backoff, 5*time.Second)
		}
	}
}

// pass holds m (see leftovers) and sends it to in, or asks for its redelivery if ctx
// ends first.
func (n *Node) pass(ctx context.Context, m *inMsg, in chan<- *inMsg) {
	if m.seq == 0 {
		if meta, err := m.msg.Metadata(); err == nil {
			m.seq = meta.Sequence.Stream
		}
	}
	n.mu.Lock()
	n.held[m.seq] = m.shard
	n.mu.Unlock()
	select {
	case in <- m:
	case <-ctx.Done():
		n.settle(m, m.msg.Nak)
	}
}

// settle calls f, m's acknowledgement, redelivery request or termination, and then
// no longer holds m.
func (n *Node) settle(m *inMsg, f func() error) error {
	err := f()
	n.mu.Lock()
	delete(n.held, m.seq)
	n.mu.Unlock()
	return err
}

// intakeLoop gathers delivered messages into intake calls until ctx ends.
func (n *Node) intakeLoop(ctx context.Context, intake Intake, in <-chan *inMsg) {
	for {
		var batch []*inMsg
		links := 0
		select {
		case m := <-in:
			batch, links = n.gather(batch, m, links)
		case <-ctx.Done():
			return
		}
	more:
		for links < maxIntakeLinks {
			select {
			case m := <-in:
				batch, links = n.gather(batch, m, links)
			default:
				break more
			}
		}
		if len(batch) > 0 {
			n.take(ctx, intake, batch, links)
		}
	}
}

// gather decodes m and adds it to batch, or terminates it if it cannot be decoded.
func (n *Node) gather(batch []*inMsg, m *inMsg, links int) ([]*inMsg, int) {
	var err error
	m.links, err = decodeBatch(m.msg.Data())
	if err != nil {
		n.damaged.Add(1)
		var seq, cseq uint64 // the stream's sequence (for the log) and the consumer's
		if meta, _ := m.msg.Metadata(); meta != nil {
			seq, cseq = meta.Sequence.Stream, meta.Sequence.Consumer
		}
		n.cfg.Log.Error("cluster: consume: damaged message dropped", "shard", m.shard, "seq", seq, "err", err)
		if err := n.settle(m, m.msg.Term); err != nil {
			n.cfg.Log.Warn("cluster: consume: terminate damaged message", "shard", m.shard, "seq", seq, "err", err)
			return batch, links
		}
		n.mu.Lock()
		n.acked[m.shard] = max(n.acked[m.shard], cseq)
		n.mu.Unlock()
		return batch, links
	}
	return append(batch, m), links + len(m.links)
}

// take hands batch's links to intake and acknowledges the messages after it returned
// nil, or asks for their redelivery.
func (n *Node) take(ctx context.Context, intake Intake, batch []*inMsg, total int) {
	// A shard another process took over: its batches go back to the stream at once,
	// for the new owner (which pulls from the same consumer).
	batch = slices.DeleteFunc(batch, func(m *inMsg) bool {
		if n.ownsShard(m.shard) {
			return false
		}
		n.settle(m, m.msg.Nak)
		total -= len(m.links)
		return true
	})
	if len(batch) == 0 {
		return
	}
	links := make([]Link, 0, total)
	for _, m := range batch {
		links = append(links, m.links...)
	}
	stop := n.keepAlive(batch)
	err := intake(ctx, links)
	stop()
	if err != nil {
		n.cfg.Log.Warn("cluster: consume: intake failed, batches will be delivered again",
			"messages", len(batch), "links", len(links), "err", err)
		for _, m := range batch {
			if ctx.Err() != nil {
				n.settle(m, m.msg.Nak)
			} else {
				n.settle(m, func() error { return m.msg.NakWithDelay(nakDelay(m.msg)) })
			}
		}
		return
	}
	n.mu.Lock()
	for _, m := range batch {
		if meta, err := m.msg.Metadata(); err == nil {
			n.acked[m.shard] = max(n.acked[m.shard], meta.Sequence.Consumer)
		}
	}
	n.intakes++
	n.mu.Unlock()
	n.consumed.Add(int64(len(links)))
	for _, m := range batch {
		if err := n.settle(m, m.msg.Ack); err != nil {
			// The batch is delivered again after AckWait; the owner's seen set drops it.
			n.cfg.Log.Warn("cluster: consume: ack failed", "shard", m.shard, "err", err)
		}
	}
}

// keepAlive tells JetStream every third of AckWait that batch is still being worked on,
// until the returned function is called.
func (n *Node) keepAlive(batch []*inMsg) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(n.cfg.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				for _, m := range batch {
					_ = m.msg.InProgress()
				}
			case <-done:
				return
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// nakDelay is the delay before a batch whose intake failed is delivered again: 250 ms
// after its first delivery, doubling with each one, at most maxNakDelay.
func nakDelay(m jetstream.Msg) time.Duration {
	d := 250 * time.Millisecond
	if meta, err := m.Metadata(); err == nil {
		for i := uint64(1); i < meta.NumDelivered && d < maxNakDelay; i++ {
			d *= 2
		}
	}
	return min(d, maxNakDelay)
}
