package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// TestHandOff: links published by one node reach the owner of their shard, and only it.
func TestHandOff(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 4, 0, 1))
	b := join(t, testConfig(s, "b", 4, 2, 3))
	ca, cb := newCollector(), newCollector()
	consume(t, a, ca)
	consume(t, b, cb)

	var links []Link
	for shard := range 4 {
		links = append(links, linksFor(t, shard, 4, shard*100, 50)...)
	}
	ctx := context.Background()
	if err := a.Publish(ctx, links[:100]); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish(ctx, links[100:]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "all links taken in", func() bool { return ca.count()+cb.count() == len(links) })
	for _, l := range links {
		owner, other := ca, cb
		if sh, _ := ShardOf(l.URL, 4); sh >= 2 {
			owner, other = cb, ca
		}
		got := owner.get(l.URL)
		if len(got) != 1 || got[0] != l {
			t.Errorf("owner took in %+v, want once %+v", got, l)
		}
		if n := len(other.get(l.URL)); n != 0 {
			t.Errorf("%s taken in %d times by a non-owner", l.URL, n)
		}
	}
	if got := a.Stats().Published + b.Stats().Published; got != int64(len(links)) {
		t.Errorf("published %d, want %d", got, len(links))
	}
	waitFor(t, "consumed counted", func() bool {
		return a.Stats().Consumed+b.Stats().Consumed == int64(len(links))
	})
}

// TestOwns: Owns agrees with ShardOf and the node's shards.
func TestOwns(t *testing.T) {
	s := startServer(t, nil)
	n := join(t, testConfig(s, "a", 4, 1, 3))
	for _, l := range append(linksFor(t, 1, 4, 0, 3), linksFor(t, 2, 4, 0, 3)...) {
		owned, shard, err := n.Owns(l.URL)
		want, _ := ShardOf(l.URL, 4)
		if err != nil || shard != want || owned != (want == 1 || want == 3) {
			t.Errorf("Owns(%q) = %v, %d, %v; want %v, %d, nil", l.URL, owned, shard, err, want == 1 || want == 3, want)
		}
	}
	if _, _, err := n.Owns("/relative"); err == nil {
		t.Error("Owns of a URL without host: no error")
	}
}

// TestPublishDedup: a URL given twice in one Publish is sent once with the lower
// depth, and a batch published twice is stored once (its message ID).
func TestPublishDedup(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 2, 0))
	b := join(t, testConfig(s, "b", 2, 1))
	links := linksFor(t, 1, 2, 0, 10)
	dup := links[3]
	dup.Depth = 0
	dup.FoundOn = "https://other.example/"
	in := append(append([]Link(nil), links...), dup, links[5])
	ctx := context.Background()
	if err := a.Publish(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(ctx, in); err != nil { // same batch again: a JetStream duplicate
		t.Fatal(err)
	}
	if got := a.Stats().Duplicates; got != 1 {
		t.Errorf("duplicates %d, want 1", got)
	}
	c := newCollector()
	consume(t, b, c)
	waitFor(t, "links taken in", func() bool { return c.count() == len(links) })
	waitFor(t, "all acknowledged", func() bool {
		info, err := b.consumerInfo(ctx, 1)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
	for i, l := range links {
		want := l
		if i == 3 {
			want = dup
		}
		if got := c.get(l.URL); len(got) != 1 || got[0] != want {
			t.Errorf("%s taken in as %+v, want once %+v", l.URL, got, want)
		}
	}
}

// TestAckAfterCommit: a batch whose intake fails is not acknowledged and comes again;
// once intake succeeds it is acknowledged and not delivered again.
func TestAckAfterCommit(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 2, 0, 1))
	links := linksFor(t, 1, 2, 0, 5)
	var failures atomic.Int32
	c := newCollector()
	c.fail = func([]Link) error {
		if failures.Add(1) <= 2 {
			return errors.New("disk full")
		}
		return nil
	}
	consume(t, a, c)
	if err := a.Publish(context.Background(), links); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "links taken in", func() bool { return c.count() == len(links) })
	waitFor(t, "all acknowledged", func() bool {
		info, err := a.consumerInfo(context.Background(), 1)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
	if got := failures.Load(); got != 3 {
		t.Errorf("intake called %d times, want 3 (2 failures, 1 success)", got)
	}
	for _, l := range links {
		if got := len(c.get(l.URL)); got != 1 {
			t.Errorf("%s taken in %d times, want 1", l.URL, got)
		}
	}
	if got := a.Stats().Consumed; got != int64(len(links)) {
		t.Errorf("consumed %d, want %d", got, len(links))
	}
}

// TestCrashRedelivery: a process that dies while its intake runs never acknowledges;
// the batch goes to the same shard's next owner (same durable consumer).
func TestCrashRedelivery(t *testing.T) {
	s := startServer(t, nil)
	cfg := testConfig(s, "a", 2, 0, 1)
	a := join(t, cfg)
	links := linksFor(t, 0, 2, 0, 5)
	if err := a.Publish(context.Background(), links); err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- a.Consume(ctx, func(ctx context.Context, _ []Link) error {
			close(entered)
			<-ctx.Done() // the commit never finishes
			return ctx.Err()
		})
	}()
	<-entered
	a.nc.Close() // the crash: no ack, no nak reaches the server
	cancel()
	<-done
	a.Close()

	b := join(t, cfg) // restarted with the same name and shards
	c := newCollector()
	consume(t, b, c)
	waitFor(t, "redelivery to the restarted process", func() bool { return c.count() == len(links) })
	for _, l := range links {
		if got := c.get(l.URL); len(got) != 1 || got[0] != l {
			t.Errorf("%s taken in as %+v, want once %+v", l.URL, got, l)
		}
	}
}

