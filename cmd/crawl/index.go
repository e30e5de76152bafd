package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/politecrawl/crawl/storage"
)

func init() {
	register("index", "rebuild the CDXJ index of every WARC file of a crawl", runIndex)
}

func runIndex(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("index", "usage: crawl index [-data DIR]\n\nReads every WARC file in DIR/warc and writes its CDXJ index beside it\n(NAME.warc.gz.cdxj, sorted, one line per response and revisit record, keys\nas pywb computes them). A crawl writes these itself; run this after a crash\nleft an index unfinished, or on WARC files from an older version. It refuses\nto run while a crawl writes to DIR.")
	data := fs.String("data", "crawl-data", "the crawl's data `dir`ectory")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("index takes no arguments")
	}
	dir := filepath.Join(*data, "warc")
	files, lines := 0, 0
	err = storage.RebuildIndexes(dir, func(path string, n int) {
		files++
		lines += n
		fmt.Fprintf(m.Stdout, "%s%s  %d lines\n", path, storage.IndexSuffix, n)
	})
	if err != nil {
		return fmt.Errorf("index %s: %w", dir, err)
	}
	fmt.Fprintf(m.Stdout, "indexed %d WARC files, %d lines\n", files, lines)
	return nil
}
