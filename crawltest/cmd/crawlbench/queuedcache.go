package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// queueCached gives the crawl in dataDir a frontier holding n URLs queued elsewhere
// (see queueElsewhere). With -queued-cache DIR the frontier is built once into DIR,
// named by its size and hosts, and copied into dataDir for each run, so that runs after
// the first skip the build (about two minutes at 10M URLs); without it, it is built in
// dataDir. It reports whether the copy came from the cache.
func (b *bench) queueCached(ctx context.Context, dataDir string, n int) (built, bool, error) {
	s := b.opts.size
	hosts := scaleHostNames(s.scaleHosts)
	cache := b.opts.queuedCache
	if cache == "" {
		bt, err := queueElsewhere(ctx, dataDir, hosts, n, s.scaleBatch)
		return bt, false, err
	}
	dir := filepath.Join(cache, fmt.Sprintf("queued-%d-over-%d", n, s.scaleHosts))
	src := filepath.Join(dir, "frontier.db")
	reused := true
	bt := built{urls: n, written: -1}
	if _, err := os.Stat(src); err != nil {
		reused = false
		// Build beside the final name and rename, so that a build cut short never
		// passes for a finished one.
		tmp := dir + ".building"
		if err := os.RemoveAll(tmp); err != nil {
			return built{}, false, err
		}
		if bt, err = queueElsewhere(ctx, tmp, hosts, n, s.scaleBatch); err != nil {
			return built{}, false, err
		}
		if err := os.RemoveAll(dir); err != nil {
			return built{}, false, err
		}
		if err := os.Rename(tmp, dir); err != nil {
			return built{}, false, err
		}
	}
	start := time.Now()
	if err := os.RemoveAll(dataDir); err != nil {
		return built{}, false, err
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return built{}, false, err
	}
	if err := copyFile(filepath.Join(dataDir, "frontier.db"), src); err != nil {
		return built{}, false, err
	}
	if reused {
		bt.time = time.Since(start)
	}
	return bt, reused, nil
}

// copyFile copies the file src to a new file dst and syncs it.
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
