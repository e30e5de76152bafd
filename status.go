package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"time"

	"github.com/politecrawl/crawl/frontier"
)

// StatusFile is the name of the file, in the data directory, where a crawl keeps its
// figures (a Status, as JSON) for crawl status to read while the crawl holds the
// database: rewritten every StatusEvery while it runs, and left with the final figures
// when it ends.
const StatusFile = "status.json"

// DefaultStatusEvery is how often a running crawl rewrites its status file.
const DefaultStatusEvery = 2 * time.Second

// States of a crawl in its status file.
const (
	StateRunning  = "running"  // the crawl is fetching (or was, if its process died)
	StateComplete = "complete" // nothing is left to fetch
	StateStopped  = "stopped"  // stopped before the end: a signal or scope.max_pages; running again resumes
	StateFailed   = "failed"   // stopped by an error (Error says which)
)

// Status is what a crawl writes about itself in its status file.
type Status struct {
	State   string    `json:"state"`   // one of the State constants
	PID     int       `json:"pid"`     // the crawl's process
	Started time.Time `json:"started"` // when Run started
	Updated time.Time `json:"updated"` // when the file was written
	// PagesPerSec is the rate over the last StatusEvery while running, the run's
	// average once ended.
	PagesPerSec float64 `json:"pages_per_sec"`
	// Summary holds the figures of this run (pages, bytes, errors, ...) and what the
	// frontier still holds (Queued, Parked, Staged).
	Summary     Summary `json:"summary"`
	InFlight    int64   `json:"in_flight"`              // fetches in progress
	Done        int64   `json:"done"`                   // URLs finished over the whole crawl, across runs
	Hosts       int     `json:"hosts"`                  // hosts seen over the whole crawl
	HostsReady  int     `json:"hosts_ready"`            // hosts with URLs that may be fetched now
	HostsWait   int     `json:"hosts_waiting"`          // hosts with URLs waiting for their time
	MetricsAddr string  `json:"metrics_addr,omitempty"` // where the metrics were served, while running
	// Scheduled counts the queued URLs given back to be fetched again later
	// (recrawl.interval), and NextDue is when the first of them is due; zero: none.
	Scheduled int64     `json:"scheduled,omitempty"`
	NextDue   time.Time `json:"next_due,omitzero"`
	Error     string    `json:"error,omitempty"` // what stopped a failed crawl
	// SeedsFile is what this run read of the seeds file (config.Config.SeedsFile);
	// nil without one.
	SeedsFile *SeedsRead `json:"seeds_file,omitempty"`
}

// NextDue returns the earliest due time of the URLs given back for later
// (frontier.HostStats.NextDue) among hosts, in UTC, or the zero Time if none has one.
func NextDue(hosts iter.Seq[frontier.HostStats]) time.Time {
	var first time.Time
	for h := range hosts {
		if !h.NextDue.IsZero() && (first.IsZero() || h.NextDue.Before(first)) {
			first = h.NextDue
		}
	}
	return first.UTC() // the zero Time stays zero
}

// endState is the state of a crawl whose Run returns err.
func endState(sum Summary, err error) string {
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		return StateFailed
	case sum.Complete && err == nil:
		return StateComplete
	}
	return StateStopped
}

// writeStatus rewrites the status file atomically (a new file renamed over the old, so
// a reader never sees half of it). rate is the recent rate while running; 0 at the end
// gives the run's average.
func (c *Crawler) writeStatus(state string, rate float64, runErr error) error {
	return c.writeStatusOf(state, rate, runErr, nil)
}

// writeStatusOf is writeStatus with a snapshot of the frontier's figures, or nil
// to take one (the final one, once the crawl has ended).
func (c *Crawler) writeStatusOf(state string, rate float64, runErr error, st *frontier.Stats) error {
	if st == nil {
		if st = c.finalStats.Load(); st == nil {
			now := c.frontierStats()
			st = &now
		}
	}
	sum := c.summary(st)
	s := Status{
		State:       state,
		PID:         os.Getpid(),
		Started:     c.started,
		Updated:     c.now(),
		PagesPerSec: rate,
		Summary:     sum,
		InFlight:    c.counters.inFlight.Load(),
		Done:        st.Done,
		Hosts:       st.Hosts,
		HostsReady:  st.HostsReady,
		HostsWait:   st.HostsWaiting,
		Scheduled:   st.Scheduled,
	}
	if st.Scheduled > 0 {
		s.NextDue = NextDue(c.front.Hosts())
	}
	if r := c.SeedsRead(); r.Path != "" {
		s.SeedsFile = &r
	}
	if state != StateRunning {
		if sum.Duration > 0 {
			s.PagesPerSec = float64(sum.Pages) / sum.Duration.Seconds()
		}
		s.InFlight = 0
	} else if addr, ok := c.metricsAddr.Load().(string); ok {
		s.MetricsAddr = addr
	}
	if runErr != nil && state == StateFailed {
		s.Error = runErr.Error()
	}
	data, err := json.MarshalIndent(&s, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", StatusFile, err)
	}
	path := filepath.Join(c.cfg.DataDir, StatusFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err // an *fs.PathError, which names the file
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return nil
}

// ReadStatus reads the status file of the crawl in dataDir. An error wrapping
// fs.ErrNotExist means no crawl wrote one.
func ReadStatus(dataDir string) (*Status, error) {
	data, err := os.ReadFile(filepath.Join(dataDir, StatusFile))
	if err != nil {
		return nil, err // an *fs.PathError, which names the file
	}
	var s Status
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dataDir, StatusFile), err)
	}
	return &s, nil
}
