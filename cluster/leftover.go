package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A NATS server killed with SIGKILL (nats-server 2.9, Debian 12's, at least) writes a
// stream's files and its consumers' states at different moments, and can come back with
// them disagreeing about a shard's batches:
//
//   - an acknowledged batch whose removal was lost: the stream holds it, the consumer
//     counts it acknowledged (at or below its ack floor, or above it and not pending) and
//     never delivers it again;
//   - an acknowledged batch whose acknowledgement was lost: the stream no longer holds
//     it, the consumer counts it delivered and unacknowledged (NumAckPending), tries to
//     deliver it again every AckWait ("error looking up message for consumer: deleted
//     message") and drops it only once the stream's first sequence is past it;
//   - a delivered batch whose delivery was lost: the consumer delivers it again (harmless).
//
// The first loses nothing (the batch was taken in before its acknowledgement) but keeps
// the stream's first sequence, and so the second, alive; the second alone is recognised
// by Finished (see waiting). Both on one shard, nothing in the consumer's counts tells a
// batch still owed apart from one taken in. So the owner takes them from the stream
// itself: leftovers finds the shard's batches that the stream holds at or below the
// consumer's delivered sequence and this process does not hold, and a batch found so at
// two looks an AckWait apart (a batch merely awaiting redelivery is delivered meanwhile)
// is taken in like a delivered one and then deleted from the stream. A batch is deleted
// only after its intake returned nil, so none is lost; one the consumer still counted
// pending leaves its pending list with the deletion, and one taken in before is taken in
// again (the owner's seen set drops its links).

// maxLeftovers bounds the batches one look goes through.
const maxLeftovers = 4096

// sweep looks for shard's leftovers and passes those also found by the previous look
// (seen) to in, as it reads them: it holds one batch at a time. It returns what this
// look found.
func (n *Node) sweep(ctx context.Context, shard int, seen map[uint64]bool, in chan<- *inMsg) map[uint64]bool {
	found := make(map[uint64]bool)
	taken := 0
	info, err := n.leftovers(ctx, shard, func(m *jetstream.RawStreamMsg, info *jetstream.ConsumerInfo) {
		found[m.Sequence] = true
		if !seen[m.Sequence] {
			return
		}
		if taken++; taken == 1 {
			n.cfg.Log.Warn("cluster: consume: the stream holds batches that the shard's consumer does not deliver "+
				"(the NATS server lost part of its state, killed?): taking them in from the stream",
				"shard", shard, "first", m.Sequence, "delivered", info.Delivered.Stream, "ack_floor", info.AckFloor.Stream,
				"ack_pending", info.NumAckPending, "pending", info.NumPending)
		}
		n.pass(ctx, &inMsg{shard: shard, seq: m.Sequence, msg: &streamMsg{stream: n.stream, raw: m}}, in)
	})
	if err != nil {
		if ctx.Err() == nil {
			n.cfg.Log.Warn("cluster: consume: look for batches the consumer does not deliver", "shard", shard, "err", err)
		}
		return seen
	}
	if taken > 0 {
		n.cfg.Log.Warn("cluster: consume: batches taken from the stream", "shard", shard, "batches", taken,
			"delivered", info.Delivered.Stream)
	}
	return found
}

// leftovers calls each, in stream order, with shard's batches (at most maxLeftovers)
// that the stream holds at or below the sequence up to which the shard's consumer has
// delivered and this process does not hold (has not been handed by Consume, or has
// settled), and with the consumer's state, which it returns. Every such batch is either
// one the consumer will deliver again after AckWait or one it will never deliver. It
// reads batches from the stream (by sequence, from its first) only when the stream
// holds some of the shard's, and stops at the first one the consumer has not delivered
// yet. (The consumer's own counts are no guide: in the states above they count
// batches that are not there.)
//
// If this process holds none of the shard's batches, it also raises what it reports
// taken in (acked) to the consumer's ack floor: every acknowledgement in it is then
// either this process's own, made after its intake, or the server's own doing (a
// pending batch dropped when the stream's first sequence passed it, or deleted by
// sweep), which brings no link; so Finished's check of the reports against the ack
// floor does not wait forever on the server's doing.
func (n *Node) leftovers(ctx context.Context, shard int,
	each func(*jetstream.RawStreamMsg, *jetstream.ConsumerInfo)) (*jetstream.ConsumerInfo, error) {
	idle := !n.holdsAny(shard)
	info, err := n.consumers[shard].Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("consumer info: %w", err)
	}
	if idle {
		n.mu.Lock()
		n.acked[shard] = max(n.acked[shard], info.AckFloor.Consumer)
		n.mu.Unlock()
	}
	subj := subjectOf(n.cfg.Stream, shard)
	si, err := n.stream.Info(ctx, jetstream.WithSubjectFilter(subj))
	if err != nil {
		return nil, fmt.Errorf("stream info: %w", err)
	}
	if si.State.Subjects[subj] == 0 {
		return info, nil
	}
	for seq, k := si.State.FirstSeq, 0; k < maxLeftovers && seq <= info.Delivered.Stream; k++ {
		m, err := n.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subj))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("get batch %d: %w", seq, err)
		}
		if m.Sequence > info.Delivered.Stream {
			break
		}
		n.mu.Lock()
		_, held := n.held[m.Sequence]
		n.mu.Unlock()
		if !held {
			each(m, info)
		}
		seq = m.Sequence + 1
	}
	return info, nil
}

