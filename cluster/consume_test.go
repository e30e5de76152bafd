package cluster

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// progressMsg is a delivered message that counts the progress signals sent for it.
type progressMsg struct {
	jetstream.Msg // other methods are not used
	signals       atomic.Int32
}

func (m *progressMsg) InProgress() error {
	m.signals.Add(1)
	return nil
}

// TestKeepAlive: while intake runs, its batches are signalled in progress (every third
// of AckWait) so that JetStream does not deliver them again.
func TestKeepAlive(t *testing.T) {
	n := &Node{cfg: Config{AckWait: 30 * time.Millisecond}}
	msgs := []*progressMsg{{}, {}}
	stop := n.keepAlive([]*inMsg{{msg: msgs[0]}, {msg: msgs[1]}})
	waitFor(t, "two progress signals for each batch", func() bool {
		return msgs[0].signals.Load() >= 2 && msgs[1].signals.Load() >= 2
	})
	stop() // returns once the signalling goroutine has exited
}

// nakMsg is a delivered message with a delivery count.
type nakMsg struct {
	jetstream.Msg
	delivered uint64
}

func (m *nakMsg) Metadata() (*jetstream.MsgMetadata, error) {
	return &jetstream.MsgMetadata{NumDelivered: m.delivered}, nil
}

func TestNakDelay(t *testing.T) {
	for _, tc := range []struct {
		delivered uint64
		want      time.Duration
	}{
		{1, 250 * time.Millisecond},
		{2, 500 * time.Millisecond},
		{5, 4 * time.Second},
		{8, maxNakDelay},
		{1000, maxNakDelay},
	} {
		if got := nakDelay(&nakMsg{delivered: tc.delivered}); got != tc.want {
			t.Errorf("nakDelay(delivery %d):\n\tgot %v\n\twant %v", tc.delivered, got, tc.want)
		}
	}
}
