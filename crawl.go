package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/politecrawl/crawl/audit"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/frontier"
	"github.com/politecrawl/crawl/politeness"
	"github.com/politecrawl/crawl/recrawl"
	"github.com/politecrawl/crawl/robots"
	"github.com/politecrawl/crawl/storage"
)

// Version is politecrawl's version, written into WARC warcinfo records.
const Version = "0.1.0"

// Entry kinds stored in the frontier.
const (
	kindPage    uint8 = 0 // an HTML page or any document
	kindSitemap uint8 = 1 // a sitemap, sitemap index or feed
)

// Priorities in the frontier: seeds and sitemap files first, then sitemap URLs, then links.
const (
	prioritySeed       = 20
	prioritySitemap    = 10
	prioritySitemapURL = 5
	priorityLink       = 0
)

// Crawler is a configured crawl. Build it with New, set its optional fields, and call
// Run once. Summary may be called at any time, from any goroutine.
type Crawler struct {
	// Stderr receives human-readable logs: warnings and above, or everything with
	// log_level debug. Nil means os.Stderr.
	Stderr io.Writer
	// ProgressEvery, when positive, logs a progress record in crawl.log at this
	// interval. Progress returns the same figures at any time, for a live display.
	ProgressEvery time.Duration
	// StatusEvery is how often the status file (StatusFile in the data directory) is
	// rewritten while the crawl runs; 0 means DefaultStatusEvery.
	StatusEvery time.Duration
	// OnPermanent, when set, hears of every fetch that failed in a way trying again
	// cannot cure and a configuration change may (an address refused, a certificate
	// not trusted, a host name that does not exist), instead of a warning on Stderr.
	// Workers call it, possibly at once: it must be safe for concurrent use.
	OnPermanent func(*PermanentError)
	// OnSeedSkip, when set, hears of the first lines of the seeds file
	// (config.Config.SeedsFile) that are not seed URLs, as a run reads them, instead of
	// a warning on Stderr; crawl.log has them either way, and SeedsRead counts them all.
	OnSeedSkip func(path string, skip config.SeedSkip)
	// OnSeedsRead, when set, hears once a run has read the seeds file to its end (or
	// found it read by an earlier run) what it read.
	OnSeedsRead func(SeedsRead)
	// Now is the clock; nil means time.Now. Tests may replace it.
	Now func() time.Time

	cfg    config.Config
	agent  string   // product token matched against robots.txt groups
	tdm    tdmFiles // each origin's tdmrep.json (optouts.go)
	urls   extract.URLRules
	scope  *extract.Scope
	client *fetch.Client
	mem    *memBudget // body bytes in memory across workers
	links  *linkCache // links handed to the frontier lately (process.go)
	// reqPolicy is what the requisites section lets in (requisites.go).
	reqPolicy requisitePolicy
	jar       *fetch.Jar // cookies by site, kept in DataDir/CookiesName (cookies.go)
	// startCookies are fetch.cookies_file's, added to the jar when Run opens it.
	startCookies []fetch.Cookie
	// refetch decides when a finished page is due again (recrawl.interval).
	refetch recrawl.Policy
	// politeness paces each host: when it may be fetched next.
	politeness *politeness.Scheduler

	// Opened by Run.
	log       *slog.Logger // crawl.log and stderr
	fileLog   *slog.Logger // crawl.log only
	front     *frontier.Frontier
	robots    *robots.Cache
	warc      *storage.WARCWriter
	pages     *storage.PagesWriter
	skipped   *storage.SkippedWriter
	recrawl   *recrawl.Store // schedule.db, with recrawl on; nil otherwise
	commit    *storage.Group // a page's records and lines, durable in one wait (process.go)
	counters  *counters
	member    *member    // the crawl's other processes (cluster.url); nil: this process alone
	seeds     *seedStore // seeds.db: how far the seeds file is read, the scope keys of its seeds; nil: none
	seedsMu   sync.Mutex
	seedsRead SeedsRead     // what Run read of the seeds file
	seedsIn   chan struct{} // closed once the seeds are queued and the scope knows them all
	// seedsStep, for tests, runs as the seeds are read: after each batch is "added"
	// to the frontier and "committed" to seeds.db, and when they are "done".
	seedsStep func(stage string)
	// synced, for tests, runs in syncDones after a storage round succeeded and before
	// the frontier commits the dones leases done.
	synced func(dones int)

	started     time.Time
	resumed     bool        // the frontier held hosts when Run began: a previous run touched them
	wasComplete bool        // ...and had nothing left to fetch: an earlier run completed the crawl
	timeLimit   atomic.Bool // scope.max_duration stopped the run
	ended       time.Time
	finalStats  atomic.Pointer[frontier.Stats] // the frontier's figures when the workers stopped
	finished    chan struct{}                  // closed when Run returns
	began       atomic.Bool                    // Run opened everything and queued the seeds
	failed      atomic.Bool                    // Run is returning an error that stopped the crawl
	metricsAddr atomic.Value                   // string: the address the metrics server listens on
	runOnce     sync.Once

	sitemapsMu     sync.Mutex
	sitemapsQueued map[string]bool // authorities whose robots.txt sitemaps were queued this run
	setAsideMu     sync.Mutex
	setAside       map[string]bool // hosts set aside in this run (robots.txt unreachable)
	refusedHosts   sync.Map        // authority → why its address is refused by policy (its robots.txt fetch said)
	nearDups       nearDups        // SimHashes of the pages of each host (extract.skip_near_duplicates)
	rulesMu        sync.Mutex
	rulesFor       map[string]*robots.Robots // the robots.txt whose pacing rules the scheduler holds, by authority
	groupFor       map[string]groupFacts     // what that robots.txt asks of our agent, by authority
}