// TestConsumeStopReleases: batches delivered but not taken in when Consume returns are
// released for the next owner at once, not after AckWait.
func TestConsumeStopReleases(t *testing.T) {
	s := startServer(t, nil)
	cfg := testConfig(s, "a", 2, 0, 1)
	cfg.AckWait = DefaultAckWait // longer than the test waits
	a := join(t, cfg)
	links := linksFor(t, 0, 2, 0, 5)
	if err := a.Publish(context.Background(), links); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	entered := make(chan struct{})
	go func() {
		done <- a.Consume(ctx, func(ctx context.Context, _ []Link) error {
			close(entered)
			<-ctx.Done()
			return ctx.Err() // Ctrl-C during the commit: it did not happen
		})
	}()
	<-entered
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Consume: %v, want context.Canceled", err)
	}
	a.Close()
	b := join(t, cfg)
	c := newCollector()
	consume(t, b, c)
	waitFor(t, "redelivery", func() bool { return c.count() == len(links) })
}

// TestServerRestart: with file storage, published links survive a restart of the NATS
// server; a Publish made while the server is down returns once it is back; the nodes
// reconnect by themselves, and a running Consume goes on.
func TestServerRestart(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 2, 0))
	b := join(t, testConfig(s, "b", 2, 1))
	before := linksFor(t, 1, 2, 0, 20)
	ctx := context.Background()
	if err := a.Publish(ctx, before); err != nil {
		t.Fatal(err)
	}
	s.stop()
	during := linksFor(t, 1, 2, 100, 20)
	published := make(chan error, 1)
	go func() { published <- a.Publish(ctx, during) }()
	s.restart()
	if err := <-published; err != nil {
		t.Fatalf("Publish across the restart: %v", err)
	}
	c := newCollector()
	consume(t, b, c)
	waitFor(t, "links from before and during the restart", func() bool { return c.count() == len(before)+len(during) })

	// Consume keeps running through a second restart.
	s.restart()
	after := linksFor(t, 1, 2, 200, 20)
	if err := a.Publish(ctx, after); err != nil {
		t.Fatalf("Publish after the restart: %v", err)
	}
	waitFor(t, "links after the second restart", func() bool { return c.count() == len(before)+len(during)+len(after) })
	for _, l := range append(append(before, during...), after...) {
		if got := len(c.get(l.URL)); got != 1 {
			t.Errorf("%s taken in %d times, want 1", l.URL, got)
		}
	}
}

// TestDamagedMessage: a message that is not a batch is terminated and counted, and the
// shard's next batch still arrives.
func TestDamagedMessage(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 2, 0, 1))
	good := encodeBatch(linksFor(t, 1, 2, 0, 3))
	bad := append([]byte(nil), good...)
	bad[len(bad)/2] ^= 0x40
	for _, data := range [][]byte{[]byte("hello"), bad} {
		if _, err := a.js.Publish(context.Background(), subjectOf("TEST", 1), data); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Publish(context.Background(), linksFor(t, 1, 2, 0, 3)); err != nil {
		t.Fatal(err)
	}
	c := newCollector()
	consume(t, a, c)
	waitFor(t, "the good batch", func() bool { return c.count() == 3 })
	waitFor(t, "nothing pending", func() bool {
		info, err := a.consumerInfo(context.Background(), 1)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
	if got := a.Stats().Damaged; got != 2 {
		t.Errorf("damaged %d, want 2", got)
	}
}

// TestShardCountMismatch: the shard count is fixed by the first Join.
func TestShardCountMismatch(t *testing.T) {
	s := startServer(t, nil)
	join(t, testConfig(s, "a", 8, 0))
	_, err := Join(context.Background(), testConfig(s, "b", 16, 1))
	if err == nil || !strings.Contains(err.Error(), "has 8 shards, not 16") {
		t.Fatalf("Join with 16 shards into a crawl of 8: %v", err)
	}
	cfg := testConfig(s, "c", 0, 1) // zero: whatever the crawl has
	if n := join(t, cfg); n.Shards() != 8 {
		t.Errorf("Shards() = %d, want 8", n.Shards())
	}
}

// TestClaimConflict: a shard owned by a running process cannot be joined by another,
// but can once that process reported it stopped.
func TestClaimConflict(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 4, 0, 1))
	_, err := Join(context.Background(), testConfig(s, "b", 4, 1, 2))
	if err == nil || !strings.Contains(err.Error(), "shard 1 is owned by running process a") {
		t.Fatalf("Join of a's shard: %v", err)
	}
	if err := a.Report(context.Background(), State{Stopped: true}); err != nil {
		t.Fatal(err)
	}
	join(t, testConfig(s, "b", 4, 1, 2))
}

