package audit

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// isWARCName reports whether name is a WARC file's: *.warc.gz or *.warc.
func isWARCName(name string) bool {
	return strings.HasSuffix(name, ".warc.gz") || strings.HasSuffix(name, ".warc")
}

// ReadPath reads the WARC files path names: a WARC file, a WACZ file (its archive/
// directory), a crawl's data directory (its warc/ directory) or a directory of WARC
// files, in name order.
func (a *Auditor) ReadPath(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if fi.IsDir() {
		dir := path
		if sub := filepath.Join(path, "warc"); isDir(sub) {
			dir = sub
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		var names []string
		for _, e := range entries {
			if e.Type().IsRegular() && isWARCName(e.Name()) {
				names = append(names, e.Name())
			}
		}
		if len(names) == 0 {
			return fmt.Errorf("audit: %s: no WARC files", path)
		}
		sort.Strings(names)
		for _, n := range names {
			if err := a.readFile(filepath.Join(dir, n)); err != nil {
				return err
			}
		}
		return nil
	}
	if strings.HasSuffix(path, ".wacz") || strings.HasSuffix(path, ".zip") {
		return a.readWACZ(path)
	}
	return a.readFile(path)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func (a *Auditor) readFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	if err := a.Read(filepath.Base(path), f); err != nil {
		return fmt.Errorf("audit: %s: %w", path, err)
	}
	return nil
}

// readWACZ reads the WARC files of a WACZ package (WACZ 1.1.1: archive/*.warc.gz,
// stored), named in the report by their path in the package.
func (a *Auditor) readWACZ(path string) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("audit: %s: %w", path, err)
	}
	defer zr.Close()
	var files []*zip.File
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "archive/") && isWARCName(f.Name) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("audit: %s: no WARC files under archive/", path)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	for _, f := range files {
		if err := a.readZipped(f); err != nil {
			return fmt.Errorf("audit: %s: %s: %w", path, f.Name, err)
		}
	}
	return nil
}

func (a *Auditor) readZipped(f *zip.File) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	return a.Read(f.Name, io.Reader(r))
}