// holdsAny reports whether this process holds any of shard's batches.
func (n *Node) holdsAny(shard int) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, s := range n.held {
		if s == shard {
			return true
		}
	}
	return false
}

// streamMsg is a batch read from the stream rather than delivered by its consumer
// (see leftovers). Acknowledging or terminating it deletes it from the stream; asking
// for its redelivery leaves it there, for the next look.
type streamMsg struct {
	stream jetstream.Stream
	raw    *jetstream.RawStreamMsg
}

var _ jetstream.Msg = (*streamMsg)(nil)

func (m *streamMsg) Metadata() (*jetstream.MsgMetadata, error) {
	// No consumer sequence: the shard's consumer did not deliver it (see Node.acked).
	return &jetstream.MsgMetadata{Sequence: jetstream.SequencePair{Stream: m.raw.Sequence},
		NumDelivered: 1, Timestamp: m.raw.Time}, nil
}
func (m *streamMsg) Data() []byte                        { return m.raw.Data }
func (m *streamMsg) Headers() nats.Header                { return m.raw.Header }
func (m *streamMsg) Subject() string                     { return m.raw.Subject }
func (m *streamMsg) Reply() string                       { return "" }
func (m *streamMsg) Ack() error                          { return m.remove(context.Background()) }
func (m *streamMsg) DoubleAck(ctx context.Context) error { return m.remove(ctx) }
func (m *streamMsg) Nak() error                          { return nil }
func (m *streamMsg) NakWithDelay(time.Duration) error    { return nil }
func (m *streamMsg) InProgress() error                   { return nil }
func (m *streamMsg) Term() error                         { return m.remove(context.Background()) }
func (m *streamMsg) TermWithReason(string) error         { return m.remove(context.Background()) }

// remove deletes the batch from the stream; one already gone is no error.
func (m *streamMsg) remove(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, publishAckTimeout)
	defer cancel()
	err := m.stream.DeleteMsg(ctx, m.raw.Sequence)
	if err == nil {
		return nil
	}
	// The server's "no message found" does not come through as ErrMsgNotFound.
	if _, gerr := m.stream.GetMsg(ctx, m.raw.Sequence); errors.Is(gerr, jetstream.ErrMsgNotFound) {
		return nil
	}
	return fmt.Errorf("delete batch %d from the stream: %w", m.raw.Sequence, err)
}