// New checks cfg and builds a Crawler. It opens no file and starts nothing: Run does.
// A bad value is reported as a *config.Error.
func New(cfg config.Config) (*Crawler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Crawler{
		cfg:            cfg,
		agent:          robots.AgentToken(cfg.UserAgent),
		finished:       make(chan struct{}),
		sitemapsQueued: map[string]bool{},
		rulesFor:       map[string]*robots.Robots{},
		groupFor:       map[string]groupFacts{},
		setAside:       map[string]bool{},
		counters:       newCounters(),
		seedsIn:        make(chan struct{}),
	}
	c.urls = extract.URLRules{StripParams: cfg.URL.StripParams, SortQuery: cfg.URL.SortQuery}
	c.links = newLinkCache(cfg.Frontier.LinkCache)
	c.reqPolicy = newRequisitePolicy(cfg.Requisites)
	c.refetch = recrawl.NewPolicy(recrawl.Options{
		Interval:    time.Duration(cfg.Recrawl.Interval),
		Adaptive:    cfg.Recrawl.Mode == config.RecrawlAdaptive,
		MinInterval: time.Duration(cfg.Recrawl.MinInterval),
		MaxInterval: time.Duration(cfg.Recrawl.MaxInterval),
	})
	canonSeeds := make([]string, 0, len(cfg.Seeds))
	for i, s := range cfg.Seeds {
		u, err := c.urls.Canonical(s)
		if err != nil {
			return nil, &config.Error{Field: fmt.Sprintf("seeds[%d]", i), Value: s, Err: err}
		}
		canonSeeds = append(canonSeeds, u)
	}
	c.cfg.Seeds = canonSeeds
	prefixes := make([]string, 0, len(cfg.Scope.Prefixes))
	for i, p := range cfg.Scope.Prefixes {
		u, err := c.urls.Canonical(p)
		if err != nil {
			return nil, &config.Error{Field: fmt.Sprintf("scope.prefixes[%d]", i), Value: p, Err: err}
		}
		prefixes = append(prefixes, u)
	}
	scope, err := extract.NewScope(extract.ScopeOptions{
		Mode:                cfg.Scope.Mode,
		Seeds:               canonSeeds,
		Prefixes:            prefixes,
		Include:             cfg.Scope.Include,
		Exclude:             cfg.Scope.Exclude,
		MaxDepth:            int(cfg.Scope.MaxDepth),
		MaxURLLength:        cfg.Scope.MaxURLLength,
		MaxPathSegments:     cfg.Scope.MaxPathSegments,
		MaxRepeatedSegments: cfg.Scope.MaxRepeatedSegments,
		MaxQueryParams:      cfg.Scope.MaxQueryParams,
		CalendarTrap:        cfg.Scope.CalendarTrap,
	})
	if err != nil {
		return nil, &config.Error{Field: "scope", Err: err}
	}
	c.scope = scope
	if c.startCookies, err = cfg.Fetch.Cookies(); err != nil {
		return nil, err
	}
	c.jar = fetch.NewJar(c.Now)
	if c.client, err = newClient(cfg, c.jar); err != nil {
		return nil, err
	}
	htmlOpts := extract.HTMLOptions{MaxHTMLBytes: int(cfg.Extract.MaxHTMLBytes),
		WithText: cfg.Storage.Text || cfg.Storage.TextRecords || cfg.Storage.WET || cfg.Extract.SkipNearDuplicates}
	c.mem = newMemBudget(int64(cfg.Fetch.MaxBytesInFlight), func(n int64) int64 { return extract.HTMLMemory(n, htmlOpts) })
	return c, nil
}

