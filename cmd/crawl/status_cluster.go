package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
)

// clusterTimeout bounds how long crawl status waits for the NATS server.
const clusterTimeout = 10 * time.Second

// clusterStatus prints every process of a crawl shared through NATS, and the links
// waiting in its stream. The configuration file, when given, supplies the stream and
// credentials; natsURL and stream, when given, override it.
func clusterStatus(ctx context.Context, w io.Writer, cfg config.Config, natsURL, stream string) error {
	if natsURL != "" {
		cfg.Cluster.URL = natsURL
	}
	if stream != "" {
		cfg.Cluster.Stream = stream
	}
	if cfg.Cluster.URL == "" {
		return usagef("status: no NATS URL: give -cluster nats://HOST:4222 or a -config with cluster.url")
	}
	ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	st, err := crawl.ReadClusterStatus(ctx, cfg.Cluster)
	if err != nil {
		return err
	}
	now := time.Now()
	fmt.Fprintf(w, "crawl %s on %s: %d processes, %d shards\n", st.Stream, st.URL, len(st.Processes), st.ShardCount)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  process\tshards\tstate\tqueued\tto sort\tleased\tpages\tpages/s\thanded off\ttaken in\tupdated")
	for _, p := range st.Processes {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%d\t%d\t%.1f\t%d\t%d\t%s ago\n", p.Name, p.Shards, p.State,
			p.Queued, p.Staged, p.Leased, p.Pages, p.PagesPerSec, p.Published, p.Consumed, roundAge(now.Sub(p.Updated)))
	}
	tw.Flush()
	fmt.Fprintf(w, "  stream   %d links waiting for their owner, %d delivered and not yet acknowledged\n", st.Pending, st.AckPending)
	if len(st.Unowned) > 0 {
		fmt.Fprintf(w, "  shards   %s have no process (their links wait in the stream)\n", st.Unowned)
	}
	return nil
}
