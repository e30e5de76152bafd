// Command crawl is politecrawl's command line: it crawls web sites politely, explains
// robots.txt decisions, and reports on a crawl's state.
//
// Usage:
//
//	crawl [flags] URL...        crawl from these seeds (resumes when run again);
//	                            flags may also follow the URLs
//	crawl status [-data DIR]    what the frontier holds, or a running crawl's figures
//	crawl status -cluster URL   every process of a crawl shared through NATS
//	crawl robots [flags] URL... explain robots.txt decisions
//	crawl verify [-data DIR]    check the WARC files and pages.jsonl for damage
//	crawl extract [-url URL] FILE|-  what a crawl extracts from one HTML file, as JSON
//	crawl audit [flags] PATH... check from WARC files (a data directory, a WACZ) that a
//	                            crawl was polite; exit status 1 on a violation
//	crawl help                  list every sub-command
//	crawl --version             print the version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

func main() {
	m := &Main{Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(m.Exit(m.Run(context.Background(), os.Args[1:])))
}

// Main holds the command's input and output streams, so tests can run it in-process.
type Main struct {
	Stdout io.Writer
	Stderr io.Writer
	// signals, when non-nil, replaces the process's SIGINT/SIGTERM notifications (tests).
	signals <-chan os.Signal
}

// command is one sub-command: name, one-line summary and the function that runs it.
type command struct {
	summary string
	run     func(ctx context.Context, m *Main, args []string) error
}

// commands lists the sub-commands by name. Each file of this package registers its own in
// an init function, so adding a sub-command touches one file.
var commands = map[string]command{}

func register(name, summary string, run func(ctx context.Context, m *Main, args []string) error) {
	commands[name] = command{summary: summary, run: run}
}

// errUsage marks an error the user made on the command line: exit status 2.
var errUsage = errors.New("usage error")

// errInterrupted marks a crawl stopped by a signal before it completed: exit status 130.
var errInterrupted = errors.New("interrupted")

// usagef returns a usage error with a message for stderr.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// usageError is a mistake on the command line, said in msg; it is errUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == errUsage }

// Run runs the command with args (without the program name). A first argument naming a
// sub-command selects it; anything else is a crawl.
func (m *Main) Run(ctx context.Context, args []string) error {
	if len(args) > 0 {
		if c, ok := commands[args[0]]; ok {
			return c.run(ctx, m, args[1:])
		}
		switch args[0] {
		case "help":
			m.printCommands(m.Stdout)
			return nil
		case "-version", "--version":
			return runVersion(ctx, m, args[1:])
		}
	}
	c, ok := commands[""]
	if !ok {
		m.printCommands(m.Stderr)
		return usagef("no crawl command in this build")
	}
	return c.run(ctx, m, args)
}

// Exit reports err on stderr, once and prefixed "crawl: " (the program's name; the
// engine's errors carry none), and turns it into the process exit
// status: 0 success, 2 usage error, 130 interrupted, 1 anything else.
func (m *Main) Exit(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		if err != errUsage {
			fmt.Fprintln(m.Stderr, "crawl:", err)
		}
		return 2
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(m.Stderr, "crawl: interrupted; run the same command again to resume")
		return 130
	default:
		fmt.Fprintln(m.Stderr, "crawl:", err)
		return 1
	}
}

func (m *Main) printCommands(w io.Writer) {
	fmt.Fprintln(w, "usage: crawl [flags] URL...   (crawl -h for the crawl flags)")
	fmt.Fprintln(w, "       crawl COMMAND [flags] [args]")
	fmt.Fprintln(w, "       crawl --version")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		if name != "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-8s %s\n", name, commands[name].summary)
	}
}

// flagSet returns the flag set of sub-command name, whose -h prints usage (a synopsis
// and what the command does) and then the flags, to stderr.
func (m *Main) flagSet(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, usage+"\n\nflags:")
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses a sub-command's args as parseArgs does and returns the arguments
// that are not flags. -h prints the usage and returns flag.ErrHelp. A bad flag is a
// usage error, said once with where to find the flags, not printed by the flag package
// and again by Exit around the whole usage.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	rest, err := parseArgs(fs, args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
		return rest, err
	case err != nil:
		help := "crawl " + fs.Name() + " -h"
		if fs.Name() == "crawl" {
			help = "crawl -h"
		}
		return nil, usagef("%v (%s lists the flags)", err, help)
	}
	return rest, nil
}

// parseArgs parses args with fs and returns the arguments that are not flags. Unlike
// fs.Parse it does not stop at the first of them: flags may follow URLs, as in
// "crawl https://example.com/ -delay 2s". After "--" everything is an argument.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		left := fs.Args()
		if len(left) == 0 {
			return rest, nil
		}
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			return append(rest, left...), nil
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}

// commandNames returns every word that names a sub-command.
func commandNames() []string {
	names := []string{"help"}
	for name := range commands {
		if name != "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// nearestCommand returns the sub-command whose name word is closest to, within two
// edits (one for names of four letters or fewer), or "".
func nearestCommand(word string) string {
	best, bestDist := "", 3
	for _, name := range commandNames() {
		limit := 2
		if len(name) <= 4 {
			limit = 1
		}
		if d := editDistance(strings.ToLower(word), name); d <= limit && d < bestDist {
			best, bestDist = name, d
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (with adjacent transpositions)
// between a and b, in bytes.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// checkBareWord refuses an argument that cannot be a URL because it is a bare word (no
// ':', '/' or '.'), such as a mistyped sub-command, suggesting the command it is closest to.
func checkBareWord(arg string) error {
	if arg == "" || strings.ContainsAny(arg, ":/.") {
		return nil
	}
	if c := nearestCommand(arg); c != "" {
		return usagef("%q is neither a URL nor a command; did you mean \"crawl %s\"?", arg, c)
	}
	return usagef("%q is neither a URL nor a command (crawl help lists the commands)", arg)
}

// notifySignals returns a channel of SIGINT and SIGTERM, and a function that stops it.
func (m *Main) notifySignals() (<-chan os.Signal, func()) {
	if m.signals != nil {
		return m.signals, func() {}
	}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}
