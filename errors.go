package crawl

import "fmt"

// fmtErr says what the engine was doing when err, from another package, stopped it.
// The engine's errors carry no "crawl:": err names its own package, and the command
// names the program, so that the chain reads "crawl: finishing URL: frontier: commit:
// ..." with each name once.
func fmtErr(doing string, err error) error { return fmt.Errorf("%s: %w", doing, err) }
