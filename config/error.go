package config

import (
	"fmt"
	"strings"
)

// Error is a configuration value that cannot be used.
type Error struct {
	Field string // the YAML key path, such as "politeness.min_delay"
	Value string // the value given, as text
	Line  int    // the line in the configuration file, 0 when unknown (flags, defaults)
	Err   error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Field)
	if e.Value != "" {
		fmt.Fprintf(&b, " %q", e.Value)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }
