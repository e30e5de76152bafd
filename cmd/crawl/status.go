package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"sort"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/capture"
)

func init() {
	register("status", "show what a crawl's frontier holds", runStatus)
}

func runStatus(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("status", "usage: crawl status [-data DIR | -config FILE] [-hosts N]\n"+
		"       crawl status -cluster nats://HOST:4222 [-stream NAME] [-config FILE]\n\n"+
		"Shows what the frontier holds: queued, done, failed, skipped by reason, and\n"+
		"the hosts waiting and why, after checking the whole database as the crawl\n"+
		"would (a damaged one is refused). While a crawl runs (it holds the database),\n"+
		"shows the figures it writes to "+crawl.StatusFile+" every few seconds instead,\n"+
		"and how old they are. With -cluster (or a -config whose cluster.url is set,\n"+
		"and no -data), shows every process of a crawl shared\n"+
		"through NATS: its shards, queue, rate and state, and the links waiting in the\n"+
		"stream for their owner.")
	dataFlags := newDataFlags(fs)
	hosts := fs.Int("hosts", 20, "list at most this many hosts with URLs waiting")
	natsURL := fs.String("cluster", "", "show the processes of the crawl shared through this NATS `URL` (default: -config's cluster.url)")
	stream := fs.String("stream", "", "with -cluster: the crawl's stream `name` (cluster.stream; default POLITECRAWL)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("status takes no arguments")
	}
	data, err := dataFlags.load()
	if err != nil {
		return err
	}
	// A crawl shared through NATS is shown whole, as its configuration says; -data
	// asks for this process's own frontier.
	if *natsURL != "" || dataFlags.cfg.Cluster.URL != "" && dataFlags.data == "" {
		return clusterStatus(ctx, m.Stdout, dataFlags.cfg, *natsURL, *stream)
	}
	in, err := crawl.Inspect(data)
	switch {
	case errors.Is(err, crawl.ErrInUse):
		return printRunning(m.Stdout, data, time.Now())
	case errors.Is(err, crawl.ErrNoCrawl):
		return fmt.Errorf("no crawl in %s: it has no frontier.db", data)
	case err != nil:
		return err
	}
	st := in.Stats
	w := m.Stdout
	fmt.Fprintf(w, "frontier %s\n", in.Path)
	fmt.Fprintf(w, "  queued   %d (leased %d, set aside %d)\n", st.Queued, st.Leased, st.Parked)
	fmt.Fprintf(w, "  done     %d\n", st.Done)
	fmt.Fprintf(w, "  failed   %d%s\n", st.FailedTotal(), byReason(st.Failed))
	fmt.Fprintf(w, "  skipped  %d%s\n", st.SkippedTotal(), byReason(st.Skipped))
	fmt.Fprintf(w, "  refused  %s\n", orNone(byReason(st.Refused)))
	fmt.Fprintf(w, "  URLs     %d accepted, %d duplicates dropped\n", st.Added, st.Duplicates)
	if st.Staged > 0 {
		fmt.Fprintf(w, "  links    %d found and not yet sorted into the queues\n", st.Staged)
	}
	now := time.Now()
	if st.Scheduled > 0 {
		fmt.Fprintf(w, "  later    %d of the queued given back to be fetched again at a later time%s\n", st.Scheduled, dueAt(in.NextDue, now))
	}
	fmt.Fprintf(w, "  hosts    %d seen: %d ready, %d waiting, %d set aside\n", st.Hosts, st.HostsReady, st.HostsWaiting, st.HostsParked)
	printLastRun(w, data, now)
	if err := printRequisites(w, data); err != nil {
		return err
	}

	waiting := in.Waiting
	if len(waiting) > 0 {
		fmt.Fprintf(w, "\nhosts with URLs waiting (%d, most first):\n", len(waiting))
	}
	for i, h := range waiting {
		if i == *hosts {
			fmt.Fprintf(w, "  ... %d more\n", len(waiting)-i)
			break
		}
		fmt.Fprintf(w, "  %-40s queued %-6d done %-6d failed %-4d %s\n", h.Host, h.Queued, h.Done, h.Failed, why(h, now))
	}
	return nil
}

// printRunning prints the figures a running crawl wrote to its status file.
func printRunning(w io.Writer, dir string, now time.Time) error {
	s, err := crawl.ReadStatus(dir)
	if errors.Is(err, iofs.ErrNotExist) {
		return fmt.Errorf("%s is in use by a running crawl that has not written %s yet (it does every %s): try again",
			dir, crawl.StatusFile, crawl.DefaultStatusEvery)
	}
	if err != nil {
		return err
	}
	age := now.Sub(s.Updated)
	fmt.Fprintf(w, "crawl running in %s (pid %d) for %s\n", dir, s.PID, roundAge(s.Updated.Sub(s.Started)))
	fmt.Fprintf(w, "figures from %s, written %s ago", crawl.StatusFile, roundAge(age))
	if age > 5*crawl.DefaultStatusEvery {
		fmt.Fprint(w, " (late: the crawl may be stuck, or its disk full)")
	}
	fmt.Fprintln(w)
	printFigures(w, s)
	if s.MetricsAddr != "" {
		fmt.Fprintf(w, "  metrics  http://%s/metrics\n", s.MetricsAddr)
	}
	return printRequisites(w, dir)
}

