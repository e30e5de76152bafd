package crawl

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/politecrawl/crawl/frontier"
)

// ErrInUse is wrapped by the error of Run and Inspect when another crawl holds the
// data directory (its frontier.db is locked).
var ErrInUse = frontier.ErrLocked

// ErrNoCrawl is wrapped by the error of Inspect when the directory holds no crawl
// (no frontier.db).
var ErrNoCrawl = errors.New("no crawl in the directory (no frontier.db)")

// FrontierStats are the frontier's figures (frontier.Stats).
type FrontierStats = frontier.Stats

// HostStats is what the frontier holds of one host (frontier.HostStats).
type HostStats = frontier.HostStats

// Inspection is what the frontier of a crawl that is not running holds, for crawl
// status.
type Inspection struct {
	Path    string        // the frontier's file
	Stats   FrontierStats // its figures
	Waiting []HostStats   // the hosts with URLs queued or leased, most queued first
	NextDue time.Time     // the earliest due time of the URLs given back for later; zero if none
}

// Inspect opens the frontier of the crawl in dataDir read-only, checks the whole
// database as a crawl would at start, and returns what it holds. The error wraps
// ErrInUse when a running crawl holds it (ReadStatus then has that crawl's figures),
// and ErrNoCrawl when dataDir holds no crawl; a damaged database is an error.
func Inspect(dataDir string) (*Inspection, error) {
	path := filepath.Join(dataDir, frontierFile)
	if _, err := os.Stat(path); errors.Is(err, iofs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dataDir, ErrNoCrawl)
	}
	f, err := frontier.Open(path, frontier.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := f.Check(); err != nil {
		return nil, fmt.Errorf("%s is damaged and a crawl would refuse it: %w", path, err)
	}
	in := &Inspection{Path: path, Stats: f.Stats(), NextDue: NextDue(f.Hosts())}
	for h := range f.Hosts() {
		if h.Queued > 0 || h.Leased > 0 {
			in.Waiting = append(in.Waiting, h)
		}
	}
	sort.SliceStable(in.Waiting, func(i, j int) bool { return in.Waiting[i].Queued > in.Waiting[j].Queued })
	return in, nil
}
