package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// openLog sets up logging: JSON lines in DATA_DIR/crawl.log at the configured level, and
// human text on Stderr (warnings and errors, or everything at log_level debug).
func (c *Crawler) openLog() (io.Closer, error) {
	f, err := os.OpenFile(filepath.Join(c.cfg.DataDir, "crawl.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("crawl: %w", err)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.cfg.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	stderr := c.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	stderrLevel := slog.LevelWarn
	if level < slog.LevelInfo {
		stderrLevel = level
	}
	file := slog.NewJSONHandler(f, &slog.HandlerOptions{Level: level})
	c.fileLog = slog.New(file)
	c.log = slog.New(slog.NewMultiHandler(
		file,
		slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: stderrLevel}),
	))
	return f, nil
}

// Progress is a snapshot of a running crawl.
type Progress struct {
	Pages       int64   // page and sitemap responses so far
	PagesPerSec float64 // over the last interval
	Queued      int64   // URLs waiting in the frontier
	InFlight    int64   // fetches in progress
	HostsActive int     // hosts with queued URLs whose ready time has come
	HostsWait   int     // hosts with queued URLs waiting for their ready time
	Errors      int64   // network errors
	Bytes       int64   // body bytes received
}

func (p Progress) String() string {
	return fmt.Sprintf("%d pages, %.1f/s, %d queued, %d in flight, hosts %d ready / %d waiting, %d errors, %s",
		p.Pages, p.PagesPerSec, p.Queued, p.InFlight, p.HostsActive, p.HostsWait, p.Errors, formatBytes(p.Bytes))
}

// progress returns a snapshot; last and since give the rate's base.
func (c *Crawler) progress(lastPages int64, since time.Duration) Progress {
	st := c.front.Stats()
	p := Progress{
		Pages:       c.counters.pages.Load(),
		Queued:      st.Queued,
		InFlight:    c.counters.inFlight.Load(),
		HostsActive: st.HostsReady,
		HostsWait:   st.HostsWaiting,
		Errors:      c.counters.errors.Load(),
		Bytes:       c.counters.bytes.Load(),
	}
	if since > 0 {
		p.PagesPerSec = float64(p.Pages-lastPages) / since.Seconds()
	}
	return p
}

// reportProgress writes the live line or the periodic log line until ctx ends.
func (c *Crawler) reportProgress(ctx context.Context) {
	every := c.ProgressEvery
	if c.ProgressLine != nil {
		every = time.Second
	}
	if every <= 0 {
		<-ctx.Done()
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	var last int64
	lastAt := time.Now()
	for {
		select {
		case <-ctx.Done():
			if c.ProgressLine != nil {
				fmt.Fprint(c.ProgressLine, "\r\033[K")
			}
			return
		case now := <-t.C:
			p := c.progress(last, now.Sub(lastAt))
			last, lastAt = p.Pages, now
			if c.ProgressLine != nil {
				fmt.Fprintf(c.ProgressLine, "\r\033[K%s", p)
			} else {
				c.log.Info("progress", "pages", p.Pages, "pages_per_sec", fmt.Sprintf("%.1f", p.PagesPerSec),
					"queued", p.Queued, "in_flight", p.InFlight, "hosts_ready", p.HostsActive,
					"hosts_waiting", p.HostsWait, "errors", p.Errors, "bytes", p.Bytes)
				if c.ProgressEvery > 0 && c.Stderr != nil {
					fmt.Fprintf(c.Stderr, "progress: %s\n", p)
				}
			}
		}
	}
}

// serveMetrics serves Prometheus metrics on metrics_addr, when set, until the returned
// function is called.
func (c *Crawler) serveMetrics() (stop func(), err error) {
	if c.cfg.MetricsAddr == "" {
		return func() {}, nil
	}
	reg := prometheus.NewRegistry()
	gauge := func(name, help string, f func() float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "politecrawl", Name: name, Help: help}, f))
	}
	counter := func(name, help string, f func() float64) {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "politecrawl", Name: name, Help: help}, f))
	}
	counter("pages_total", "Page and sitemap responses received.", func() float64 { return float64(c.counters.pages.Load()) })
	counter("bytes_total", "Body bytes received, as sent on the wire.", func() float64 { return float64(c.counters.bytes.Load()) })
	counter("fetch_errors_total", "Fetches that failed on the network.", func() float64 { return float64(c.counters.errors.Load()) })
	counter("robots_blocked_total", "URLs robots.txt disallowed.", func() float64 { return float64(c.counters.robotsBlocked.Load()) })
	counter("robots_fetches_total", "robots.txt fetches.", func() float64 { return float64(c.counters.robotsFetched.Load()) })
	gauge("in_flight", "Fetches in progress.", func() float64 { return float64(c.counters.inFlight.Load()) })
	gauge("queued", "URLs waiting in the frontier.", func() float64 { return float64(c.front.Stats().Queued) })

	ln, err := net.Listen("tcp", c.cfg.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("crawl: metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.log.Error("metrics server", "err", err)
		}
	}()
	c.log.Info("metrics", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}
