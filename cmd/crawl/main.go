// Command crawl is politecrawl's command line: it crawls web sites politely, explains
// robots.txt decisions, and reports on a crawl's state.
//
// Usage:
//
//	crawl [flags] URL...        crawl from these seeds (resumes when run again)
//	crawl robots [flags] URL... explain robots.txt decisions
//	crawl -h                    list every sub-command
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
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), errUsage)
}

// Run runs the command with args (without the program name). A first argument naming a
// sub-command selects it; anything else is a crawl.
func (m *Main) Run(ctx context.Context, args []string) error {
	if len(args) > 0 {
		if c, ok := commands[args[0]]; ok {
			return c.run(ctx, m, args[1:])
		}
		if args[0] == "help" {
			m.printCommands(m.Stdout)
			return nil
		}
	}
	c, ok := commands[""]
	if !ok {
		m.printCommands(m.Stderr)
		return usagef("no crawl command in this build")
	}
	return c.run(ctx, m, args)
}

// Exit reports err on stderr and turns it into the process exit status: 0 success,
// 2 usage error, 130 interrupted, 1 anything else.
func (m *Main) Exit(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		if msg := err.Error(); msg != errUsage.Error() {
			fmt.Fprintln(m.Stderr, "crawl:", trimUsage(msg))
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

// trimUsage removes the ": usage error" suffix that usagef adds for errors.Is.
func trimUsage(msg string) string {
	suffix := ": " + errUsage.Error()
	if len(msg) > len(suffix) && msg[len(msg)-len(suffix):] == suffix {
		return msg[:len(msg)-len(suffix)]
	}
	return msg
}

func (m *Main) printCommands(w io.Writer) {
	fmt.Fprintln(w, "usage: crawl [flags] URL...   (crawl -h for the crawl flags)")
	fmt.Fprintln(w, "       crawl COMMAND [flags] [args]")
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

// notifySignals returns a channel of SIGINT and SIGTERM, and a function that stops it.
func (m *Main) notifySignals() (<-chan os.Signal, func()) {
	if m.signals != nil {
		return m.signals, func() {}
	}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}
