package storage

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Skip is one line of skipped.jsonl: a URL the crawler did not fetch, or gave up on,
// and why. The JSON names are given beside each field; url, reason, detail and time are
// always present, the others only when set.
type Skip struct {
	URL string // url: the URL not fetched
	// Reason is what kept it from being fetched, one word such as "robots",
	// "content-signal", "scope", "failed", "deferred" (see the crawler's README).
	Reason string // reason
	// Detail says more, in words: the robots.txt rule, the scope test, the error.
	Detail    string        // detail
	RobotsURL string        // robots_url: the robots.txt that decided (robots, content-signal)
	Delay     time.Duration // crawl_delay: the Crawl-delay or wait asked, in seconds in JSON; 0: none
	Until     time.Time     // until: when a deferred URL may be tried again; zero: not deferred
	Time      time.Time     // time: when the crawler decided, RFC 3339 in UTC to the millisecond
	FoundOn   string        // found_on: the page that linked here; empty for seeds and unknown
	Depth     int           // depth: links followed from a seed
	// Requisite, for a page requisite not fetched, is its kind, such as "image"
	// (requisite; left out for a page): FoundOn is the document that needs it.
	Requisite string
}

// skipJSON fixes the JSON form of Skip.
type skipJSON struct {
	URL        string   `json:"url"`
	Reason     string   `json:"reason"`
	Detail     string   `json:"detail"`
	RobotsURL  string   `json:"robots_url,omitempty"`
	CrawlDelay *float64 `json:"crawl_delay,omitempty"`
	Until      string   `json:"until,omitempty"`
	Time       string   `json:"time"`
	FoundOn    string   `json:"found_on,omitempty"`
	Depth      int      `json:"depth"`
	Requisite  string   `json:"requisite,omitempty"`
}

// MarshalJSON encodes s as one skipped.jsonl object.
func (s *Skip) MarshalJSON() ([]byte, error) {
	j := skipJSON{
		URL: s.URL, Reason: s.Reason, Detail: s.Detail, RobotsURL: s.RobotsURL,
		Time: s.Time.UTC().Format(fetchedAtLayout), FoundOn: s.FoundOn, Depth: s.Depth,
		Requisite: s.Requisite,
	}
	if s.Delay > 0 {
		secs := s.Delay.Seconds()
		j.CrawlDelay = &secs
	}
	if !s.Until.IsZero() {
		j.Until = s.Until.UTC().Format(fetchedAtLayout)
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes one skipped.jsonl object.
func (s *Skip) UnmarshalJSON(b []byte) error {
	var j skipJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Skip{URL: j.URL, Reason: j.Reason, Detail: j.Detail, RobotsURL: j.RobotsURL,
		FoundOn: j.FoundOn, Depth: j.Depth, Requisite: j.Requisite}
	if j.CrawlDelay != nil {
		s.Delay = time.Duration(*j.CrawlDelay * float64(time.Second))
	}
	for _, t := range []struct {
		in  string
		out *time.Time
	}{{j.Time, &s.Time}, {j.Until, &s.Until}} {
		if t.in == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339Nano, t.in)
		if err != nil {
			return err
		}
		*t.out = v
	}
	return nil
}

// SkippedWriter appends to a skipped.jsonl file, with the durability of PagesWriter:
// Write returns once its lines are on disk, concurrent writers sharing fsyncs, and a
// torn tail left by a crash is repaired at open as pages.jsonl's is. It is safe for
// concurrent use by multiple goroutines.
type SkippedWriter struct {
	file *jsonlFile
}

// OpenSkipped opens the skipped file at path for appending, creating it if missing,
// and repairs its tail (see OpenPages); Repair reports what was done.
func OpenSkipped(path string, opts PagesOptions) (*SkippedWriter, error) {
	f, err := openJSONL(path, "skipped.jsonl", opts.NoSync)
	if err != nil {
		return nil, err
	}
	return &SkippedWriter{file: f}, nil
}

// Cut returns how many bytes of a torn tail OpenSkipped cut off.
func (w *SkippedWriter) Cut() int64 { return w.file.repair.Cut }

// Repair returns what OpenSkipped repaired at the end of the file.
func (w *SkippedWriter) Repair() TailRepair { return w.file.repair }

// Write appends one line per skip, in one write, and returns once they are durable.
// Writing no skip does nothing. It is safe for concurrent use.
func (w *SkippedWriter) Write(ctx context.Context, skips ...*Skip) error {
	if len(skips) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var buf []byte
	for _, s := range skips {
		line, err := s.MarshalJSON()
		if err != nil {
			return fmt.Errorf("storage: %w: skipped %s: %v", ErrInvalid, s.URL, err)
		}
		buf = append(append(buf, line...), '\n')
	}

	return w.file.append(ctx, buf)
}

// SyncStats returns the fsync rounds of the file's group commit and the writes that
// waited for one.
func (w *SkippedWriter) SyncStats() SyncStats { return w.file.fl.stats() }

// Close waits for writes in flight, then syncs and closes the file. Writes after
// Close return ErrClosed; Close again returns nil.
func (w *SkippedWriter) Close() error { return w.file.close() }

// ReadSkipped reads a skipped.jsonl stream and calls fn for each line, stopping at
// the first error fn returns.
func ReadSkipped(r io.Reader, fn func(*Skip) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var s Skip
		if err := s.UnmarshalJSON(sc.Bytes()); err != nil {
			return fmt.Errorf("storage: skipped line %d: %w", n, err)
		}
		if err := fn(&s); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("storage: skipped: %w", err)
	}
	return nil
}