// TestJoinErrors: configurations Join refuses before connecting.
func TestJoinErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no URL", Config{Own: []int{0}}, "no NATS URL"},
		{"stream", Config{URL: "nats://127.0.0.1:1", Stream: "a.b"}, "stream name"},
		{"token and user", Config{URL: "nats://127.0.0.1:1", Token: "t", User: "u"}, "one way"},
		{"cert without key", Config{URL: "nats://127.0.0.1:1", CertFile: "c"}, "go together"},
		{"missing CA", Config{URL: "nats://127.0.0.1:1", CAFile: "/nonexistent/ca.pem"}, "ca.pem"},
		{"no server", Config{URL: "nats://127.0.0.1:1"}, "connect nats://127.0.0.1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Join(context.Background(), tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "cluster: ") {
				t.Errorf("Join: %v, want an error about %q", err, tc.want)
			}
		})
	}
}

// TestTwoCrawlsShareServer: streams of different names are separate crawls.
func TestTwoCrawlsShareServer(t *testing.T) {
	s := startServer(t, nil)
	cfg1 := testConfig(s, "a", 2, 0, 1)
	cfg2 := cfg1
	cfg2.Stream, cfg2.Shards, cfg2.Own = "OTHER", 4, []int{3}
	a, b := join(t, cfg1), join(t, cfg2)
	c1, c2 := newCollector(), newCollector()
	consume(t, a, c1)
	consume(t, b, c2)
	if err := a.Publish(context.Background(), linksFor(t, 1, 2, 0, 3)); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish(context.Background(), linksFor(t, 3, 4, 0, 4)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "both crawls' links", func() bool { return c1.count() == 3 && c2.count() == 4 })
	if got := fmt.Sprint(a.Shards(), a.Own(), b.Shards(), b.Own()); got != "2 [0 1] 4 [3]" {
		t.Errorf("shards and owned: %s, want 2 [0 1] 4 [3]", got)
	}
}

// TestJoinAgainChangesAckWait: a process started again with another AckWait updates its
// shards' consumers (NATS Server 2.9 included).
func TestJoinAgainChangesAckWait(t *testing.T) {
	s := startServer(t, nil)
	cfg := testConfig(s, "a", 2, 0, 1)
	a := join(t, cfg)
	a.Close()
	cfg.AckWait = 7 * time.Second
	b := join(t, cfg)
	info, err := b.consumerInfo(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.AckWait != 7*time.Second {
		t.Errorf("ack wait %v, want 7s", info.Config.AckWait)
	}
}

// TestNodeMisuse: calls a Node refuses.
func TestNodeMisuse(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 2, 0, 1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Consume(ctx, newCollector().intake) }()
	waitFor(t, "Consume running", a.consuming.Load)
	if err := a.Consume(ctx, newCollector().intake); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second Consume: %v", err)
	}
	cancel()
	<-done

	// A process that owns no shard only publishes; its Consume waits for ctx.
	p := join(t, testConfig(s, "p", 2))
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := p.Consume(ctx2, newCollector().intake); !errors.Is(err, context.Canceled) {
		t.Errorf("Consume without shards: %v", err)
	}

	if _, err := Join(context.Background(), testConfig(s, "b", 2, 2)); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("Join of shard 2 of 2: %v", err)
	}
	if _, err := Join(context.Background(), testConfig(s, "b", 2, 1, 1)); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("Join of shard 1 twice: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := a.Publish(context.Background(), linksFor(t, 0, 2, 0, 1)); err == nil {
		t.Error("Publish after Close: no error")
	}
	if err := a.Consume(context.Background(), newCollector().intake); err == nil {
		t.Error("Consume after Close: no error")
	}
}

