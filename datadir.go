package crawl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/politecrawl/crawl/storage"
)

// digestIndexPath returns where the crawl keeps the WARC payload-digest index: in the
// data directory beside frontier.db, not in warc/, so that warc/* matches WARC files
// only. An index an older version left in warc/ is moved there (a rename, so it is
// never half moved); moved reports that it was.
func digestIndexPath(dataDir string) (path string, moved bool, err error) {
	path = filepath.Join(dataDir, storage.DigestIndexName)
	old := filepath.Join(dataDir, "warc", storage.DigestIndexName)
	if _, err := os.Stat(path); err == nil {
		return path, false, nil
	}
	if _, err := os.Stat(old); err != nil {
		return path, false, nil
	}
	if err := os.Rename(old, path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", false, fmt.Errorf("crawl: moving the digest index out of warc/: %w", err)
	}
	return path, true, nil
}
