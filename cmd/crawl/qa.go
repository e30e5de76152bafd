package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/politecrawl/crawl/capture"
)

func init() {
	register("qa", "report, from the WARC files alone, whether each page's requisites were archived", runQA)
}

// errMissing marks a capture report with requisites missing without a recorded
// reason: exit status 1, the report having named them.
var errMissing = errors.New("requisites are missing without a recorded reason")

func runQA(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("qa", "usage: crawl qa [-data DIR | -config FILE] [-json FILE] [-show N]\n\n"+
		"Re-derives from the crawl's WARC files alone (and its skipped.jsonl) what each\n"+
		"archived HTML page needs to be shown, as the crawler finds it (the page's\n"+
		"images, stylesheets, scripts, fonts, frames; what its stylesheets and frames\n"+
		"name, up to the hop limit), and whether each was archived (a response or\n"+
		"revisit record), blocked by robots.txt, failed, skipped for a limit or policy\n"+
		"(skipped.jsonl), of a kind the crawl does not fetch (requisites.kinds), or\n"+
		"missing: none of these. Prints the totals and the pages with missing\n"+
		"requisites, and beside them the distinct counts as the crawl logged them in\n"+
		"pages.jsonl and skipped.jsonl (what crawl status sums). The hop limit and the kinds are the warcinfo record's when it\n"+
		"gives them, else the configuration's.\n"+
		"Exits with status 1 when any requisite is missing without a recorded reason.")
	dataFlags := newDataFlags(fs)
	jsonOut := fs.String("json", "", "write the full report (every page) as JSON to `file` (- for standard output)")
	show := fs.Int("show", 10, "pages with missing requisites to print, and requisites of each")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("qa takes no arguments")
	}
	data, err := dataFlags.loadCrawl()
	if err != nil {
		return err
	}
	rep, err := captureReport(data, dataFlags)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if *jsonOut != "" {
		if err := writeCapture(m, *jsonOut, rep); err != nil {
			return err
		}
	}
	if *jsonOut != "-" {
		if err := rep.WriteText(m.Stdout, *show); err != nil {
			return err
		}
		// Beside it, the same counts as the crawl logged them while it ran (what
		// crawl status sums): the two agree but for a URL also fetched as a page
		// and a requisite's redirect target (see capture.Logged).
		lg, err := capture.ReadLogged(data)
		if err != nil {
			return err
		}
		if lg.Documents > 0 || lg.Distinct.Found > 0 {
			d := lg.Distinct
			fmt.Fprintf(m.Stdout, "as the crawl logged them (pages.jsonl, skipped.jsonl): %d distinct, %d archived, %d blocked by robots.txt, %d failed, %d skipped for a limit or policy\n",
				d.Found, d.Archived, d.Blocked, d.Failed, d.Limit)
		}
	}
	if !rep.OK() {
		return errMissing
	}
	return nil
}

// captureReport derives the capture report of the crawl in data, taking the hop
// limit and the kinds from the configuration where the warcinfo record gives none.
func captureReport(data string, d *dataFlags) (*capture.Report, error) {
	kinds, err := capture.ParseKinds(d.cfg.Requisites.Kinds)
	if err != nil {
		return nil, err
	}
	opts := capture.Options{MaxHops: d.cfg.Requisites.MaxHops, MaxHTMLBytes: int(d.cfg.Extract.MaxHTMLBytes), Kinds: kinds}
	rep, err := capture.ReadDir(data, opts)
	if err != nil {
		return nil, fmt.Errorf("qa %s: %w", data, err)
	}
	return rep, nil
}

// writeCapture writes rep's JSON to path, or to standard output for "-".
func writeCapture(m *Main, path string, rep *capture.Report) error {
	if path == "-" {
		return rep.WriteJSON(m.Stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("capture report: %w", err)
	}
	if err := rep.WriteJSON(f); err != nil {
		f.Close()
		return fmt.Errorf("capture report: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("capture report: %w", err)
	}
	return nil
}
