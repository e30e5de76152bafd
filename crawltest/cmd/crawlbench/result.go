package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/politecrawl/crawl/internal/procstat"

	"github.com/politecrawl/crawl/frontier/workload"
)

// result is what one scenario measured and what went wrong in it.
type result struct {
	Scenario string
	Figures  []figure
	// Problems are failures of the scenario itself (an audit violation, an
	// incomplete crawl, an error); any of them makes the command exit 1. A goal
	// missed is not a problem.
	Problems []string
	Elapsed  time.Duration
}

// figure is one measured value, with its goal when the issue sets one.
type figure struct {
	Name  string
	Text  string  // the value as printed, with its unit
	Value float64 // the value in its base unit (seconds, bytes, a ratio, a count)
	Goal  string  `json:",omitempty"` // such as "≥ 0.95"; empty when there is none
	Met   *bool   `json:",omitempty"` // nil when there is no goal or in -short mode
}

// add records a figure without a goal.
func (r *result) add(name string, value float64, text string) {
	r.Figures = append(r.Figures, figure{Name: name, Text: text, Value: value})
}

// goal records a figure with a goal, met or not; judge is false in -short mode.
func (r *result) goal(name string, value float64, text, goal string, met, judge bool) {
	f := figure{Name: name, Text: text, Value: value, Goal: goal}
	if judge {
		f.Met = &met
	}
	r.Figures = append(r.Figures, f)
}

func (r *result) problem(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// line formats the result on one line: each figure, its goal, and the problems.
func (r *result) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s", r.Scenario)
	for i, f := range r.Figures {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s %s", f.Name, f.Text)
		if f.Goal != "" {
			fmt.Fprintf(&b, " (goal %s", f.Goal)
			if f.Met != nil {
				if *f.Met {
					b.WriteString(": met")
				} else {
					b.WriteString(": MISSED")
				}
			}
			b.WriteString(")")
		}
	}
	fmt.Fprintf(&b, "; in %s", r.Elapsed.Round(100*time.Millisecond))
	if len(r.Problems) == 0 {
		b.WriteString(" — ok")
	} else {
		fmt.Fprintf(&b, " — FAILED: %s", strings.Join(r.Problems, "; "))
	}
	return b.String()
}

// writeResults writes results.json and results.md (a table for BENCHMARKS.md) into dir.
func writeResults(dir string, o *options, results []*result) error {
	data, err := json.MarshalIndent(struct {
		Date    time.Time
		Machine string
		Short   bool
		Workers int
		Results []*result
	}{time.Now().UTC().Truncate(time.Second), machine(), o.short, o.workers, results}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s — `go run ./crawltest/cmd/crawlbench%s`\n\n", time.Now().Format("2006-01-02"), machine(), commandFlags(o))
	b.WriteString("| scenario | figure | value | goal | met? |\n|---|---|---|---|---|\n")
	for _, r := range results {
		for _, f := range r.Figures {
			met := ""
			if f.Met != nil {
				met = map[bool]string{true: "yes", false: "**no**"}[*f.Met]
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Scenario, f.Name, f.Text, f.Goal, met)
		}
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "| %s | FAILED | %s | | |\n", r.Scenario, p)
		}
	}
	return os.WriteFile(filepath.Join(dir, "results.md"), []byte(b.String()), 0o644)
}

func commandFlags(o *options) string {
	var s string
	if len(o.scenarios) < len(scenarioOrder) {
		var names []string
		for _, n := range scenarioOrder {
			if o.scenarios[n] {
				names = append(names, n)
			}
		}
		s += " -scenario " + strings.Join(names, ",")
	}
	if o.short {
		s += " -short"
	}
	if o.workers != 64 {
		s += fmt.Sprintf(" -workers %d", o.workers)
	}
	return s
}

// machine describes the machine: OS, architecture, cores, memory, Go version.
func machine() string {
	s := fmt.Sprintf("%s/%s, %d cores", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if mem := procstat.TotalMemory(); mem > 0 {
		s += ", " + workload.FormatBytes(float64(mem)) + " RAM"
	}
	return s + ", " + runtime.Version()
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.String()
}

// fmtCount formats n with commas between thousands: 10,000,000.
func fmtCount(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + fmtCount(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
