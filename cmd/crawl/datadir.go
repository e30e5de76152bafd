package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/politecrawl/crawl/config"
)

// dataFlags are the -data and -config flags of the sub-commands that read a crawl's
// data directory (status, index, verify, wacz, ...): they find the directory as the
// crawl does, so a command line that names only the configuration file works for
// every sub-command.
type dataFlags struct {
	data   string // -data, "" when not given
	config string // -config, "" when not given
	cfg    config.Config
}

// newDataFlags registers -data and -config on fs.
func newDataFlags(fs *flag.FlagSet) *dataFlags {
	d := &dataFlags{}
	fs.StringVar(&d.data, "data", "", "the crawl's data `dir`ectory (default: -config's data_dir, else "+config.Default().DataDir+")")
	fs.StringVar(&d.config, "config", "", "read data_dir (and the cluster section) from this YAML `file`, as the crawl does")
	return d
}

// load reads the configuration file, if one was given, and returns the data directory:
// -data, else the file's data_dir, else the default. Call it after the flags are parsed.
func (d *dataFlags) load() (string, error) {
	cfg, err := loadConfig(d.config)
	if err != nil {
		return "", err
	}
	if d.data != "" {
		cfg.DataDir = d.data
	}
	d.cfg = cfg
	return cfg.DataDir, nil
}

// loadCrawl is load for the tools that read a crawl's WARC files: a directory without
// them is refused by name, before a tool opens (or names) any file in it.
func (d *dataFlags) loadCrawl() (string, error) {
	dir, err := d.load()
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(filepath.Join(dir, "warc")); err != nil || !st.IsDir() {
		return "", fmt.Errorf("no crawl in %s: it has no warc directory (give the crawl's -data, or a -config naming its data_dir)", dir)
	}
	return dir, nil
}
