package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/politecrawl/crawl/storage"
)

func init() {
	register("verify", "check a crawl's WARC files and pages.jsonl for damage", runVerify)
}

func runVerify(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("verify", "usage: crawl verify [-data DIR | -config FILE]\n\n"+
		"Reads every WARC file in DIR/warc gzip member by gzip member and checks that\n"+
		"each holds one whole record (intact gzip member, WARC header, a block of\n"+
		"Content-Length bytes); then checks that every line of DIR/pages.jsonl points\n"+
		"at whole records. Prints what it finds and exits with status 1 if anything is\n"+
		"damaged. It changes nothing: the next crawl repairs what a crash leaves and\n"+
		"reports the rest. It refuses to run while a crawl writes to DIR.")
	dataFlags := newDataFlags(fs)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("verify takes no arguments")
	}
	data, err := dataFlags.loadCrawl()
	if err != nil {
		return err
	}
	warcDir := filepath.Join(data, "warc")
	pagesPath := filepath.Join(data, "pages.jsonl")
	damaged := 0
	files, pages, err := storage.Verify(warcDir, pagesPath, func(c *storage.FileCheck) {
		if c.Whole() {
			fmt.Fprintf(m.Stdout, "%s  ok  %d records, %d bytes\n", c.File, c.Records, c.Size)
			return
		}
		damaged++
		fmt.Fprintf(m.Stdout, "%s  DAMAGED at byte %d of %d (%d whole records before): %s\n",
			c.File, c.End, c.Size, c.Records, c.Problem)
	})
	if err != nil {
		return fmt.Errorf("verify %s: %w", data, err)
	}
	bad := 0
	if pages != nil {
		bad = pages.Problems
		if bad == 0 {
			fmt.Fprintf(m.Stdout, "pages.jsonl  ok  %d lines\n", pages.Lines)
		}
		for _, p := range pages.First {
			url := ""
			if p.URL != "" {
				url = " " + p.URL
			}
			fmt.Fprintf(m.Stdout, "pages.jsonl  line %d%s: %s\n", p.Line, url, p.Problem)
		}
		if bad > len(pages.First) {
			fmt.Fprintf(m.Stdout, "pages.jsonl  ... and %d more lines with problems\n", bad-len(pages.First))
		}
	}
	if damaged > 0 || bad > 0 {
		return fmt.Errorf("verify %s: damage found: %d of %d WARC files, %d pages.jsonl lines", data, damaged, len(files), bad)
	}
	lines := 0
	if pages != nil {
		lines = pages.Lines
	}
	fmt.Fprintf(m.Stdout, "no damage: %d WARC files, %d pages.jsonl lines\n", len(files), lines)
	return nil
}
