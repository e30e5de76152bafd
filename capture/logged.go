package capture

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/politecrawl/crawl/storage"
)

// Logged is the capture report as the crawl wrote it while it ran, summed: each
// document whose requisites were looked for (a page, or a stylesheet or frame within
// the hop limit) has in its pages.jsonl line what it names and what was done with
// each name at once (storage.RequisiteCounts), and each requisite queued has its own
// line saying what became of it, in pages.jsonl once fetched or in skipped.jsonl if
// not. A requisite many pages name is fetched once, after the first of them: its
// outcome is counted once, here and in Report.Distinct alike.
//
// Distinct differs from Report.Distinct for a URL also fetched as a page (a seed,
// a link: Report counts it archived, Logged as a page) and for a requisite's
// redirect target (a URL of its own here, not in Report).
//
// It is a sum of lines each written with its records, before the frontier marked
// the URL done: an interrupted crawl's Logged holds what it settled, and the
// requisites it queued and had not fetched yet are in neither Distinct count.
type Logged struct {
	// Documents counts the lines with a requisites object, and Named sums those
	// objects: a stylesheet ten pages name counts ten times in Named.Found.
	Documents int                     `json:"documents"`
	Named     storage.RequisiteCounts `json:"named"`
	// Distinct counts each requisite URL once, by what became of it, as the
	// report from the WARC files does (Report.Distinct): archived (a 2xx or 3xx
	// response or revisit), blocked by robots.txt, failed (an error status, or
	// skipped.jsonl failed or robots-unreachable) or Limit (skipped.jsonl for
	// another reason: requisite-limit, policy, deferred, ...); Found is their sum.
	// Excluded and Missing stay zero: a kind not fetched is only counted, in
	// Named.Excluded.
	Distinct Counts `json:"distinct"`
	// Truncated counts, of Distinct.Archived, the requisites archived cut at a
	// size limit (requisites.max_body_size): over a limit, yet archived.
	Truncated int `json:"truncated,omitempty"`
	// Pages counts the pages.jsonl lines of pages (not requisites), Requisites
	// those of requisites; Unreadable the lines of either file that are not
	// JSON objects (a crash's torn last line, before the next run repairs it).
	Pages      int `json:"pages"`
	Requisites int `json:"requisites"`
	Unreadable int `json:"unreadable,omitempty"`
}

// ReadLogged sums the requisite reports of the pages.jsonl and skipped.jsonl files
// of the crawl in data directory dir (either may be missing). It holds the requisite
// URLs met, each once, in memory.
func ReadLogged(dir string) (*Logged, error) {
	var lg Logged
	outcome := map[string]Status{}
	cut := map[string]bool{} // archived URLs: whether the line that archived them was truncated
	set := func(u string, s Status) {
		u = key(u)
		if old, ok := outcome[u]; !ok || rank(s) < rank(old) {
			outcome[u] = s
		}
	}
	err := eachLine(filepath.Join(dir, "pages.jsonl"), &lg.Unreadable, func(b []byte) error {
		var l struct {
			URL        string                   `json:"url"`
			Status     int                      `json:"status"`
			Requisite  string                   `json:"requisite"`
			Requisites *storage.RequisiteCounts `json:"requisites"`
			Truncated  bool                     `json:"truncated"`
		}
		if json.Unmarshal(b, &l) != nil {
			lg.Unreadable++
			return nil
		}
		if l.Requisite == "" {
			lg.Pages++
		} else {
			lg.Requisites++
			if archivedStatus(l.Status) {
				set(l.URL, Archived)
				cut[key(l.URL)] = l.Truncated
			} else {
				set(l.URL, Failed)
			}
		}
		if n := l.Requisites; n != nil {
			lg.Documents++
			lg.Named.Found += n.Found
			lg.Named.Queued += n.Queued
			lg.Named.Archived += n.Archived
			lg.Named.Excluded += n.Excluded
			lg.Named.Scope += n.Scope
			lg.Named.Limit += n.Limit
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachLine(filepath.Join(dir, "skipped.jsonl"), &lg.Unreadable, func(b []byte) error {
		var s struct {
			URL       string `json:"url"`
			Reason    string `json:"reason"`
			Requisite string `json:"requisite"`
		}
		if json.Unmarshal(b, &s) != nil {
			lg.Unreadable++
			return nil
		}
		if s.Requisite == "" {
			return nil
		}
		switch s.Reason {
		case "robots":
			set(s.URL, Blocked)
		case "failed", "robots-unreachable":
			set(s.URL, Failed)
		default:
			set(s.URL, Limit)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for u, s := range outcome {
		lg.Distinct.add(s)
		if s == Archived && cut[u] {
			lg.Truncated++
		}
	}
	return &lg, nil
}

// rank orders the outcomes of one URL as Reader.status tests them: an archived
// capture wins over a skipped.jsonl reason, which wins over an error status.
func rank(s Status) int {
	switch s {
	case Archived:
		return 0
	case Blocked, Limit:
		return 1
	}
	return 2
}

// eachLine calls fn with each line of the file at path; a missing file has none.
func eachLine(path string, unreadable *int, fn func([]byte) error) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	rd := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := rd.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer (a page's text): read it whole.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = rd.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			if line[len(line)-1] != '\n' {
				*unreadable++ // a last line without its newline: torn
			} else if ferr := fn(line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
