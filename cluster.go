package crawl

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/politecrawl/crawl/cluster"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/frontier"
)

// This file makes a Crawler one process of a crawl shared through NATS JetStream
// (DESIGN.md, "Beyond one machine"): the cluster section of the configuration, and the
// engine's side of package cluster.

// clusterConfig converts the cluster section for package cluster.
func clusterConfig(k config.Cluster) (cluster.Config, error) {
	own, err := cluster.ParseShards(k.Shards, k.ShardCount)
	if err != nil {
		return cluster.Config{}, err
	}
	return cluster.Config{
		URL: k.URL, Name: k.ProcessName(), Stream: k.Stream, Shards: k.ShardCount, Own: own,
		User: k.User, Password: k.Password, Token: k.Token, CredsFile: k.CredsFile,
		CAFile: k.CAFile, CertFile: k.CertFile, KeyFile: k.KeyFile, Replicas: k.Replicas,
		AckWait: time.Duration(k.AckWait),
		// A process whose report is older than twice its lease counts as dead: its
		// lease lapsed long before, whatever the clocks' disagreement.
		Lease: k.EffectiveLease(), StaleAfter: 2 * k.EffectiveLease(),
	}, nil
}

// member is the engine's side of a clustered crawl: what it hands off and takes in, and
// whether it is idle. A Crawler without cluster.url has none.
type member struct {
	node   *cluster.Node
	name   string
	shards []int
	every  time.Duration

	gate     idleGate
	finished chan struct{} // closed when the whole crawl has ended (Finished)
	finish   sync.Once
	stopped  chan struct{} // closed when this process stops leasing
	stop     sync.Once

	reportMu   sync.Mutex // one report at a time, so the last one written is the latest state
	lastIdle   bool       // what the last report said
	lastPages  int64
	lastReport time.Time

	lostOnce atomic.Bool // the hand-off of a lost shard's URLs was logged

	cancel context.CancelFunc // ends Consume and the reporter
	wg     sync.WaitGroup
}

// idleGate tells the workers when hand-offs may have brought work, and whether every
// worker is waiting for some. gen moves at every intake; a worker that found the
// frontier done waits for gen to move from what it was before it asked.
type idleGate struct {
	mu      sync.Mutex
	gen     uint64
	waiting int
	moved   chan struct{} // closed when gen moves
}

func (g *idleGate) generation() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gen
}

// bump records an intake and wakes the waiting workers.
func (g *idleGate) bump() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gen++
	g.waiting = 0
	if g.moved != nil {
		close(g.moved)
		g.moved = nil
	}
}

// idle reports whether all workers wait for work.
func (g *idleGate) idle(workers int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting >= workers
}

// wait blocks until gen moves past gen0, done closes, or ctx ends; it reports
// whether gen moved (the worker should ask the frontier again).
func (g *idleGate) wait(ctx context.Context, gen0 uint64, done <-chan struct{}) bool {
	g.mu.Lock()
	if g.gen != gen0 {
		g.mu.Unlock()
		return true
	}
	g.waiting++
	if g.moved == nil {
		g.moved = make(chan struct{})
	}
	moved := g.moved
	g.mu.Unlock()
	var again bool
	select {
	case <-moved:
		again = true
	case <-done:
	case <-ctx.Done():
	}
	g.mu.Lock()
	if g.gen == gen0 {
		g.waiting--
	}
	g.mu.Unlock()
	return again
}

// generation is the gate's generation, 0 without a cluster.
func (m *member) generation() uint64 {
	if m == nil {
		return 0
	}
	return m.gate.generation()
}

// waitWork is called by a worker whose frontier is done. Without a cluster it returns
// false at once: the crawl is over. In a cluster the worker waits for links from other
// processes (true: ask the frontier again) until the whole crawl has ended or ctx ends
// (false).
func (m *member) waitWork(ctx context.Context, gen uint64) bool {
	if m == nil {
		return false
	}
	return m.gate.wait(ctx, gen, m.finished)
}

// stopLeasing records that this process stops leasing: a hand-off that cannot be
// published is then abandoned, and its lease fetched again at the next start.
func (m *member) stopLeasing() { m.stop.Do(func() { close(m.stopped) }) }

// errHandOffStopped says links were not handed off because the process is stopping.
var errHandOffStopped = errors.New("hand-off abandoned: stopping")

