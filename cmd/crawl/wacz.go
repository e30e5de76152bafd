package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/audit"
	"github.com/politecrawl/crawl/capture"
	"github.com/politecrawl/crawl/storage"
)

func init() {
	register("wacz", "package a crawl as a WACZ file for ReplayWeb.page and pywb", runWACZ)
}

func runWACZ(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("wacz", "usage: crawl wacz [-data DIR | -config FILE] [-o FILE.wacz] [-title T] [-damaged]\n\nPackages the crawl in DIR as a WACZ 1.1.1 file (Web Archive Collection\nZipped): the WARC files stored as they are, their CDXJ indexes merged into\none, the HTML pages with their titles (and text, when the crawl kept it),\nthe politeness audit of the crawl (crawl audit's report, as\naudit/politeness.json and .txt), the capture report of every page (crawl qa's\nreport, as qa/capture.json), and datapackage.json with the SHA-256 of\nevery file. ReplayWeb.page opens it directly. Works on a crawl that was\nstopped or killed (the torn records a kill leaves at the end of its last WARC\nfile are left out); refuses to run while a crawl writes to DIR. It checks\nevery WARC file first, as crawl verify does, and refuses (exit 1, naming the\nfile and the byte) if one is damaged: -damaged packs only the whole records\nof a damaged file, and says so. Files not named as a crawl's WARC files are\nleft out, with a warning.")
	dataFlags := newDataFlags(fs)
	out := fs.String("o", "", "the WACZ `file` to write (default DIR/"+crawl.WACZName+")")
	damaged := fs.Bool("damaged", false, "pack the whole records of a damaged WARC file rather than refuse it")
	title := fs.String("title", "", "the collection's `title` in datapackage.json (default: the data directory's name)")
	withAudit := fs.Bool("audit", true, "audit the crawl's politeness and include the report")
	withQA := fs.Bool("qa", true, "derive the capture report of every page (as crawl qa) and include it")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("wacz takes no arguments")
	}
	data, err := dataFlags.loadCrawl()
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(data, crawl.WACZName)
	}
	if *title == "" {
		abs, _ := filepath.Abs(data)
		*title = filepath.Base(abs)
	}
	start := time.Now()
	opts := storage.WACZOptions{Title: *title, Software: "politecrawl/" + crawl.Version, ToolOptions: toolOptions(m, *damaged)}
	var rep *audit.Report
	if *withAudit {
		a := audit.New(audit.Options{Software: "politecrawl " + crawl.Version})
		if err := a.ReadPath(filepath.Join(data, "warc")); err != nil {
			return fmt.Errorf("wacz %s: %w", data, err)
		}
		rep = a.Report()
		if opts.Files, err = rep.WACZFiles(); err != nil {
			return fmt.Errorf("wacz %s: %w", data, err)
		}
	}
	var qa *capture.Report
	if *withQA {
		if qa, err = captureReport(data, dataFlags); err != nil {
			return fmt.Errorf("wacz %s: %w", data, err)
		}
		f, err := qa.WACZFile()
		if err != nil {
			return fmt.Errorf("wacz %s: %w", data, err)
		}
		opts.Files = append(opts.Files, f)
	}
	st, err := storage.PackWACZFile(*out, filepath.Join(data, "warc"), filepath.Join(data, "pages.jsonl"), opts)
	if err != nil {
		return fmt.Errorf("wacz %s: %w", data, damageHint(err))
	}
	sec := time.Since(start).Seconds()
	fmt.Fprintf(m.Stdout, "wrote %s: %d WARC files (%.1f MB), %d index lines, %d pages in %.2fs (%.0f MB/s)\n",
		*out, st.WARCFiles, float64(st.WARCBytes)/1e6, st.IndexLines, st.Pages, sec, float64(st.WARCBytes)/1e6/sec)
	switch {
	case st.Damaged > 0:
		fmt.Fprintf(m.Stdout, "DAMAGED: %d WARC files packed in part (their whole records only, as -damaged asks): %d bytes left out\n", st.Damaged, st.Dropped)
	case st.Dropped > 0:
		fmt.Fprintf(m.Stdout, "left out %d bytes of torn records at the end of a WARC file (the crawl was killed)\n", st.Dropped)
	}
	switch {
	case rep == nil:
	case rep.OK():
		fmt.Fprintf(m.Stdout, "politeness audit: no violation in %d exchanges (%s)\n", rep.Exchanges, audit.WACZTextPath)
	default:
		fmt.Fprintf(m.Stdout, "politeness audit: %d violations in %d exchanges (%s)\n", len(rep.Violations), rep.Exchanges, audit.WACZTextPath)
	}
	if qa != nil {
		fmt.Fprintf(m.Stdout, "capture report: %d pages, %d of their %d requisites archived, %d missing without a recorded reason (%s)\n",
			qa.Pages, qa.Totals.Archived, qa.Totals.Found, qa.Totals.Missing, capture.WACZPath)
	}
	return nil
}
