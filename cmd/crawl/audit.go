package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/audit"
)

func init() {
	register("audit", "check from WARC files alone that a crawl was polite", runAudit)
}

// errViolations marks an audit that found violations: exit status 1, the report
// having said what they are.
var errViolations = errors.New("the audit found violations")

func runAudit(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("audit", "usage: crawl audit [-agent TOKEN] [-min-delay D] [-json FILE] FILE|DIR|WACZ...\n\n"+
		"Reads WARC files (of any crawler), a crawl's data directory or a WACZ, and checks\n"+
		"per host and per IP address that every fetch was allowed by the robots.txt in\n"+
		"force at that moment (re-evaluated for the agent), that robots.txt came first,\n"+
		"that each request waited the delay in force after the previous response's end\n"+
		"(the largest of -min-delay, Crawl-delay, Request-rate and Retry-After), that no\n"+
		"more than -per-host requests overlapped, the backoff after 429 and 503, and\n"+
		"Visit-time windows. What the records cannot show (dates to the second, no\n"+
		"response end) is reported as not checked, never guessed. Settings not given\n"+
		"are taken from the crawl's warcinfo record when politecrawl wrote it.\n"+
		"Exits with status 1 when it finds a violation.")
	agent := fs.String("agent", "", "the product `token` robots.txt is evaluated for (default: the warcinfo's user-agent, or each request's)")
	minDelay := fs.Duration("min-delay", 0, "the crawler's own minimum `delay` per host (default: the warcinfo's min-delay, or none)")
	perHost := fs.Int("per-host", 0, "requests allowed in flight at once per host (default: the warcinfo's per-host, or 1)")
	backoff := fs.Duration("backoff", 0, "the least `wait` after a 429 or 503 without Retry-After (default: the warcinfo's backoff-min, or 1s)")
	perIP := fs.Bool("per-ip", false, "hold requests to one IP address to the host rules too (default: the warcinfo's group-by-ip)")
	jsonOut := fs.String("json", "", "write the full report as JSON to `file` (- for standard output)")
	show := fs.Int("show", 5, "violations of each kind to print")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("audit needs a WARC file, a data directory or a WACZ")
	}
	a := audit.New(audit.Options{Agent: *agent, MinDelay: *minDelay, PerHost: *perHost, Backoff: *backoff,
		PerIP: *perIP, Software: "politecrawl " + crawl.Version})
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := a.ReadPath(p); err != nil {
			return err
		}
	}
	rep := a.Report()
	if *jsonOut != "" {
		if err := writeReport(m, *jsonOut, rep); err != nil {
			return err
		}
	}
	if *jsonOut != "-" {
		if err := rep.WriteText(m.Stdout, *show); err != nil {
			return err
		}
	}
	if !rep.OK() {
		return errViolations
	}
	return nil
}

// writeReport writes rep's JSON to path, or to standard output for "-".
func writeReport(m *Main, path string, rep *audit.Report) error {
	if path == "-" {
		return rep.WriteJSON(m.Stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("audit report: %w", err)
	}
	if err := rep.WriteJSON(f); err != nil {
		f.Close()
		return fmt.Errorf("audit report: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("audit report: %w", err)
	}
	return nil
}
