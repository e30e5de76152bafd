package crawl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// listenMetrics opens the listener of metrics_addr, when set: Run does it first, so a
// crawl that cannot serve its metrics (the port is taken) fails before it creates or
// writes anything in its data directory.
func (c *Crawler) listenMetrics() (net.Listener, error) {
	if c.cfg.MetricsAddr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", c.cfg.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("metrics_addr: %w", err)
	}
	return ln, nil
}

// serveMetrics serves Prometheus metrics on ln (from listenMetrics; nil when
// metrics_addr is not set) until the returned function is called.
func (c *Crawler) serveMetrics(ln net.Listener) (stop func()) {
	if ln == nil {
		return func() {}
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
	counter("storage_wait_seconds_total", "Time the frontier's commits spent making the pages' records and lines durable first, counted once per lease; part of frontier_wait_seconds_total.",
		func() float64 { return time.Duration(c.counters.storageWait.Load()).Seconds() })
	counter("frontier_wait_seconds_total", "Time workers waited for the frontier's commit of their leases' outcomes (a page's one wait), summed over workers.",
		func() float64 { return time.Duration(c.counters.frontierWait.Load()).Seconds() })
	gauge("in_flight", "Fetches in progress.", func() float64 { return float64(c.counters.inFlight.Load()) })
	gauge("queued", "URLs waiting in the frontier.", func() float64 { return float64(c.front.Stats().Queued) })
	gauge("staged", "Links found and not yet sorted into the frontier's queues (frontier.link_batch).", func() float64 { return float64(c.front.Stats().Staged) })

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
	c.metricsAddr.Store(ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}
}
