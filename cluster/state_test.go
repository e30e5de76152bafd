package cluster

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// finished calls n.Finished and fails the test on error.
func finished(t *testing.T, n *Node) bool {
	t.Helper()
	ok, err := n.Finished(context.Background())
	if err != nil {
		t.Fatalf("Finished: %v", err)
	}
	return ok
}

// finishedTwice calls n.Finished twice and reports whether either call said finished.
func finishedTwice(t *testing.T, n *Node) bool {
	t.Helper()
	first := finished(t, n)
	return finished(t, n) || first
}

// report calls n.Report and fails the test on error.
func report(t *testing.T, n *Node, s State) {
	t.Helper()
	if err := n.Report(context.Background(), s); err != nil {
		t.Fatalf("Report: %v", err)
	}
}

// drained waits until n's shard has nothing pending or unacknowledged.
func drained(t *testing.T, n *Node, shard int) {
	t.Helper()
	waitFor(t, "shard drained", func() bool {
		info, err := n.consumerInfo(context.Background(), shard)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
}

func TestFinished(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 4, 0, 1))
	b := join(t, testConfig(s, "b", 4, 2, 3))
	ca, cb := newCollector(), newCollector()
	consume(t, a, ca)
	ctx := context.Background()

	if finishedTwice(t, a) {
		t.Fatal("finished while no process has reported idle")
	}

	// a hands a link to b, which is not consuming yet: pending in the stream.
	if err := a.Publish(ctx, linksFor(t, 2, 4, 0, 1)); err != nil {
		t.Fatal(err)
	}
	report(t, a, State{Idle: true})
	report(t, b, State{Idle: true})
	if finishedTwice(t, a) {
		t.Fatal("finished with a batch pending for shard 2")
	}

	// b takes it in; its engine reports idle from a look taken before the intake.
	consume(t, b, cb)
	waitFor(t, "b took the link in", func() bool { return cb.count() == 1 })
	drained(t, b, 2)
	report(t, b, State{Idle: true})
	if finishedTwice(t, a) {
		t.Fatal("finished although b reported idle right after an intake")
	}

	// b fetched the link; it is idle. The first check passes; a link published before
	// the second makes the second fail.
	report(t, b, State{Idle: true})
	if finished(t, a) {
		t.Fatal("finished at the first passing check")
	}
	if err := b.Publish(ctx, linksFor(t, 0, 4, 10, 1)); err != nil {
		t.Fatal(err)
	}
	if finished(t, a) {
		t.Fatal("finished although a link was published between the checks")
	}
	waitFor(t, "a took the link in", func() bool { return ca.count() == 1 })
	drained(t, a, 0)
	// a acknowledged it, but a's last report is older than that: not finished.
	if finishedTwice(t, b) {
		t.Fatal("finished although a took a link in after its last report")
	}
	report(t, a, State{Idle: true}) // cleared: a took a link in since its last report
	if finishedTwice(t, b) {
		t.Fatal("finished although a's report right after its intake said idle")
	}
	report(t, a, State{Idle: true}) // a crawled the link
	if finished(t, b) || !finished(t, b) {
		t.Fatal("not finished after two passing checks")
	}
	// Nothing changed: b stays finished, and a agrees at its second check.
	if !finished(t, b) || finished(t, a) || !finished(t, a) {
		t.Fatal("b and a do not agree")
	}

	// A process that stopped idle keeps its shards finished.
	report(t, a, State{Idle: true, Stopped: true})
	if !finished(t, b) {
		t.Fatal("a stopping idle changed the signature: not finished")
	}
	// One that stopped busy does not.
	report(t, a, State{Idle: false, Stopped: true})
	if finished(t, b) {
		t.Fatal("finished although a stopped with work left")
	}
}

