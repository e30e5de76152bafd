package crawl

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
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
		slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: stderrLevel}),
	))
	return f, nil
}