// joinCluster joins the crawl's cluster and starts taking in the links handed to this
// process's shards, and reporting its state.
func (c *Crawler) joinCluster(ctx context.Context) error {
	cfg, err := clusterConfig(c.cfg.Cluster)
	if err != nil {
		return fmtErr("cluster", err)
	}
	cfg.Log = c.log
	node, err := cluster.Join(ctx, cfg)
	if err != nil {
		return fmtErr("joining the crawl at "+cluster.RedactURL(cfg.URL), err)
	}
	m := &member{
		node: node, name: cfg.Name, shards: cfg.Own, every: time.Duration(c.cfg.Cluster.ReportEvery),
		finished: make(chan struct{}), stopped: make(chan struct{}),
	}
	c.member = m
	if err := c.report(ctx); err != nil {
		c.log.Warn("cluster: state not reported", "err", err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.cancel = cancel
	m.wg.Add(2)
	go func() {
		defer m.wg.Done()
		c.consume(runCtx)
	}()
	go func() {
		defer m.wg.Done()
		c.reportLoop(runCtx)
	}()
	c.log.Info("joined the crawl", "nats", cluster.RedactURL(cfg.URL), "name", cfg.Name, "stream", cfg.Stream,
		"shards", c.cfg.Cluster.Shards, "shard_count", cfg.Shards)
	return nil
}

// leaveCluster stops taking in links, reports this process stopped (and idle when the
// whole crawl ended) and closes the connection. The frontier is still open.
func (c *Crawler) leaveCluster() error {
	m := c.member
	if m == nil {
		return nil
	}
	m.stopLeasing()
	m.cancel()
	m.wg.Wait()
	ended := false
	select {
	case <-m.finished:
		ended = true
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := c.clusterState()
	st.Idle, st.Stopped = ended, true
	if err := m.node.Report(ctx, st); err != nil {
		c.log.Warn("cluster: last state not reported", "err", err)
	}
	return m.node.Close()
}

// consume takes in the links handed to this process's shards until ctx ends. A
// failure of the connection is waited out: Consume starts again.
func (c *Crawler) consume(ctx context.Context) {
	for {
		err := c.member.node.Consume(ctx, c.intake)
		if ctx.Err() != nil {
			return
		}
		c.log.Warn("cluster: taking in hand-offs failed; trying again", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// intake adds links handed off by other processes to the frontier, or stages them when
// frontier.link_batch is set, and returns after its commit. The links were checked
// against the scope where they were found; the owner checks again, so that its own
// configuration decides what it fetches. Before it returns, a process that said it was
// idle says it is not, so that no process sees the crawl ended while these links wait.
func (c *Crawler) intake(ctx context.Context, links []cluster.Link) error {
	// The scope learns the hosts of the seeds file as it is read: links handed off
	// meanwhile wait in the stream, kept from redelivery, rather than be checked
	// against a part of it. (A Crawler that New did not make has no seeds to wait for.)
	if c.seedsIn != nil {
		select {
		case <-c.seedsIn:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	entries := make([]frontier.Entry, 0, len(links))
	for _, l := range links {
		if _, _, req := requisiteOf(l.Kind); l.Kind == kindPage || req && !c.reqPolicy.otherHosts {
			if reason := c.scope.Check(l.URL, l.Depth); reason != extract.ReasonNone {
				c.counters.skip(string(reason), 1)
				c.log.Debug("handed-off link not followed", "url", l.URL, "reason", string(reason), "found_on", l.FoundOn)
				continue
			}
		}
		entries = append(entries, frontier.Entry{URL: l.URL, FoundOn: l.FoundOn, Depth: l.Depth,
			Priority: l.Priority, Hops: l.Hops, Kind: l.Kind})
	}
	// When the engine stages the links it finds (frontier.link_batch), handed-off
	// links go the same cheap way: nobody needs an answer per link, and a fold sorts
	// them into the queues with the others. Durable either way before the ack.
	// Requisites are added at once, never staged: they are due right after the page
	// that needs them.
	var reqs []frontier.Entry
	if c.cfg.Frontier.LinkBatch > 0 {
		pages := entries[:0]
		for _, e := range entries {
			if _, _, req := requisiteOf(e.Kind); req {
				reqs = append(reqs, e)
			} else {
				pages = append(pages, e)
			}
		}
		entries = pages
	}
	if len(reqs) > 0 {
		if _, err := c.front.Add(ctx, reqs...); err != nil {
			return fmtErr("adding handed-off requisites", err)
		}
	}
	if c.cfg.Frontier.LinkBatch > 0 {
		if _, err := c.front.Stage(ctx, entries...); err != nil {
			return fmtErr("staging handed-off links", err)
		}
	} else if _, err := c.front.Add(ctx, entries...); err != nil {
		return fmtErr("adding handed-off links", err)
	}
	m := c.member
	m.gate.bump()
	m.reportMu.Lock()
	wasIdle := m.lastIdle
	m.reportMu.Unlock()
	if wasIdle {
		if err := c.report(ctx); err != nil {
			// The ack waits: the links are redelivered, and the seen set drops them.
			return fmtErr("reporting busy", err)
		}
	}
	return nil
}

// handOff publishes the entries whose shard this process does not own and returns the
// others. It returns once JetStream has acknowledged every published link, so that the
// caller may then finish the lease that found them. A failure (the NATS server down) is
// waited out until it passes, or until ctx ends or the process stops leasing
// (errHandOffStopped).
func (c *Crawler) handOff(ctx context.Context, entries []frontier.Entry) ([]frontier.Entry, error) {
	m := c.member
	if m == nil || len(entries) == 0 {
		return entries, nil
	}
	owned := entries[:0:0]
	var links []cluster.Link
	for _, e := range entries {
		own, _, err := m.node.Owns(e.URL)
		if err != nil || own {
			owned = append(owned, e) // a URL without a shard is fetched here
			continue
		}
		links = append(links, cluster.Link{URL: e.URL, FoundOn: e.FoundOn, Depth: e.Depth,
			Priority: e.Priority, Hops: e.Hops, Kind: e.Kind})
	}
	if len(links) == 0 {
		return owned, nil
	}
	// Publish waits out a NATS server that is away until its ctx ends: end it when
	// this process stops leasing too.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-m.stopped:
			cancel()
		case <-ctx.Done():
		}
	}()
	wait := 100 * time.Millisecond
	for {
		err := m.node.Publish(ctx, links)
		if err == nil {
			return owned, nil
		}
		select {
		case <-ctx.Done():
			return nil, errHandOffStopped
		case <-m.stopped:
			return nil, errHandOffStopped
		default:
		}
		c.log.Warn("cluster: links not handed off; trying again", "links", len(links), "wait", wait.String(), "err", err)
		select {
		case <-ctx.Done():
			return nil, errHandOffStopped
		case <-m.stopped:
			return nil, errHandOffStopped
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// awaitLease waits until this process may fetch rawURL: it owns the URL's shard and
// holds its lease, which a report that NATS stored renews (cluster.Node.AwaitLease).
// It returns cluster.ErrShardLost for a URL of a shard another process took over,
// and ctx's error if ctx ends first. Without a cluster it returns nil at once.
func (m *member) awaitLease(ctx context.Context, rawURL string) error {
	if m == nil {
		return nil
	}
	return m.node.AwaitLease(ctx, rawURL)
}

// mayFetch reports whether this process may send a request to rawURL now: nil, or
// why not (cluster.ErrLeaseLapsed, cluster.ErrShardLost). A robots.txt redirect hop
// to another site's host (anyShard) needs the lease only. Called just before the
// request is sent, after the wait for the host's turn, which may outlast the lease.
// Without a cluster it returns nil.
func (m *member) mayFetch(rawURL string, anyShard bool) error {
	switch {
	case m == nil:
		return nil
	case anyShard && m.node.HoldsLease():
		return nil
	case anyShard:
		return cluster.ErrLeaseLapsed
	}
	return m.node.CheckLease(rawURL)
}

// handOffLease gives a leased URL whose shard another process took over to that
// process: it is published to the shard's stream and leaves this frontier (skipped,
// reason handed-off). Stopping meanwhile leaves the lease to the next start.
func (c *Crawler) handOffLease(ctx context.Context, l *frontier.Lease) error {
	m := c.member
	if m.lostOnce.CompareAndSwap(false, true) {
		c.log.Warn("cluster: this process's queued URLs of the shards another process took over go to that process",
			"still_owned", cluster.FormatShards(m.node.Own()))
	}
	if _, err := c.handOff(ctx, []frontier.Entry{l.Entry}); err != nil {
		return nil
	}
	c.counters.skip(skipHandedOff, 1)
	// Straight to the frontier: not done's refetch, which would keep it here.
	if err := c.front.Done(ctx, l, frontier.Outcome{Kind: frontier.Skipped, Reason: skipHandedOff}); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmtErr("finishing "+l.URL, err)
	}
	return nil
}

// skipHandedOff is the reason a URL left the frontier for the process that took its
// shard over.
const skipHandedOff = "handed-off"

// reportLoop reports this process's state every cluster.report_every and, while it is
// idle, asks whether the whole crawl has ended.
func (c *Crawler) reportLoop(ctx context.Context) {
	m := c.member
	tick := time.NewTicker(m.every)
	defer tick.Stop()
	wasIdle := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := c.report(ctx); err != nil {
			if ctx.Err() == nil {
				c.log.Warn("cluster: state not reported", "err", err)
			}
			continue
		}
		m.reportMu.Lock()
		idle := m.lastIdle
		m.reportMu.Unlock()
		if idle && !wasIdle {
			c.log.Info("nothing left to fetch here: waiting for links from the other processes, or for the crawl's end")
		}
		wasIdle = idle
		if !idle {
			continue
		}
		done, err := m.node.Finished(ctx)
		if err != nil {
			if ctx.Err() == nil {
				c.log.Warn("cluster: could not tell whether the crawl has ended", "err", err)
			}
			continue
		}
		if done {
			c.log.Info("every process of the crawl is idle and nothing is waiting in the stream: the crawl has ended")
			m.finish.Do(func() { close(m.finished) })
		}
	}
}

// report writes this process's state for the other processes.
func (c *Crawler) report(ctx context.Context) error {
	m := c.member
	m.reportMu.Lock()
	defer m.reportMu.Unlock()
	st := c.clusterState()
	now := c.now()
	if !m.lastReport.IsZero() {
		if d := now.Sub(m.lastReport).Seconds(); d > 0 {
			st.PagesPerSec = float64(st.Pages-m.lastPages) / d
		}
	}
	if err := m.node.Report(ctx, st); err != nil {
		return err
	}
	m.lastIdle, m.lastPages, m.lastReport = st.Idle, st.Pages, now
	return nil
}

// clusterState is this process's state now; PagesPerSec is left to report.
func (c *Crawler) clusterState() cluster.State {
	m := c.member
	st := c.front.Stats()
	return cluster.State{
		Name:   m.name,
		Shards: m.shards,
		Idle:   c.began.Load() && m.gate.idle(c.cfg.Workers),
		Queued: st.Queued,
		Staged: st.Staged,
		Leased: int64(st.Leased),
		Pages:  c.counters.pages.Load(),
		Errors: c.counters.errors.Load(),
	}
}

// ClusterStatus is the state of a crawl shared through NATS, as `crawl status
// -cluster` shows it.
type ClusterStatus struct {
	URL        string // the NATS server, without credentials
	Stream     string
	ShardCount int
	Processes  []ProcessStatus // every process that has reported, by name
	// Pending counts the links' messages waiting in the stream for their owner to take
	// them; AckPending those delivered and not yet acknowledged (being added).
	Pending, AckPending uint64
	// Unowned lists the shards no process has claimed, as ranges ("" when none).
	Unowned string
}

// ProcessStatus is what one process of a clustered crawl last reported.
type ProcessStatus struct {
	Name   string
	Shards string // as ranges, such as 0-15
	// State is busy, idle (waiting for links), finished (ended with the crawl),
	// stopped (ended before the crawl did: Ctrl-C or an error), silent (no report for
	// twice cluster.lease without having said it stopped: dead, or cut off from NATS)
	// or replaced (every shard it owned taken over by another process).
	State string
	// Staged counts the links found and not yet sorted into its queues ("to sort").
	Queued, Staged, Leased, Pages, Published, Consumed int64
	PagesPerSec                                        float64
	Updated                                            time.Time // when it reported
}

// ReadClusterStatus reads the state of the crawl that k names from its NATS server.
func ReadClusterStatus(ctx context.Context, k config.Cluster) (*ClusterStatus, error) {
	cfg := cluster.Config{URL: k.URL, Stream: k.Stream, User: k.User, Password: k.Password, Token: k.Token,
		CredsFile: k.CredsFile, CAFile: k.CAFile, CertFile: k.CertFile, KeyFile: k.KeyFile}
	states, shards, err := cluster.Status(ctx, cfg)
	if err != nil {
		return nil, err
	}
	st := &ClusterStatus{URL: cluster.RedactURL(k.URL), Stream: k.Stream, ShardCount: len(shards)}
	var unowned []int
	for _, sh := range shards {
		st.Pending += sh.Pending
		st.AckPending += sh.AckPending
		if sh.Owner == "" {
			unowned = append(unowned, sh.Shard)
		}
	}
	st.Unowned = cluster.FormatShards(unowned)
	for _, s := range states {
		p := ProcessStatus{Name: s.Name, Shards: cluster.FormatShards(s.Shards), Queued: s.Queued, Staged: s.Staged, Leased: s.Leased,
			Pages: s.Pages, Published: s.Published, Consumed: s.Consumed, PagesPerSec: s.PagesPerSec, Updated: s.Updated}
		switch {
		case len(s.TakenOver) > 0 && len(s.Shards) == 0:
			p.State = "replaced"
		case s.Stopped && s.Idle:
			p.State = "finished"
		case s.Stopped:
			p.State = "stopped"
		case time.Since(s.Updated) > 2*k.EffectiveLease():
			p.State = "silent"
		case s.Idle:
			p.State = "idle"
		default:
			p.State = "busy"
		}
		st.Processes = append(st.Processes, p)
	}
	return st, nil
}
