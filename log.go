package crawl

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
)

// openLog sets up logging: JSON lines in DATA_DIR/crawl.log at the configured level, and
// human text on Stderr (warnings and errors, or everything at log_level debug).
func (c *Crawler) openLog() (io.Closer, error) {
	f, err := os.OpenFile(filepath.Join(c.cfg.DataDir, "crawl.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err // an *fs.PathError, which names the file
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.cfg.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	stderr := c.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	stderrLevel := slog.LevelWarn
	if level < slog.LevelInfo {
		stderrLevel = level
	}
	file := slog.NewJSONHandler(f, &slog.HandlerOptions{Level: level})
	c.fileLog = slog.New(file)
	c.log = slog.New(slog.NewMultiHandler(
		file,
		&countWarnings{Handler: slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: stderrLevel}), n: &c.counters.warnings},
	))
	return f, nil
}

// countWarnings counts the warnings and errors its handler writes (Summary.Warnings), so
// that the summary says "the warnings above" only when there are some.
type countWarnings struct {
	slog.Handler
	n *atomic.Int64
}

func (h *countWarnings) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		h.n.Add(1)
	}
	return h.Handler.Handle(ctx, r)
}

func (h *countWarnings) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &countWarnings{Handler: h.Handler.WithAttrs(attrs), n: h.n}
}

func (h *countWarnings) WithGroup(name string) slog.Handler {
	return &countWarnings{Handler: h.Handler.WithGroup(name), n: h.n}
}