// TestFinishedNeedsEveryShard: shards no process owns keep the crawl going, and so does
// a running process whose report is stale.
func TestFinishedNeedsEveryShard(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 4, 0, 1))
	report(t, a, State{Idle: true})
	if finishedTwice(t, a) {
		t.Fatal("finished with shards 2 and 3 unowned")
	}
	cfg := testConfig(s, "b", 4, 2, 3)
	cfg.StaleAfter = 2 * time.Nanosecond // every report of a running process is stale to b
	cfg.Lease = time.Nanosecond
	b := join(t, cfg)
	report(t, b, State{Idle: true})
	if finishedTwice(t, b) {
		t.Fatal("finished on stale reports")
	}
	if finished(t, a) || !finished(t, a) {
		t.Fatal("not finished with every shard owned and idle")
	}
	// A running process that owns no shard and is not idle may still publish.
	p := join(t, testConfig(s, "publisher", 4))
	if finishedTwice(t, a) {
		t.Fatal("finished while a publisher is busy")
	}
	report(t, p, State{Idle: true})
	if finished(t, a) || !finished(t, a) {
		t.Fatal("not finished once the publisher is idle")
	}
}

func TestStatus(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 4, 0, 1))
	ctx := context.Background()
	if err := a.Publish(ctx, append(linksFor(t, 2, 4, 0, 3), linksFor(t, 0, 4, 0, 2)...)); err != nil {
		t.Fatal(err)
	}
	report(t, a, State{Queued: 7, Pages: 3})
	states, shards, err := Status(ctx, Config{URL: s.URL(), Stream: "TEST"})
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 1 || states[0].Name != "a" || states[0].Queued != 7 || states[0].Pages != 3 ||
		states[0].Published != 5 || len(states[0].Shards) != 2 {
		t.Errorf("states = %+v", states)
	}
	want := []ShardInfo{{0, "a", 1, 0}, {1, "a", 0, 0}, {2, "", 1, 0}, {3, "", 0, 0}}
	if len(shards) != len(want) {
		t.Fatalf("shards = %+v, want %+v", shards, want)
	}
	for i := range want {
		if shards[i] != want[i] {
			t.Errorf("shard %d: %+v, want %+v", i, shards[i], want[i])
		}
	}
	if _, _, err := Status(ctx, Config{URL: s.URL(), Stream: "NONE"}); err == nil {
		t.Error("Status of a crawl that does not exist: no error")
	}
}

// TestFinishedInterleavedShards: links of several shards interleaved in the stream, all
// taken in, end the crawl. (NATS Server 2.9 moves a filtered consumer's ack floor, as a
// stream sequence, past other subjects' messages: comparing stream sequences never
// agreed there.)
func TestFinishedInterleavedShards(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 2, 0))
	b := join(t, testConfig(s, "b", 2, 1))
	ca, cb := newCollector(), newCollector()
	consume(t, a, ca)
	consume(t, b, cb)
	ctx := context.Background()
	for i := range 5 {
		for shard := range 2 {
			if err := a.Publish(ctx, linksFor(t, shard, 2, i*10, 1)); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitFor(t, "every link", func() bool { return ca.count() == 5 && cb.count() == 5 })
	drained(t, a, 0)
	// Then links of shard 1 only, while shard 0's consumer waits with nothing pending.
	if err := a.Publish(ctx, linksFor(t, 1, 2, 100, 5)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "shard 1's links", func() bool { return cb.count() == 10 })
	drained(t, a, 0)
	drained(t, b, 1)
	for range 2 { // the first report after an intake is not idle
		report(t, a, State{Idle: true})
		report(t, b, State{Idle: true})
	}
	if finished(t, a) || !finished(t, a) {
		t.Fatal("not finished with every link taken in")
	}
}

// TestFinishedAckFloorJump: an owner acknowledges its shard's batch after the shard's
// consumer has looked past other shards' later messages. NATS Server 2.9 then puts the
// consumer's ack floor, as a stream sequence, past them: Finished must still agree.
// (Run with POLITECRAWL_NATS_SERVER=/usr/sbin/nats-server to see 2.9's behaviour.)
func TestFinishedAckFloorJump(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 2, 0))
	b := join(t, testConfig(s, "b", 2, 1))
	release := make(chan struct{})
	ca, cb := newCollector(), newCollector()
	ca.fail = func([]Link) error { <-release; return nil } // a's commit waits
	consume(t, a, ca)
	consume(t, b, cb)
	ctx := context.Background()
	if err := b.Publish(ctx, linksFor(t, 0, 2, 0, 1)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a's batch delivered", func() bool {
		info, err := a.consumerInfo(ctx, 0)
		return err == nil && info.NumAckPending == 1
	})
	if err := a.Publish(ctx, linksFor(t, 1, 2, 0, 3)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "b's links", func() bool { return cb.count() == 3 })
	si, err := a.stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Shard 0's consumer scans past shard 1's messages when it next pulls (at most
	// fetchWait later) on 2.9; the embedded server does not, and the wait ends at once.
	waitFor(t, "shard 0's consumer past the stream's end", func() bool {
		info, err := a.consumerInfo(ctx, 0)
		return err == nil && (info.Delivered.Stream >= si.State.LastSeq || s.cmd == nil)
	})
	close(release)
	waitFor(t, "a took its link in", func() bool { return ca.count() == 1 })
	drained(t, a, 0)
	drained(t, b, 1)
	for range 2 {
		report(t, a, State{Idle: true})
		report(t, b, State{Idle: true})
	}
	if finished(t, a) || !finished(t, a) {
		info, _ := a.consumerInfo(ctx, 0)
		a.mu.Lock()
		defer a.mu.Unlock()
		t.Fatalf("not finished with every link taken in (shard 0: taken in up to %d, ack floor %+v)", a.acked[0], info.AckFloor)
	}
}

