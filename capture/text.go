package capture

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/politecrawl/crawl/storage"
)

// WACZPath is where a WACZ package holds the report as JSON.
const WACZPath = "qa/capture.json"

// WACZFile returns the report as the JSON file a WACZ package holds (WACZPath).
func (r *Report) WACZFile() (storage.WACZFile, error) {
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		return storage.WACZFile{}, err
	}
	return storage.WACZFile{Path: WACZPath, Data: b.Bytes()}, nil
}

// WriteText writes the report for a reader: the totals, then up to show pages with
// missing requisites, each with up to show of them.
func (r *Report) WriteText(w io.Writer, show int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "capture report: %d pages, hop limit %d (%s), kinds %v (%s)\n", r.Pages, r.MaxHops, r.MaxHopsFrom, r.Kinds, r.KindsFrom)
	if r.Unread > 0 {
		fmt.Fprintf(bw, "  %d pages archived as revisits of records not in these files: not reported\n", r.Unread)
	}
	if r.Damaged > 0 {
		fmt.Fprintf(bw, "  %d WARC files damaged: read up to the damage only (crawl verify names it)\n", r.Damaged)
	}
	counts := func(name string, c Counts) {
		fmt.Fprintf(bw, "%s: %d found, %d archived, %d blocked by robots.txt, %d failed, %d skipped for a limit or policy, %d of kinds not fetched, %d missing\n",
			name, c.Found, c.Archived, c.Blocked, c.Failed, c.Limit, c.Excluded, c.Missing)
	}
	counts("requisites of pages", r.Totals)
	counts("distinct requisites", r.Distinct)
	n := 0
	for _, p := range r.PageReports {
		if p.Missing > 0 {
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(bw, "no page misses a requisite without a recorded reason")
		return bw.Flush()
	}
	fmt.Fprintf(bw, "%d pages miss requisites without a recorded reason:\n", n)
	shown := 0
	for _, p := range r.PageReports {
		if p.Missing == 0 {
			continue
		}
		if shown == show {
			fmt.Fprintf(bw, "  ... and %d more pages\n", n-shown)
			break
		}
		shown++
		fmt.Fprintf(bw, "  %s: %d of %d requisites missing\n", p.URL, p.Missing, p.Found)
		listed := 0
		for _, q := range p.NotArchived {
			if q.Status != Missing {
				continue
			}
			if listed == show {
				fmt.Fprintf(bw, "    ... and %d more\n", p.Missing-listed)
				break
			}
			listed++
			fmt.Fprintf(bw, "    %s %s (hop %d)\n", q.Kind, q.URL, q.Hop)
		}
	}
	return bw.Flush()
}
