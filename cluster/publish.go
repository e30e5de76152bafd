package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// maxBatchBytes is the target size of one message; the server's max_payload lowers it.
	maxBatchBytes = 64 << 10
	// maxBatchLinks is the most links in one message.
	maxBatchLinks = 4096
)

// Publish hands links to the owners of their shards: it groups them by shard into
// batched messages on the shards' subjects and returns only once JetStream has
// acknowledged every message, so the caller may then finish the lease that found them.
// Links of any shard may be given, owned ones included (they come back through Consume).
// A URL given twice is sent once, with the lower depth. A link whose URL has no shard, or
// that is too long for one message (more than about 64 KiB), is skipped, counted in
// Stats.Skipped and logged.
//
// Publish calls made while an earlier one waits for its acknowledgements are sent
// together (up to about 16,384 links), so many workers publishing a page's links each
// make few, larger messages: the cost per link falls as the load grows.
//
// A message whose acknowledgement does not come (a server restart, a lost connection)
// is sent again with the same message ID, which JetStream stores only once within its
// two-minute duplicate window; this goes on until the node is closed. Publish returns
// ctx's error if ctx ends first. Links of a Publish that returned an error may or may
// not have been handed off: publishing them again is safe, their owner's seen set drops
// repeats.
func (n *Node) Publish(ctx context.Context, links []Link) error {
	if n.closed.Load() {
		return errNodeClosed
	}
	if len(links) == 0 {
		return nil
	}
	req := &pubReq{links: links, done: make(chan error, 1)}
	select {
	case n.pubs <- req:
	case <-n.done:
		return errNodeClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-req.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errNodeClosed = errors.New("cluster: publish: node closed")

// maxMergeLinks is about the most links one round of the publisher sends together.
const maxMergeLinks = 16384

// pubReq is one Publish call waiting for the publisher.
type pubReq struct {
	links []Link
	done  chan error // receives the result once
}

// publisher sends the links of waiting Publish calls, merged, until the node closes.
func (n *Node) publisher() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-n.done
		cancel()
	}()
	var reqs []*pubReq
	var links []Link
	for {
		reqs, links = reqs[:0], links[:0]
		select {
		case r := <-n.pubs:
			reqs, links = append(reqs, r), append(links, r.links...)
		case <-n.done:
			return
		}
	more:
		for len(links) < maxMergeLinks {
			select {
			case r := <-n.pubs:
				reqs, links = append(reqs, r), append(links, r.links...)
			default:
				break more
			}
		}
		err := n.send(ctx, links)
		if err != nil && ctx.Err() != nil {
			err = errNodeClosed
		}
		for _, r := range reqs {
			r.done <- err
		}
	}
}

// send publishes links and waits for every acknowledgement, sending again what was not
// acknowledged, until ctx ends.
func (n *Node) send(ctx context.Context, links []Link) error {
	msgs := n.batches(links)
	if len(msgs) == 0 {
		return nil
	}
	pending := make([]jetstream.PubAckFuture, len(msgs))
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		var retry []int
		for i, m := range msgs {
			if m == nil { // acknowledged in an earlier attempt
				continue
			}
			f, err := n.js.PublishMsgAsync(m.msg)
			if err != nil {
				if permanent(err) {
					return fmt.Errorf("cluster: publish: %w", err)
				}
				retry = append(retry, i)
				continue
			}
			pending[i] = f
		}
		var lastErr error
		for i, f := range pending {
			if f == nil {
				continue
			}
			pending[i] = nil
			select {
			case ack := <-f.Ok():
				if ack.Duplicate {
					n.duplicates.Add(1)
				}
				n.published.Add(int64(msgs[i].links))
				msgs[i] = nil
			case err := <-f.Err():
				if permanent(err) {
					return fmt.Errorf("cluster: publish: %w", err)
				}
				lastErr = err
				retry = append(retry, i)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if len(retry) == 0 {
			return nil
		}
		n.cfg.Log.Warn("cluster: publish: retrying", "messages", len(retry), "attempt", attempt, "err", lastErr)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return ctx.Err()
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// outMsg is one batch message to publish.
type outMsg struct {
	msg   *nats.Msg
	links int
}

// batches groups links by shard and encodes them into messages, deduplicated by URL.
func (n *Node) batches(links []Link) []*outMsg {
	limit := maxBatchBytes
	if mp := int(n.nc.MaxPayload()) - 1024; mp > 0 && mp < limit { // 1 KiB for headers
		limit = mp
	}
	byShard := make(map[int][]int) // shard → indexes into links, first appearance order
	first := make(map[string]int, len(links))
	var order []int // shards in order of first appearance
	for i := range links {
		l := &links[i]
		if j, ok := first[l.URL]; ok {
			if l.Depth < links[j].Depth {
				first[l.URL] = i
			}
			continue
		}
		s, err := n.cache.shardOf(l.URL)
		if err == nil && len(l.URL)+len(l.FoundOn)+64 > limit {
			err = fmt.Errorf("link of %d bytes does not fit in a message of %d", len(l.URL)+len(l.FoundOn), limit)
		}
		if err != nil {
			n.skipped.Add(1)
			n.cfg.Log.Warn("cluster: publish: link skipped", "url", truncate(l.URL, 200), "err", err)
			continue
		}
		first[l.URL] = i
		if _, ok := byShard[s]; !ok {
			order = append(order, s)
		}
		byShard[s] = append(byShard[s], i)
	}
	var out []*outMsg
	e := newEncoder()
	flush := func(shard int) {
		if e.n == 0 {
			return
		}
		out = append(out, n.message(shard, e.finish(), e.n))
		e.reset()
	}
	for _, s := range order {
		for _, i := range byShard[s] {
			l := &links[i]
			if first[l.URL] != i { // a later copy with a lower depth won
				l = &links[first[l.URL]]
			}
			if e.n > 0 && (e.n >= maxBatchLinks || e.size()+len(l.URL)+len(l.FoundOn)+40 > limit) {
				flush(s)
			}
			e.add(l)
		}
		flush(s)
	}
	return out
}

// message wraps an encoded batch for shard. Its message ID is a digest of subject and
// content, so a batch sent again (a retry, or the same page's links published again
// within the duplicate window) is stored once.
func (n *Node) message(shard int, data []byte, links int) *outMsg {
	subject := subjectOf(n.cfg.Stream, shard)
	h := sha256.New()
	h.Write([]byte(subject))
	h.Write([]byte{0})
	h.Write(data)
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18]))
	return &outMsg{msg: m, links: links}
}

// permanent reports whether a publish error will not go away by sending again.
func permanent(err error) bool {
	if errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, nats.ErrMaxPayload) ||
		errors.Is(err, nats.ErrBadSubject) {
		return true
	}
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Code != 503 && apiErr.Code != 408
	}
	return false
}

// truncate shortens s to at most n bytes for a log line.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