// Config returns the configuration the crawler runs with (seeds in canonical form).
func (c *Crawler) Config() config.Config { return c.cfg }

// Done is closed when Run has returned.
func (c *Crawler) Done() <-chan struct{} { return c.finished }

func (c *Crawler) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Run crawls until nothing is left to fetch or ctx ends. When ctx ends it stops leasing
// new URLs, lets the fetches in flight finish (each within the fetch timeout), writes
// everything down and returns ctx's error; running again resumes. Run returns only after
// every goroutine it started has exited. It may be called once.
func (c *Crawler) Run(ctx context.Context) (err error) {
	ran := false
	c.runOnce.Do(func() { ran = true })
	if !ran {
		return errors.New("Run called twice")
	}
	defer close(c.finished)
	c.started = c.now()
	defer func() { c.ended = c.now() }()

	metricsLn, err := c.listenMetrics()
	if err != nil {
		return err
	}
	if metricsLn != nil {
		defer metricsLn.Close() // after serveMetrics' stop, or when the start fails
	}
	_, statErr := os.Stat(c.cfg.DataDir)
	if err := os.MkdirAll(c.cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("creating the data directory: %w", err)
	}
	// A process refused at the cluster's join leaves no data directory behind when it
	// made it: runs after every other deferred call, the files closed.
	joinFailed := false
	if errors.Is(statErr, os.ErrNotExist) {
		defer func() {
			if joinFailed || errors.Is(err, ErrNoSeeds) {
				os.RemoveAll(c.cfg.DataDir)
			}
		}()
	}
	// The frontier comes first: its lock says whether another crawl is using this data
	// directory, and a crawl refused for that writes nothing there, not even to the
	// other crawl's crawl.log.
	if err := c.openFrontier(); err != nil {
		if !errors.Is(err, frontier.ErrLocked) {
			if logFile, lerr := c.openLog(); lerr == nil {
				c.fileLog.Error("crawl failed", "err", err)
				logFile.Close()
			}
		}
		return err
	}
	logFile, err := c.openLog()
	if err != nil {
		c.close()
		return err
	}
	defer logFile.Close()
	// The error that ends the crawl goes to crawl.log; the caller prints it on stderr,
	// once.
	defer func() {
		if err != nil && !errors.Is(err, context.Canceled) {
			c.fileLog.Error("crawl failed", "err", err)
		}
	}()
	// Runs after close (defers run last first): the package is made of files
	// whole on disk.
	defer func() {
		if err == nil && c.cfg.Storage.WACZ {
			err = c.packWACZ()
		}
	}()
	defer func() {
		if cerr := c.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if err := c.open(); err != nil {
		return err
	}
	if err := c.importDedup(ctx); err != nil {
		return err
	}
	if err := c.openSeeds(); err != nil {
		return err
	}
	if c.cfg.Cluster.URL != "" {
		if err := c.joinCluster(ctx); err != nil {
			joinFailed = true
			return err
		}
		// Runs before close: the frontier takes in hand-offs until then.
		defer func() {
			if lerr := c.leaveCluster(); lerr != nil && err == nil {
				err = fmtErr("leaving the crawl", lerr)
			}
		}()
	}
	c.log.Info("crawl started", "seeds", len(c.cfg.Seeds), "seeds_file", c.cfg.SeedsFile, "workers", c.cfg.Workers,
		"agent", c.agent, "min_delay", c.cfg.Politeness.MinDelay.String(), "data_dir", c.cfg.DataDir)
	if c.cfg.Fetch.InsecureSkipVerify {
		c.log.Warn("fetch.insecure_skip_verify is on: TLS certificates are not checked, so anyone on the path can pose as a site and its pages are archived as genuine")
	}

	before := c.front.Stats()
	c.resumed = before.Hosts > 0
	c.wasComplete = c.resumed && before.Queued == 0 && before.Leased == 0 && before.Staged == 0 && before.Parked == 0
	if err := c.addSeeds(ctx); err != nil {
		return err
	}

	defer c.serveMetrics(metricsLn)()
	c.began.Store(true)
	// The final figures stay in the status file when the crawl (and its metrics
	// server) is gone.
	defer func() {
		state := endState(c.Summary(), err)
		c.failed.Store(state == StateFailed)
		if werr := c.writeStatus(state, 0, err); werr != nil {
			c.log.Warn("status file not written", "err", werr)
		}
	}()

	progressCtx, stopProgress := context.WithCancel(context.Background())
	var progressWG sync.WaitGroup
	progressWG.Add(1)
	go func() {
		defer progressWG.Done()
		c.reportProgress(progressCtx)
	}()
	defer func() {
		stopProgress()
		progressWG.Wait()
	}()

	runCtx := ctx
	if d := time.Duration(c.cfg.Scope.MaxDuration); d > 0 {
		// The limit counts from the start of Run; reaching it stops the run as a
		// cancelled ctx does: fetches in flight finish, the rest stays queued.
		var cancel context.CancelFunc
		runCtx, cancel = context.WithDeadlineCause(ctx, c.started.Add(d), ErrTimeLimit)
		defer cancel()
	}
	err = c.runWorkers(runCtx)
	if errors.Is(context.Cause(runCtx), ErrTimeLimit) && ctx.Err() == nil {
		c.timeLimit.Store(true)
		err = nil
	}
	if err == nil {
		// Under ctx, not runCtx: a run its time limit stopped sorts its last pages'
		// links into the queues too, as one that max_pages stopped does.
		err = c.sortInStaged(ctx)
	}
	st := c.front.Stats()
	c.finalStats.Store(&st)
	sum := c.Summary()
	c.log.Info("crawl ended", "complete", sum.Complete, "pages", sum.Pages, "bytes", sum.Bytes,
		"robots_blocked", sum.RobotsBlocked, "errors", sum.Errors, "queued", sum.Queued,
		"duration", sum.Duration.String())
	return err
}

// runWorkers runs the worker pool until the frontier is exhausted, ctx ends, or a
// worker meets an error that must stop the crawl (a storage failure).
func (c *Crawler) runWorkers(ctx context.Context) error {
	// leaseCtx ends leasing and the waits before a fetch (robots.txt, politeness); a
	// fetch under way continues under workCtx, which only a fatal error ends, so a
	// graceful stop lets fetches in flight finish and abandons the rest.
	leaseCtx, stopLeasing := context.WithCancel(ctx)
	defer stopLeasing()
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	if c.member != nil {
		defer context.AfterFunc(leaseCtx, c.member.stopLeasing)()
	}

	var (
		wg       sync.WaitGroup
		fatalMu  sync.Mutex
		fatalErr error
	)
	fail := func(err error) {
		fatalMu.Lock()
		if fatalErr == nil {
			fatalErr = err
		}
		fatalMu.Unlock()
		stopLeasing()
		stopWork()
	}
	for i := 0; i < c.cfg.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				gen := c.member.generation()
				lease, err := c.front.Next(leaseCtx)
				if err != nil {
					// In a clustered crawl a done frontier waits for links from the
					// other processes until the whole crawl has ended.
					if errors.Is(err, frontier.ErrDone) && c.member.waitWork(leaseCtx, gen) {
						continue
					}
					if !errors.Is(err, frontier.ErrDone) && leaseCtx.Err() == nil {
						fail(fmt.Errorf("leasing a URL: %w", err))
					}
					return
				}
				c.counters.inFlight.Add(1)
				err = c.process(workCtx, leaseCtx, lease)
				c.counters.inFlight.Add(-1)
				if err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if fatalErr != nil {
		return fatalErr
	}
	return ctx.Err()
}

// sortInStaged sorts the links still staged in the frontier (frontier.link_batch) into
// the seen set and the queues, when the workers have stopped of themselves. The
// frontier does that before it runs out of URLs, but not when max_pages stops the
// crawl: then the links found by its last pages are still staged, and the run's
// figures (queued, duplicates, whether the crawl is complete) would not count them. A
// crawl stopped by ctx leaves them staged, durable, for the next run: a stop should
// not wait for a batch.
func (c *Crawler) sortInStaged(ctx context.Context) error {
	st := c.front.Stats()
	if st.Staged == 0 {
		return nil
	}
	c.log.Info("sorting the staged links into the queues", "links", st.Staged)
	if err := c.front.Flush(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmtErr("sorting the staged links into the queues", err)
	}
	return nil
}

// openFrontier opens the frontier database, which locks the data directory.
func (c *Crawler) openFrontier() error {
	var err error
	c.front, err = frontier.Open(filepath.Join(c.cfg.DataDir, frontierFile), frontier.Options{
		MaxInFlightPerHost: c.cfg.Politeness.PerHost,
		MaxQueuedPerHost:   c.cfg.Scope.MaxPagesPerHost,
		MaxDone:            c.cfg.Scope.MaxPages,
		Uncounted:          kindRequisite, // a page's requisites come with it, beyond the limits
		MaxAttempts:        c.cfg.Fetch.MaxAttempts,
		LinkBatch:          c.cfg.Frontier.LinkBatch,
		FoldLinks:          c.cfg.Frontier.FoldLinks,
		LogBatch:           c.cfg.Frontier.LogBatch,
		ResidentMap:        residentMap(c.cfg.Frontier),
		SyncDone:           c.syncDones,
		Now:                c.Now,
	})
	return err
}

// syncDones makes the pages' WARC records and lines queued so far durable (one
// storage round, shared by every page of the frontier's commit): the frontier calls
// it before it commits a transaction that marks dones leases done, so a page waits
// once, in Done, for its files and its frontier commit (see process). The time of
// the round counts once per lease in storageWait.
func (c *Crawler) syncDones(dones int) error {
	if c.commit == nil {
		return nil // no Done before open
	}
	start := time.Now()
	err := c.commit.Sync()
	c.counters.storageWait.Add(int64(dones) * int64(time.Since(start)))
	if err == nil && c.synced != nil {
		c.synced(dones)
	}
	return err
}

// open opens the robots cache, the scheduler and the output files; the frontier is
// open already.
func (c *Crawler) open() error {
	dir := c.cfg.DataDir
	if err := c.loadCookies(); err != nil {
		return err
	}
	var err error
	c.politeness = politeness.New(politeness.Options{
		MinDelay:       minDelay(time.Duration(c.cfg.Politeness.MinDelay)),
		MaxDelay:       time.Duration(c.cfg.Politeness.MaxDelay),
		Concurrency:    c.cfg.Politeness.PerHost,
		AdaptiveFactor: adaptiveFactor(c.cfg.Politeness.AdaptiveFactor),
		BackoffBase:    time.Duration(c.cfg.Politeness.BackoffBase),
		BackoffMax:     time.Duration(c.cfg.Politeness.BackoffMax),
		GroupByIP:      c.cfg.Politeness.GroupByIP,
		Now:            c.Now,
	})
	// The scheduler starts empty: the frontier persists every host's ready time and
	// leases nothing before it, so the spacing holds across restarts.
	c.robots = robots.NewCache(&robotsFetcher{c: c}, c.front, robots.CacheOptions{
		MaxAge:              time.Duration(c.cfg.Robots.MaxAge),
		UnreachableAttempts: c.cfg.Robots.UnreachableAttempts,
		UnreachableRetry:    time.Duration(c.cfg.Robots.UnreachableRetry),
		Now:                 c.Now,
		Interrupted:         c.robotsInterrupted,
		MarkOnBegin:         true, // robotsFetcher.hop calls robots.Begin as it sends
		Dropped: func(authority string) {
			c.log.Warn("robots cache: stored robots.txt record unreadable (damaged or from another version); dropped, fetching robots.txt again",
				"host", authority)
		},
	})
	digests, moved, err := digestIndexPath(dir)
	if err != nil {
		return err
	}
	if moved {
		c.log.Info("digest index moved out of warc/", "path", digests)
	}
	host, _ := os.Hostname()
	c.warc, err = storage.OpenWARC(storage.WARCOptions{
		Dir:         filepath.Join(dir, "warc"),
		DigestIndex: digests,
		Prefix:      c.cfg.Storage.WARCPrefix,
		MaxFileSize: int64(c.cfg.Storage.WARCMaxSize),
		GzipLevel:   c.cfg.Storage.WARCGzipLevel,
		Software:    "politecrawl/" + Version,
		Operator:    c.cfg.Storage.Operator,
		Hostname:    host,
		Config:      c.warcinfoConfig(),
		WET:         c.cfg.Storage.WET,
		Parquet:     c.parquetDir(dir),
		CrawlName:   c.cfg.Storage.CrawlName,
		KeepSecrets: c.cfg.Storage.KeepSecrets,
		Now:         c.Now,
	})
	if err != nil {
		return err
	}
	c.pages, err = storage.OpenPages(filepath.Join(dir, "pages.jsonl"), storage.PagesOptions{})
	if err != nil {
		return err
	}
	c.skipped, err = storage.OpenSkipped(filepath.Join(dir, "skipped.jsonl"), storage.PagesOptions{})
	if err != nil {
		return err
	}
	if c.cfg.Recrawl.Interval > 0 {
		if c.recrawl, err = recrawl.Open(filepath.Join(dir, recrawl.FileName)); err != nil {
			return err
		}
	}
	c.commit = storage.NewGroup(c.warc, c.pages, c.skipped)
	return c.reportRepairs()
}

// close closes everything open re-entrantly, returning the first error.
func (c *Crawler) close() error {
	errs := []error{c.saveCookies()}
	if c.commit != nil {
		errs = append(errs, c.commit.Close()) // before the files it writes to
	}
	if c.recrawl != nil {
		errs = append(errs, c.recrawl.Close())
		c.recrawl = nil
	}
	if c.skipped != nil {
		errs = append(errs, c.skipped.Close())
	}
	if c.pages != nil {
		errs = append(errs, c.pages.Close())
	}
	if c.warc != nil {
		errs = append(errs, c.warc.Close())
	}
	if c.seeds != nil {
		errs = append(errs, c.seeds.Close())
	}
	if c.front != nil {
		errs = append(errs, c.front.Close())
	}
	return errors.Join(errs...)
}

// WACZName is the name of the WACZ package that storage.wacz writes in the data
// directory.
const WACZName = "crawl.wacz"

// packWACZ packages the finished crawl as DataDir/WACZName, with the politeness audit
// of its WARC files (package audit) as audit/politeness.json and .txt.
func (c *Crawler) packWACZ() error {
	path := filepath.Join(c.cfg.DataDir, WACZName)
	warcDir := filepath.Join(c.cfg.DataDir, "warc")
	a := audit.New(audit.Options{Software: "politecrawl " + Version})
	if err := a.ReadPath(warcDir); err != nil {
		return fmtErr("auditing the crawl for "+WACZName, err)
	}
	rep := a.Report()
	files, err := rep.WACZFiles()
	if err != nil {
		return fmtErr("auditing the crawl for "+WACZName, err)
	}
	st, err := storage.PackWACZFile(path, warcDir, filepath.Join(c.cfg.DataDir, "pages.jsonl"),
		storage.WACZOptions{Title: filepath.Base(c.cfg.DataDir), Software: "politecrawl/" + Version, Now: c.Now, Files: files})
	if err != nil {
		return fmtErr("packaging "+WACZName, err)
	}
	c.log.Info("wacz written", "path", path, "warc_files", st.WARCFiles, "warc_bytes", st.WARCBytes, "pages", st.Pages,
		"audit_exchanges", rep.Exchanges, "audit_violations", len(rep.Violations))
	return nil
}

// warcinfoConfig summarises the configuration for the warcinfo record.
func (c *Crawler) warcinfoConfig() map[string]string {
	info := map[string]string{
		"user-agent":  c.cfg.UserAgent,
		"scope":       c.cfg.Scope.Mode,
		"min-delay":   c.cfg.Politeness.MinDelay.String(),
		"per-host":    fmt.Sprint(c.cfg.Politeness.PerHost),
		"group-by-ip": fmt.Sprint(c.cfg.Politeness.GroupByIP),
		// The least wait after a 429 or 503 without Retry-After, jitter taken off:
		// what crawl audit holds the crawl to.
		"backoff-min":        backoffMin(c.politeness.Options()).String(),
		"workers":            fmt.Sprint(c.cfg.Workers),
		"max-body-size":      c.cfg.Fetch.MaxBodySize.String(),
		"sitemaps-robots":    fmt.Sprint(c.cfg.Sitemaps.FromRobots),
		"follow-nofollow":    fmt.Sprint(c.cfg.Scope.FollowNofollow),
		"max-depth":          fmt.Sprint(int(c.cfg.Scope.MaxDepth)),
		"max-pages":          fmt.Sprint(c.cfg.Scope.MaxPages),
		"max-pages-per-host": fmt.Sprint(c.cfg.Scope.MaxPagesPerHost),
	}
	if r := c.cfg.Requisites; r.Enabled {
		// What crawl qa holds the capture report to; a links-only crawl names none, so
		// its pages' requisites read as missing.
		info["requisites-max-hops"] = fmt.Sprint(r.MaxHops)
		info["requisites-kinds"] = strings.Join(r.Kinds, ",")
	}
	return info
}

// residentMap is frontier.resident_map as frontier.Options.ResidentMap takes it, where
// the configuration's 0 (keep every page mapped) is negative.
func residentMap(f config.Frontier) int64 {
	if f.ResidentMap == 0 {
		return -1
	}
	return int64(f.ResidentMap)
}

// newClient builds the HTTP client of cfg's user_agent, fetch and network sections.
// A bad value is reported as a *config.Error.
func newClient(cfg config.Config, jar *fetch.Jar) (*fetch.Client, error) {
	tlsConfig, err := cfg.Fetch.TLS()
	if err != nil {
		return nil, err
	}
	headers, auth := cfg.Fetch.Access()
	opts := fetch.Options{
		UserAgent:      cfg.UserAgent,
		DialTimeout:    time.Duration(cfg.Fetch.DialTimeout),
		TLSTimeout:     time.Duration(cfg.Fetch.TLSTimeout),
		HeaderTimeout:  time.Duration(cfg.Fetch.HeaderTimeout),
		Timeout:        time.Duration(cfg.Fetch.Timeout),
		MaxBodySize:    int64(cfg.Fetch.MaxBodySize),
		MaxDecodedSize: int64(cfg.Fetch.MaxDecodedSize),
		AcceptTypes:    cfg.Fetch.AcceptTypes,
		AllowPrivate:   cfg.Network.AllowPrivate,
		Resolve:        cfg.Network.Resolve,
		Resolver:       cfg.Network.Resolver,
		TLSConfig:      tlsConfig,
		HTTP2:          cfg.Fetch.HTTP2,
		Proxy:          cfg.Fetch.Proxy,
		NoProxy:        cfg.Fetch.NoProxy,
		Headers:        headers,
		Auth:           auth,
	}
	if jar != nil {
		opts.Jar = jar // a nil *Jar in the interface would not be nil
	}
	client, err := fetch.New(opts)
	if err != nil {
		return nil, &config.Error{Field: "user_agent", Value: cfg.UserAgent, Err: err}
	}
	return client, nil
}

// frontierFile is the frontier's database in the data directory.
const frontierFile = "frontier.db"