// TestWaiting: a shard's consumer has work for its owner while batches wait for
// delivery, or while delivered, unacknowledged batches are still in the stream; not
// for unacknowledged batches the stream no longer holds (nats-server 2.9 after a
// SIGKILL keeps such a removed batch pending forever).
func TestWaiting(t *testing.T) {
	for _, tt := range []struct {
		pending    uint64
		ackPending int
		inStream   uint64
		want       bool
	}{
		{0, 0, 0, false},
		{3, 0, 3, true},
		{0, 2, 2, true},
		{0, 1, 0, false}, // the server's phantom: removed, never acknowledged in its state
		{2, 1, 2, true},
		{0, 0, 1, false}, // a batch the consumer counts acknowledged, left in the stream
	} {
		info := &jetstream.ConsumerInfo{NumPending: tt.pending, NumAckPending: tt.ackPending}
		if got := waiting(info, tt.inStream); got != tt.want {
			t.Errorf("waiting(pending %d, ack pending %d, in stream %d):\n\tgot %v\n\twant %v",
				tt.pending, tt.ackPending, tt.inStream, got, tt.want)
		}
	}
}

// TestFinishedPhantomAndLeftover builds, on a real server, the state nats-server 2.9
// can come back in after SIGKILL when its stream's files and its consumer's state
// reached the disk at different moments, with both losses on one shard: a batch the
// shard's consumer counts acknowledged that the stream still holds (its removal lost),
// and a batch the consumer counts delivered and unacknowledged that the stream no
// longer holds (its acknowledgement lost). The consumer delivers neither again, and the
// second keeps it "waiting" for as long as the first is in the stream: the owner must
// take the held batch in from the stream, keep it there while its intake fails, delete
// it once taken in, and the crawl must end. The state is made by
// putting back the stream's files of an earlier moment, as the crash does. (Run with
// POLITECRAWL_NATS_SERVER=/usr/sbin/nats-server to see 2.9's behaviour.)
func TestFinishedPhantomAndLeftover(t *testing.T) {
	s := startServer(t, nil)
	cfg := testConfig(s, "a", 1, 0)
	a := join(t, cfg)
	ctx := context.Background()
	held, gone := linksFor(t, 0, 1, 0, 3), linksFor(t, 0, 1, 100, 2)
	for _, links := range [][]Link{held, gone} { // two batches, in this order
		if err := a.Publish(ctx, links); err != nil {
			t.Fatal(err)
		}
	}
	msgs := filepath.Join(s.dir, "jetstream", "$G", "streams", cfg.Stream, "msgs")
	both, first := filepath.Join(t.TempDir(), "both"), filepath.Join(t.TempDir(), "first")
	// files stops the server, copies the stream's files to save (if not empty) and
	// replaces them with those of restore (if not empty), and starts the server again.
	files := func(save, restore string) {
		t.Helper()
		s.stop()
		if save != "" {
			if err := os.CopyFS(save, os.DirFS(msgs)); err != nil {
				t.Fatal(err)
			}
		}
		if restore != "" {
			if err := os.RemoveAll(msgs); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(msgs, os.DirFS(restore)); err != nil {
				t.Fatal(err)
			}
		}
		s.start()
	}
	files(both, "")
	si, err := a.stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The stream's files holding the first batch only (the second was removed while
	// nothing had it pending), then both again.
	if err := a.stream.DeleteMsg(ctx, si.State.LastSeq); err != nil {
		t.Fatal(err)
	}
	files(first, both)
	// Both delivered, the first acknowledged (and so removed from the stream).
	batch, err := a.consumers[0].Fetch(2)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for m := range batch.Messages() {
		if n++; n == 1 {
			if err := m.DoubleAck(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n != 2 {
		t.Fatalf("delivered %d batches, want 2 (%v)", n, batch.Error())
	}
	// The stream's files of before both acknowledgements, less the second batch, under
	// the consumer's state of after the first.
	files("", first)
	info, err := a.consumerInfo(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if si, err = a.stream.Info(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("consumer: pending %d, ack pending %d, delivered %+v, ack floor %+v; stream: %d batches, %d..%d",
		info.NumPending, info.NumAckPending, info.Delivered.Stream, info.AckFloor.Stream, si.State.Msgs, si.State.FirstSeq, si.State.LastSeq)

	// Its first intake fails: the batch must stay in the stream, for the next look.
	failed, checked := make(chan struct{}), make(chan struct{})
	var once sync.Once
	c := newCollector()
	c.fail = func([]Link) error {
		first := false
		once.Do(func() { first = true })
		if first {
			close(failed)
			return errors.New("disk full")
		}
		<-checked
		return nil
	}
	consume(t, a, c)
	<-failed
	if _, err := a.stream.GetMsg(ctx, si.State.FirstSeq); err != nil {
		t.Fatalf("the held batch after a failed intake: %v, want it still in the stream", err)
	}
	close(checked)
	waitFor(t, "the held batch taken in and the crawl finished", func() bool {
		report(t, a, State{Idle: true})
		return c.count() == len(held) && finished(t, a)
	})
	if _, err := a.stream.GetMsg(ctx, si.State.FirstSeq); !errors.Is(err, jetstream.ErrMsgNotFound) {
		t.Errorf("the held batch after its intake: %v, want %v (deleted)", err, jetstream.ErrMsgNotFound)
	}
}

// TestStuckLogged: a shard that keeps Finished waiting, its consumer and stream
// unchanged, while every process is idle is logged as an error once it has done so for
// stuckAfter; a change, or a check that waits on nothing, starts the count again.
func TestStuckLogged(t *testing.T) {
	var out syncBuilder
	n := &Node{cfg: Config{AckWait: time.Second, Log: slog.New(slog.NewTextHandler(&out, nil))}}
	info := &jetstream.ConsumerInfo{NumAckPending: 1,
		Delivered: jetstream.SequenceInfo{Consumer: 5, Stream: 9}, AckFloor: jetstream.SequenceInfo{Consumer: 4, Stream: 8}}
	on := func(info *jetstream.ConsumerInfo) *stuckShard {
		return &stuckShard{shard: 3, owner: "a", acked: 4, info: info, inStream: 1}
	}
	long := func() { // as if stuckAfter had passed since the wait began
		n.mu.Lock()
		n.stuckOn.since = n.stuckOn.since.Add(-n.stuckAfter())
		n.mu.Unlock()
	}
	logged := func() int { return strings.Count(out.String(), "the crawl cannot end") }

	n.stuck(on(info))
	n.stuck(on(info))
	if logged() != 0 {
		t.Fatalf("logged at once:\n%s", out.String())
	}
	long()
	n.stuck(on(info))
	n.stuck(on(info))
	if logged() != 1 || !strings.Contains(out.String(), "level=ERROR") || !strings.Contains(out.String(), "shard=3") {
		t.Fatalf("want one error naming shard 3 after stuckAfter, got:\n%s", out.String())
	}
	moved := *info
	moved.Delivered.Consumer++
	n.stuck(on(&moved))
	n.stuck(on(&moved))
	n.stuck(nil)
	n.stuck(on(&moved))
	if logged() != 1 {
		t.Fatalf("logged again without stuckAfter's wait after a change:\n%s", out.String())
	}
	long()
	n.stuck(on(&moved))
	if logged() != 2 {
		t.Fatalf("want a second error after a second wait, got:\n%s", out.String())
	}
}