// TestCloseEndsConsume: Close while Consume runs makes Consume return an error.
func TestCloseEndsConsume(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 2, 0, 1))
	done := make(chan error, 1)
	go func() { done <- a.Consume(context.Background(), newCollector().intake) }()
	waitFor(t, "Consume running", a.consuming.Load)
	a.Close()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Consume after Close: %v", err)
	}
}

// TestPublishConcurrent: Publish calls from many goroutines (merged by the publisher)
// each return once their links are stored: with every call returned and the servers'
// store the only place they can be, the owner then takes every link in exactly once.
func TestPublishConcurrent(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 4, 0))
	b := join(t, testConfig(s, "b", 4, 1, 2, 3))
	var all []Link
	for shard := range 4 {
		all = append(all, linksFor(t, shard, 4, 0, 200)...)
	}
	errs := make(chan error, 16)
	for w := range 16 {
		go func() {
			var err error
			for i := w * 50; i < len(all) && err == nil; i += 16 * 50 {
				err = a.Publish(context.Background(), all[i:min(i+50, len(all))])
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	a.Close() // nothing more can come from a
	ca, cb := newCollector(), newCollector()
	a2 := join(t, testConfig(s, "a", 4, 0))
	consume(t, a2, ca)
	consume(t, b, cb)
	waitFor(t, "every link", func() bool { return ca.count()+cb.count() == len(all) })
	for _, l := range all {
		if got := len(ca.get(l.URL)) + len(cb.get(l.URL)); got != 1 {
			t.Errorf("%s taken in %d times", l.URL, got)
		}
	}
}

// TestJoinWithoutJetStream: a server without JetStream is refused with a clear error.
func TestJoinWithoutJetStream(t *testing.T) {
	s := startServer(t, func(o *server.Options) { o.JetStream = false })
	_, err := Join(context.Background(), testConfig(s, "a", 2, 0))
	if err == nil || !strings.Contains(err.Error(), "cluster: stream TEST: ") || !strings.Contains(err.Error(), "JetStream is not enabled") {
		t.Errorf("Join: %v, want an error saying JetStream is missing", err)
	}
}

// TestPublishCancelled: a Publish waiting out an absent server returns when its ctx
// ends; the hand-off goes on once the server is back, and later calls work.
func TestPublishCancelled(t *testing.T) {
	s := startServer(t, nil)
	a := join(t, testConfig(s, "a", 2, 0))
	b := join(t, testConfig(s, "b", 2, 1))
	s.stop()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	first := linksFor(t, 1, 2, 0, 3)
	go func() { done <- a.Publish(ctx, first) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Publish with its ctx cancelled: %v", err)
	}
	s.restart()
	second := linksFor(t, 1, 2, 100, 3)
	if err := a.Publish(context.Background(), second); err != nil {
		t.Fatalf("Publish after the server came back: %v", err)
	}
	c := newCollector()
	consume(t, b, c)
	waitFor(t, "the second call's links", func() bool {
		for _, l := range second {
			if len(c.get(l.URL)) == 0 {
				return false
			}
		}
		return true
	})
}

// TestCreateRace: processes that start at the same time create the crawl's stream and
// state bucket at once; each opens what the other created, whatever the server answers
// the second creation (the name in use, or, from nats-server 2.9, subjects that overlap
// a stream still being created).
func TestCreateRace(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	const processes = 4
	for round := range 100 {
		cfg := testConfig(s, "p", 4)
		cfg.Stream = fmt.Sprintf("RACE%d", round)
		cfg = cfg.withDefaults()
		errs := make(chan error, processes)
		for range processes {
			go func() {
				nc, err := cfg.connect()
				if err != nil {
					errs <- err
					return
				}
				defer nc.Close()
				js, err := jetstream.New(nc)
				if err != nil {
					errs <- err
					return
				}
				if _, err := ensureStream(ctx, js, &cfg); err != nil {
					errs <- err
					return
				}
				_, err = ensureBucket(ctx, js, &cfg)
				errs <- err
			}()
		}
		for range processes {
			if err := <-errs; err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
	}
}

// TestErrCreateRaced: the errors of a creation that raced another, and one that did not.
func TestErrCreateRaced(t *testing.T) {
	overlap := &jetstream.APIError{Code: 400, ErrorCode: errCodeSubjectsOverlap, Description: "subjects overlap with an existing stream"}
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{jetstream.ErrStreamNameAlreadyInUse, true},
		{fmt.Errorf("create: %w", overlap), true},
		{&jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeBadRequest}, false},
		{errors.New("nats: timeout"), false},
		{nil, false},
	} {
		if got := errCreateRaced(tt.err); got != tt.want {
			t.Errorf("errCreateRaced(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