// printRequisites prints the capture report as the crawl in dir logged it in
// pages.jsonl and skipped.jsonl, summed (capture.ReadLogged); nothing when no line
// is about requisites.
func printRequisites(w io.Writer, dir string) error {
	lg, err := capture.ReadLogged(dir)
	if err != nil {
		return err
	}
	if lg.Documents == 0 && lg.Distinct.Found == 0 {
		return nil
	}
	n, d := lg.Named, lg.Distinct
	fmt.Fprintf(w, "\nrequisites (pages.jsonl, skipped.jsonl; crawl qa re-derives them from the WARC files)\n")
	fmt.Fprintf(w, "  named    %d by %d pages, stylesheets and frames: %d queued (%d archived already), %d of kinds not fetched, %d out of scope, %d past a limit\n",
		n.Found, lg.Documents, n.Queued, n.Archived, n.Excluded, n.Scope, n.Limit)
	var cut string
	if lg.Truncated > 0 {
		cut = fmt.Sprintf(" (%d cut at a size limit)", lg.Truncated)
	}
	fmt.Fprintf(w, "  settled  %d distinct: %d archived%s, %d failed, %d blocked by robots.txt, %d skipped for a limit or policy\n",
		d.Found, d.Archived, cut, d.Failed, d.Blocked, d.Limit)
	if lg.Unreadable > 0 {
		fmt.Fprintf(w, "  unread   %d lines that are not JSON objects (one being written, or the torn last line of a crawl killed, which its next run repairs)\n", lg.Unreadable)
	}
	return nil
}

// printLastRun prints what the last crawl of dir said when it ended, from its status
// file, if it wrote one.
func printLastRun(w io.Writer, dir string, now time.Time) {
	s, err := crawl.ReadStatus(dir)
	if err != nil {
		if !errors.Is(err, iofs.ErrNotExist) {
			fmt.Fprintf(w, "\nlast run: %v\n", err)
		}
		return
	}
	state := s.State
	if state == crawl.StateRunning {
		state = "ended without writing its final figures (killed?)"
	}
	fmt.Fprintf(w, "\nlast run: %s, %s ago, after %s\n", state, roundAge(now.Sub(s.Updated)), roundAge(s.Summary.Duration))
	if s.Error != "" {
		fmt.Fprintf(w, "  error    %s\n", s.Error)
	}
	printFigures(w, s)
}

// printFigures prints the run's figures of a status file.
func printFigures(w io.Writer, s *crawl.Status) {
	sum := s.Summary
	fmt.Fprintf(w, "  pages    %d (%.1f pages/s), %d robots.txt, %d network errors, %s\n",
		sum.Pages, s.PagesPerSec, sum.RobotsFetched, sum.Errors, crawl.FormatBytes(sum.Bytes))
	fmt.Fprintf(w, "  queued   %d, in flight %d, set aside %d; done %d over the whole crawl\n", sum.Queued, s.InFlight, sum.Parked, s.Done)
	if sum.Staged > 0 {
		fmt.Fprintf(w, "  links    %d found and not yet sorted into the queues\n", sum.Staged)
	}
	fmt.Fprintf(w, "  hosts    %d seen: %d ready, %d waiting\n", s.Hosts, s.HostsReady, s.HostsWait)
	if s.Scheduled > 0 {
		fmt.Fprintf(w, "  later    %d to be fetched again (recrawl)%s\n", s.Scheduled, dueAt(s.NextDue, s.Updated))
	}
	if len(sum.Skipped) > 0 {
		fmt.Fprintf(w, "  skipped  %s\n", orNone(byReason(sum.Skipped)))
	}
	if r := s.SeedsFile; r != nil {
		how := "read to its end"
		if !r.Done {
			how = fmt.Sprintf("%s of %s read", crawl.FormatBytes(r.Offset), crawl.FormatBytes(r.Size))
		}
		fmt.Fprintf(w, "  seeds    %s: %s; this run %d seeds (%d new), %d lines skipped, %s read\n",
			r.Path, how, r.Seeds, r.Queued, r.Skipped, crawl.FormatBytes(r.Bytes))
	}
}

// dueAt says when the next URL given back for later is due, as of now: "" when unknown.
func dueAt(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	if d := t.Sub(now); d > 0 {
		return fmt.Sprintf("; the next is due at %s (in %s)", t.UTC().Format(time.RFC3339), roundAge(d))
	}
	return fmt.Sprintf("; the next was due at %s", t.UTC().Format(time.RFC3339))
}

// roundAge rounds d for people: to the second, or to the minute past an hour.
func roundAge(d time.Duration) time.Duration {
	if d > time.Hour {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// why says why a host with queued URLs is not being fetched right now.
func why(h crawl.HostStats, now time.Time) string {
	switch {
	case h.Parked != "":
		return "set aside: " + h.Parked
	case h.Leased > 0:
		return "fetching"
	case h.Ready.After(now):
		s := fmt.Sprintf("waiting %s (politeness", h.Ready.Sub(now).Round(time.Second))
		if h.ConsecutiveErrors > 0 {
			s += fmt.Sprintf(", backoff after %d errors", h.ConsecutiveErrors)
		}
		return s + ")"
	}
	return "ready"
}

func byReason(m map[string]int64) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := " ("
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %d", k, m[k])
	}
	return s + ")"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s[2 : len(s)-1]
}
