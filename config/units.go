package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration written in YAML as a string such as "200ms", "1s" or
// "1m30s" (a bare number is seconds).
type Duration time.Duration

// ParseDuration parses a duration as the configuration file and the command's flags
// write it: a number with a unit ("200ms", "1.5s", "1m30s"), or a bare number of seconds
// ("5", "0.5").
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 || secs > 1e9 {
			return 0, fmt.Errorf("duration %q out of range", s)
		}
		return Duration(secs * float64(time.Second)), nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("bad duration %q: want a number with a unit such as 1s or 200ms, or a number of seconds", s)
	}
	return Duration(v), nil
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 1s or 200ms", n.Line)
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*d = v
	return nil
}

// Set implements flag.Value, so a flag takes a duration as the configuration file does
// (a bare number is seconds).
func (d *Duration) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

func (d Duration) String() string { return time.Duration(d).String() }

// ByteSize is a size in bytes written in YAML as a number or with a unit: 500KB, 10MiB,
// 1GiB (KB, MB and GB are powers of 1000; KiB, MiB and GiB powers of 1024).
type ByteSize int64

var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

// ParseByteSize parses a size such as "10MiB".
func ParseByteSize(s string) (ByteSize, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range byteUnits {
		if len(s) > len(u.suffix) && strings.EqualFold(s[len(s)-len(u.suffix):], u.suffix) {
			mult = u.mult
			s = strings.TrimSpace(s[:len(s)-len(u.suffix)])
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f*float64(mult) > float64(1<<62) {
		return 0, fmt.Errorf("bad size %q: want a number with a unit such as 10MiB", s)
	}
	return ByteSize(f * float64(mult)), nil
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a size such as 10MiB", n.Line)
	}
	v, err := ParseByteSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*b = v
	return nil
}

func (b ByteSize) String() string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", b>>10)
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

// Depth is the most link hops followed from a seed (seeds have depth 0). Unlimited (0)
// follows links at any depth; SeedsOnly (-1) fetches the seeds and follows none of their
// links. In YAML and on the command line it is a number, or the word "seeds" or
// "unlimited".
type Depth int

const (
	// Unlimited is the Depth that follows links at any depth.
	Unlimited Depth = 0
	// SeedsOnly is the Depth that follows no link from a seed.
	SeedsOnly Depth = -1
)

// ParseDepth parses a depth as the configuration file and the command's flags write it.
func ParseDepth(s string) (Depth, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "seeds":
		return SeedsOnly, nil
	case "unlimited":
		return Unlimited, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < int(SeedsOnly) {
		return 0, fmt.Errorf("bad depth %q: want a number of link hops (0 = unlimited), or seeds (the seeds only)", s)
	}
	return Depth(n), nil
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Depth) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a depth: a number, or seeds", n.Line)
	}
	// A number out of range is left to Validate, whose error names the field.
	if v, err := strconv.Atoi(strings.TrimSpace(n.Value)); err == nil {
		*d = Depth(v)
		return nil
	}
	v, err := ParseDepth(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*d = v
	return nil
}

// Set implements flag.Value.
func (d *Depth) Set(s string) error {
	v, err := ParseDepth(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Depth) MarshalYAML() (any, error) { return d.String(), nil }

func (d Depth) String() string {
	switch d {
	case SeedsOnly:
		return "seeds"
	case Unlimited:
		return "unlimited"
	}
	return strconv.Itoa(int(d))
}
