package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/storage"
)

func init() {
	register("index", "rebuild the CDXJ index of every WARC file of a crawl", runIndex)
}

func runIndex(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("index", "usage: crawl index [-data DIR | -config FILE] [-damaged]\n\nReads every WARC file in DIR/warc and writes its CDXJ index beside it\n(NAME.warc.gz.cdxj, sorted, one line per response and revisit record, keys\nas pywb computes them). A crawl writes these itself; run this after a crash\nleft an index unfinished, or on WARC files from an older version. It refuses\nto run while a crawl writes to DIR.\n\nIt checks every WARC file first, as crawl verify does, and refuses (exit 1,\nnaming the file and the byte) if one is damaged, writing no index: -damaged\nindexes the whole records of a damaged file instead, and says so. An index is\nnever replaced by a shorter one. Files not named as a crawl's WARC files\n(PREFIX-TIMESTAMP-SERIAL.warc.gz) are left alone, with a warning.\n\nWith -parquet, or when DIR/cc-index exists, it also rewrites the Parquet\nindex (DIR/cc-index/crawl=NAME/subset=.../NAME.warc.gz.parquet, Common Crawl's\nflat schema) from the WARC files and their WET files. With -wet, or when DIR/warc\nholds WET files, it first writes every WET file (NAME.warc.wet.gz) anew, extracting\neach HTML page's main text from the WARC files as the crawl of -config (or of\nthe default configuration) does.")
	dataFlags := newDataFlags(fs)
	damaged := fs.Bool("damaged", false, "index the whole records of a damaged WARC file rather than refuse it")
	wet := fs.Bool("wet", false, "write the WET files anew even if DIR/warc holds none")
	parquet := fs.Bool("parquet", false, "rewrite the Parquet index even if DIR/cc-index does not exist")
	crawlName := fs.String("crawl-name", "", "the crawl `name` of the Parquet index (default: the one DIR/cc-index holds, else crawl)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("index takes no arguments")
	}
	data, err := dataFlags.loadCrawl()
	if err != nil {
		return err
	}
	dir := filepath.Join(data, "warc")
	files, lines := 0, 0
	err = storage.IndexWARCDir(dir, toolOptions(m, *damaged), func(path string, n int) {
		files++
		lines += n
		fmt.Fprintf(m.Stdout, "%s%s  %d lines\n", path, storage.IndexSuffix, n)
	})
	if err != nil {
		return fmt.Errorf("index %s: %w", dir, damageHint(err))
	}
	fmt.Fprintf(m.Stdout, "indexed %d WARC files, %d lines\n", files, lines)
	if have, _ := filepath.Glob(filepath.Join(dir, "*"+storage.WETSuffix)); *wet || len(have) > 0 {
		records := 0
		err := crawl.RebuildWET(dataFlags.cfg, dir, func(path string, n int) {
			records += n
			fmt.Fprintf(m.Stdout, "%s  %d conversion records\n", path, n)
		})
		if err != nil {
			return fmt.Errorf("index %s: %w", dir, err)
		}
		fmt.Fprintf(m.Stdout, "wrote the WET files: %d conversion records\n", records)
	}
	index := filepath.Join(data, crawl.ParquetDirName)
	if _, err := os.Stat(index); err != nil && !*parquet {
		return nil
	}
	name := *crawlName
	if name == "" {
		name = storage.DefaultPrefix
		if m, _ := filepath.Glob(filepath.Join(index, "crawl=*")); len(m) == 1 {
			name = strings.TrimPrefix(filepath.Base(m[0]), "crawl=")
		} else if len(m) > 1 {
			return usagef("%s holds several crawls: name one with -crawl-name", index)
		}
	}
	rows := 0
	err = storage.RebuildParquet(dir, index, name, func(path string, n int) {
		rows += n
		fmt.Fprintf(m.Stdout, "%s  %d Parquet rows\n", path, n)
	})
	if err != nil {
		return fmt.Errorf("index %s: %w", index, err)
	}
	fmt.Fprintf(m.Stdout, "Parquet index of crawl %s: %d rows\n", name, rows)
	return nil
}

// toolOptions are the file tools' options: damaged files refused unless damaged, and
// what they leave out or take in part said on stderr.
func toolOptions(m *Main, damaged bool) storage.ToolOptions {
	return storage.ToolOptions{Damaged: damaged, Warn: func(path, what string) {
		fmt.Fprintf(m.Stderr, "warning: %s: %s\n", path, what)
	}}
}

// damageHint adds to a *storage.DamageError what to do about it.
func damageHint(err error) error {
	var de *storage.DamageError
	if errors.As(err, &de) {
		return fmt.Errorf("%w (crawl verify lists the damage; -damaged takes the whole records before it)", err)
	}
	return err
}
