package cluster

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/crawl/crawltest/netcut"
)

// cutOff starts a proxy to s that the test can cut, and returns it with its NATS URL.
func cutOff(t *testing.T, s *testServer) (*netcut.Proxy, string) {
	t.Helper()
	p, err := netcut.Start(strings.TrimPrefix(s.URL(), "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, "nats://" + p.Addr()
}

// reporter reports n's state every 20 ms, as the engine does every report_every, until
// the test ends.
func reporter(t *testing.T, n *Node) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			rctx, rcancel := context.WithTimeout(ctx, 500*time.Millisecond)
			_ = n.Report(rctx, State{})
			rcancel()
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// urlOf returns a URL of shard of total.
func urlOf(t *testing.T, shard, total int) string {
	t.Helper()
	return linksFor(t, shard, total, 0, 1)[0].URL
}

// blocked reports whether AwaitLease for u is still waiting after a moment: the lease
// has lapsed. (A wrong true cannot come from timing: a waiting call only returns when
// a report renews the lease.)
func blocked(n *Node, u string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	return errors.Is(n.AwaitLease(ctx, u), context.DeadlineExceeded)
}

// TestLeaseShortCut: a process cut off from NATS stops fetching once its lease lapses,
// and goes on with its shards when it reaches NATS again before anyone took them over.
func TestLeaseShortCut(t *testing.T) {
	s := startServer(t, nil)
	proxy, url := cutOff(t, s)
	cfg := testConfig(s, "p", 4, 0, 1)
	cfg.URL, cfg.StaleAfter, cfg.Lease = url, time.Hour, 300*time.Millisecond
	p := join(t, cfg)
	reporter(t, p)
	u := urlOf(t, 0, 4)
	if err := p.AwaitLease(context.Background(), u); err != nil {
		t.Fatalf("AwaitLease before the cut: %v", err)
	}
	if err := p.AwaitLease(context.Background(), urlOf(t, 2, 4)); !errors.Is(err, ErrShardLost) {
		t.Fatalf("AwaitLease of a shard not owned: %v, want ErrShardLost", err)
	}
	proxy.Cut()
	waitFor(t, "the lease to lapse", func() bool { return !p.HoldsLease() })
	if !blocked(p, u) {
		t.Fatal("AwaitLease returned with the lease lapsed")
	}
	if _, err := Join(context.Background(), testConfig(s, "q", 4, 0)); err == nil ||
		!strings.Contains(err.Error(), "owned by running process p") {
		t.Fatalf("Join of p's shard while p is only cut off: %v", err)
	}
	proxy.Restore()
	if err := p.AwaitLease(context.Background(), u); err != nil {
		t.Fatalf("AwaitLease after the cut: %v", err)
	}
	if got := p.Own(); len(got) != 2 {
		t.Fatalf("Own after a short cut = %v, want [0 1]", got)
	}
}

// TestLeaseTakeover: a process cut off for longer than StaleAfter has stopped fetching
// before another takes its shard over; when it reaches NATS again it finds the shard
// lost, stops taking in its links and says so; the links go to the new owner.
func TestLeaseTakeover(t *testing.T) {
	s := startServer(t, nil)
	proxy, url := cutOff(t, s)
	var logged syncBuilder
	cfg := testConfig(s, "p", 4, 0, 1)
	cfg.URL, cfg.StaleAfter, cfg.Lease = url, 600*time.Millisecond, 300*time.Millisecond
	cfg.Log = slog.New(slog.NewTextHandler(&logged, nil))
	p := join(t, cfg)
	reporter(t, p)
	pc := newCollector()
	consume(t, p, pc)
	u0, u1 := urlOf(t, 0, 4), urlOf(t, 1, 4)
	if err := p.AwaitLease(context.Background(), u0); err != nil {
		t.Fatalf("AwaitLease before the cut: %v", err)
	}

	proxy.Cut()
	qcfg := testConfig(s, "q", 4, 0)
	qcfg.StaleAfter, qcfg.Lease = cfg.StaleAfter, cfg.Lease
	var q *Node
	waitFor(t, "q to take shard 0 over", func() bool {
		n, err := Join(context.Background(), qcfg)
		if err != nil {
			if !strings.Contains(err.Error(), "owned by running process p") {
				t.Fatalf("Join(q): %v", err)
			}
			return false
		}
		q = n
		return true
	})
	t.Cleanup(func() { q.Close() })
	// The fencing: by the time q may take the shard over, p has stopped fetching.
	if p.HoldsLease() {
		t.Fatal("p still holds its lease when q takes its shard over")
	}
	if !blocked(p, u0) {
		t.Fatal("p's AwaitLease returned while it was cut off")
	}
	if err := q.AwaitLease(context.Background(), u0); err != nil {
		t.Fatalf("q's AwaitLease: %v", err)
	}
	qc := newCollector()
	consume(t, q, qc)

	proxy.Restore()
	if err := p.AwaitLease(context.Background(), u0); !errors.Is(err, ErrShardLost) {
		t.Fatalf("p's AwaitLease of the lost shard after the cut: %v, want ErrShardLost", err)
	}
	if err := p.AwaitLease(context.Background(), u1); err != nil {
		t.Fatalf("p's AwaitLease of the shard it kept: %v", err)
	}
	if own, _, _ := p.Owns(u0); own {
		t.Fatal("p still owns the lost shard")
	}
	if got := p.Own(); len(got) != 1 || got[0] != 1 {
		t.Fatalf("p's Own after the takeover = %v, want [1]", got)
	}
	if log := logged.String(); !strings.Contains(log, "shards taken over by another process") || !strings.Contains(log, "shards=0") {
		t.Errorf("p did not log the loss of shard 0:\n%s", log)
	}

	// Links of shard 0 go to q, not to p, which still pulls shard 1.
	links := linksFor(t, 0, 4, 0, 20)
	if err := q.Publish(context.Background(), links); err != nil {
		t.Fatal(err)
	}
	more := linksFor(t, 1, 4, 0, 5)
	if err := q.Publish(context.Background(), more); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "q to take in shard 0's links and p shard 1's", func() bool { return qc.count() == 20 && pc.count() == 5 })
	for _, l := range links {
		if len(pc.get(l.URL)) > 0 {
			t.Fatalf("p took in %s of the shard it lost", l.URL)
		}
	}

	// The reports: q owns shard 0, p only shard 1, and p's report says who took 0.
	states, _, err := Status(context.Background(), testConfig(s, "", 4))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range states {
		switch st.Name {
		case "p":
			if len(st.Shards) != 1 || st.Shards[0] != 1 || st.TakenOver[0] != "q" {
				t.Errorf("p's report: shards %v, taken over %v", st.Shards, st.TakenOver)
			}
		case "q":
			if len(st.Shards) != 1 || st.Shards[0] != 0 {
				t.Errorf("q's report: shards %v", st.Shards)
			}
		}
	}
}

// TestLeaseSameNameRestart: a process started again under the same name while its
// previous run may still hold a lease waits for that lease to lapse before fetching,
// and the previous run, if it still runs, finds itself replaced.
func TestLeaseSameNameRestart(t *testing.T) {
	s := startServer(t, nil)
	cfg := testConfig(s, "p", 4, 0, 1)
	cfg.StaleAfter, cfg.Lease = time.Hour, 200*time.Millisecond
	old := join(t, cfg)
	u := urlOf(t, 0, 4)
	if err := old.AwaitLease(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	p := join(t, cfg)
	if p.HoldsLease() && old.HoldsLease() {
		t.Fatal("both runs hold the lease")
	}
	reporter(t, p) // renews the new run's lease, as the engine does
	if p.HoldsLease() && old.HoldsLease() {
		t.Fatal("both runs hold the lease")
	}
	if err := p.AwaitLease(context.Background(), u); err != nil {
		t.Fatalf("the new run's AwaitLease: %v", err)
	}
	if old.HoldsLease() {
		t.Fatal("the old run's lease outlasts the new run's start")
	}
	if err := old.Report(context.Background(), State{}); !errors.Is(err, ErrReplaced) {
		t.Fatalf("the old run's report: %v, want ErrReplaced", err)
	}
	if got := old.Own(); len(got) != 0 {
		t.Fatalf("the old run still owns %v after a new run replaced it", got)
	}
	if err := old.AwaitLease(context.Background(), u); !errors.Is(err, ErrShardLost) {
		t.Fatalf("the old run's AwaitLease: %v, want ErrShardLost", err)
	}
	// The new run's report was not overwritten by the old run's.
	if err := p.Report(context.Background(), State{}); err != nil {
		t.Fatalf("the new run's report: %v", err)
	}
	if got := p.Own(); len(got) != 2 {
		t.Fatalf("the new run owns %v, want [0 1]", got)
	}
}

// syncBuilder is a strings.Builder safe for simultaneous use.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCheckLease: CheckLease answers at once what AwaitLease waits for.
func TestCheckLease(t *testing.T) {
	s := startServer(t, nil)
	proxy, url := cutOff(t, s)
	cfg := testConfig(s, "p", 4, 0)
	// A report's lease counts from its sending: 3s outlasts the 1s a report may take.
	cfg.URL, cfg.StaleAfter, cfg.Lease = url, time.Hour, 3*time.Second
	p := join(t, cfg)
	u := urlOf(t, 0, 4)
	if err := p.CheckLease(u); err != nil {
		t.Fatalf("CheckLease after Join: %v", err)
	}
	if err := p.CheckLease(urlOf(t, 1, 4)); !errors.Is(err, ErrShardLost) {
		t.Fatalf("CheckLease of a shard not owned: %v", err)
	}
	if err := p.CheckLease("not a url"); err != nil && !errors.Is(err, ErrLeaseLapsed) {
		t.Fatalf("CheckLease of a URL without a shard: %v", err)
	}
	proxy.Cut()
	waitFor(t, "the lease to lapse", func() bool { return errors.Is(p.CheckLease(u), ErrLeaseLapsed) })
	proxy.Restore()
	waitFor(t, "a report to renew the lease", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return p.Report(ctx, State{}) == nil
	})
	if err := p.CheckLease(u); err != nil {
		t.Fatalf("CheckLease after a report: %v", err)
	}
}

// TestRedactURL: the user information of every server URL is hidden, whatever its form.
func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"nats://127.0.0.1:4222":                          "nats://127.0.0.1:4222",
		"nats://alice:s3cret@127.0.0.1:4222":             "nats://***@127.0.0.1:4222",
		"nats://T0KEN@host:4222,tls://bob:pw@other:4222": "nats://***@host:4222,tls://***@other:4222",
		"nats://al ice:p@ss@host":                        "nats://***@host",
		"alice:pw@host:4222":                             "***@host:4222",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
