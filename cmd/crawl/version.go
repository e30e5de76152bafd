package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/politecrawl/crawl"
)

func init() {
	register("version", "print the version", runVersion)
}

// runVersion prints "politecrawl VERSION (GO VERSION[, commit REVISION[, modified]])".
func runVersion(ctx context.Context, m *Main, args []string) error {
	if len(args) > 0 {
		return usagef("version takes no arguments")
	}
	fmt.Fprintln(m.Stdout, versionString())
	return nil
}

func versionString() string {
	s := "politecrawl " + crawl.Version + " (" + runtime.Version()
	if info, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				rev = kv.Value
			case "vcs.modified":
				modified = kv.Value
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			s += ", commit " + rev
			if modified == "true" {
				s += ", modified"
			}
		}
	}
	return s + ")"
}
