// Command replaycheck measures how a crawl's WACZ replays in ReplayWeb.page against
// the live site, both in headless Chromium: for each sampled page, the distinct
// subresources the browser loads live, how many the archive answers in replay, and
// the fraction of screenshot pixels that differ. See package replaycheck and
// BENCHMARKS.md (issue 29).
//
//	replaycheck -wacz crawl.wacz -per-host 12 -host-rules 'MAP *.test 127.0.0.29' -json out.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/politecrawl/crawl/crawltest/replaycheck"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "replaycheck:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("replaycheck", flag.ContinueOnError)
	var opts replaycheck.Options
	fs.StringVar(&opts.WACZ, "wacz", "", "the WACZ to replay")
	fs.StringVar(&opts.Chromium, "chromium", "/usr/bin/chromium", "Chromium's path")
	fs.StringVar(&opts.ReplayWebPage, "rwp", filepath.Join(".ci", "node", "node_modules", "replaywebpage"), "the directory of npm's replaywebpage")
	fs.StringVar(&opts.HostRules, "host-rules", "", "Chromium's --host-resolver-rules for the live loads, e.g. 'MAP *.test 127.0.0.29'")
	fs.IntVar(&opts.Tolerance, "tolerance", 16, "largest colour-channel difference (0-255) of pixels counted as the same")
	fs.StringVar(&opts.Shots, "shots", "", "directory to keep the screenshots in")
	fs.DurationVar(&opts.PageTimeout, "page-timeout", 2*time.Minute, "the longest a page may take to load, live or replayed")
	perHost := fs.Int("per-host", 10, "pages sampled per host from the WACZ's pages (when no URL is given)")
	jsonOut := fs.String("json", "", "write every page's figures to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if opts.WACZ == "" {
		return fmt.Errorf("-wacz is required")
	}
	pages := fs.Args()
	if len(pages) == 0 {
		var err error
		if pages, err = replaycheck.Sample(opts.WACZ, *perHost); err != nil {
			return err
		}
	}
	opts.Log = os.Stderr
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	res, err := replaycheck.Check(ctx, opts, pages)
	if err != nil && len(res) == 0 {
		return err
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if werr := os.WriteFile(*jsonOut, b, 0o644); werr != nil {
			return werr
		}
	}
	printSummary(res)
	return err
}

// printSummary prints, per host, the pages measured, the distinct subresources loaded
// live, how many the archive answered in replay, and the screenshot differences.
func printSummary(res []replaycheck.Page) {
	type sum struct {
		pages, failed  int
		live, answered map[string]bool
		diffs          []float64
		missing        map[string]bool
		icons, iconsOK map[string]bool
	}
	byHost := map[string]*sum{}
	var hosts []string
	for _, p := range res {
		u, _ := url.Parse(p.URL)
		h := u.Host
		s := byHost[h]
		if s == nil {
			s = &sum{live: map[string]bool{}, answered: map[string]bool{}, missing: map[string]bool{},
				icons: map[string]bool{}, iconsOK: map[string]bool{}}
			byHost[h] = s
			hosts = append(hosts, h)
		}
		s.pages++
		if p.Err != "" {
			s.failed++
			continue
		}
		s.diffs = append(s.diffs, p.Diff)
		for _, r := range p.Icons {
			s.icons[r.URL] = true
			if r.Archived > 0 && r.Archived < 400 {
				s.iconsOK[r.URL] = true
			}
		}
		missing := map[string]bool{}
		for _, m := range p.Missing {
			u, _, _ := strings.Cut(m, " ")
			missing[u] = true
			s.missing[m] = true
		}
		for _, r := range p.Live {
			s.live[r.URL] = true
			if !missing[r.URL] {
				s.answered[r.URL] = true
			}
		}
	}
	sort.Strings(hosts)
	fmt.Printf("%-28s %6s %8s %14s %9s %9s %8s\n", "host", "pages", "live", "answered", "diff med", "diff max", "icons")
	for _, h := range hosts {
		s := byHost[h]
		sort.Float64s(s.diffs)
		med, max := 0.0, 0.0
		if n := len(s.diffs); n > 0 {
			med, max = s.diffs[n/2], s.diffs[n-1]
			if n%2 == 0 {
				med = (s.diffs[n/2-1] + s.diffs[n/2]) / 2
			}
		}
		pct := 100.0
		if len(s.live) > 0 {
			pct = 100 * float64(len(s.answered)) / float64(len(s.live))
		}
		pages := fmt.Sprint(s.pages)
		if s.failed > 0 {
			pages = fmt.Sprintf("%d (%d failed)", s.pages, s.failed)
		}
		fmt.Printf("%-28s %6s %8d %7d %5.1f%% %9.4f %9.4f %4d/%-3d\n", h, pages, len(s.live), len(s.answered), pct, med, max, len(s.iconsOK), len(s.icons))
		var ms []string
		for m := range s.missing {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		for _, m := range ms {
			fmt.Printf("    missing: %s\n", m)
		}
	}
	for _, p := range res {
		if p.Err != "" {
			fmt.Printf("not measured: %s: %s\n", p.URL, p.Err)
		}
	}
}
