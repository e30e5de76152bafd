package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/politecrawl/crawl/frontier"
)

func init() {
	register("status", "show what a crawl's frontier holds", runStatus)
}

func runStatus(ctx context.Context, m *Main, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	data := fs.String("data", "crawl-data", "the crawl's data `dir`ectory")
	hosts := fs.Int("hosts", 20, "list at most this many hosts with URLs waiting")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: crawl status [-data DIR] [-hosts N]\n\nShows what the frontier holds: queued, done, failed, skipped by reason, and\nthe hosts waiting and why. Works while a crawl runs only if it can open the\ndatabase (a running crawl locks it).\n\nflags:")
		fs.PrintDefaults()
	}
	rest, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%v", err)
	}
	if len(rest) > 0 {
		return usagef("status takes no arguments")
	}
	path := filepath.Join(*data, "frontier.db")
	f, err := frontier.Open(path, frontier.Options{ReadOnly: true})
	if err != nil {
		if errors.Is(err, frontier.ErrLocked) {
			return fmt.Errorf("%s is in use by a running crawl; try again when it stops", path)
		}
		return err
	}
	defer f.Close()
	st := f.Stats()
	w := m.Stdout
	fmt.Fprintf(w, "frontier %s\n", path)
	fmt.Fprintf(w, "  queued   %d (leased %d, set aside %d)\n", st.Queued, st.Leased, st.Parked)
	fmt.Fprintf(w, "  done     %d\n", st.Done)
	fmt.Fprintf(w, "  failed   %d%s\n", st.FailedTotal(), byReason(st.Failed))
	fmt.Fprintf(w, "  skipped  %d%s\n", st.SkippedTotal(), byReason(st.Skipped))
	fmt.Fprintf(w, "  refused  %s\n", orNone(byReason(st.Refused)))
	fmt.Fprintf(w, "  URLs     %d accepted, %d duplicates dropped\n", st.Added, st.Duplicates)
	if st.Staged > 0 {
		fmt.Fprintf(w, "  links    %d found and not yet sorted into the queues\n", st.Staged)
	}
	fmt.Fprintf(w, "  hosts    %d seen: %d ready, %d waiting, %d set aside\n", st.Hosts, st.HostsReady, st.HostsWaiting, st.HostsParked)

	var waiting []frontier.HostStats
	for h := range f.Hosts() {
		if h.Queued > 0 || h.Leased > 0 {
			waiting = append(waiting, h)
		}
	}
	sort.Slice(waiting, func(i, j int) bool { return waiting[i].Queued > waiting[j].Queued })
	if len(waiting) > 0 {
		fmt.Fprintf(w, "\nhosts with URLs waiting (%d, most first):\n", len(waiting))
	}
	now := time.Now()
	for i, h := range waiting {
		if i == *hosts {
			fmt.Fprintf(w, "  ... %d more\n", len(waiting)-i)
			break
		}
		fmt.Fprintf(w, "  %-40s queued %-6d done %-6d failed %-4d %s\n", h.Host, h.Queued, h.Done, h.Failed, why(h, now))
	}
	return nil
}

// why says why a host with queued URLs is not being fetched right now.
func why(h frontier.HostStats, now time.Time) string {
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
