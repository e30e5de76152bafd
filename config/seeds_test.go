package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/politecrawl/crawl/extract"
)

func TestParseSeeds(t *testing.T) {
	long := "http://example.com/" + strings.Repeat("a", MaxSeedLine)
	tests := []struct {
		name    string
		in      string
		seeds   []string
		skipped []int // line numbers
	}{
		{"empty", "", nil, nil},
		{"comments and blanks", "# seeds\n\n   \n  # indented comment\nhttp://a.test/\n", []string{"http://a.test/"}, nil},
		{"no final newline", "http://a.test/\nhttps://b.test/x", []string{"http://a.test/", "https://b.test/x"}, nil},
		{"CRLF", "http://a.test/\r\nhttp://b.test/\r\n", []string{"http://a.test/", "http://b.test/"}, nil},
		{"BOM", "\uFEFFhttp://a.test/\nhttp://b.test/\n", []string{"http://a.test/", "http://b.test/"}, nil},
		{"BOM before a comment", "\uFEFF# list\nhttp://a.test/\n", []string{"http://a.test/"}, nil},
		{"BOM only on the first line", "http://a.test/\n\uFEFFhttp://b.test/\n", []string{"http://a.test/"}, []int{2}},
		{"junk skipped with its line number", "# c\nhttp://a.test/\n\nnot a url 5\nhttp://b.test/\n", []string{"http://a.test/", "http://b.test/"}, []int{4}},
		{"trailing junk", "http://host.test/p.html  trailing junk\n", nil, []int{1}},
		{"tab inside", "http://host.test/p\t.html\n", nil, []int{1}},
		{"spaces around", "   http://a.test/   \n", []string{"http://a.test/"}, nil},
		{"other schemes", "ftp://a.test/\nmailto:x@y.test\n//a.test/\n/path\n", nil, []int{1, 2, 3, 4}},
		{"no host", "http:///x\n", nil, []int{1}},
		{"bad port", "http://a.test:99999/\n", nil, []int{1}},
		{"too long", long + "\nhttp://b.test/\n", []string{"http://b.test/"}, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seeds, skipped, err := ParseSeeds(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("ParseSeeds(%q): %v", tt.in, err)
			}
			var lines []int
			for _, s := range skipped {
				lines = append(lines, s.Line)
				if s.Err == nil || len(s.Text) > 210 {
					t.Errorf("skip %+v: want an error and a short text", s)
				}
			}
			if !slices.Equal(seeds, tt.seeds) || !slices.Equal(lines, tt.skipped) {
				t.Errorf("ParseSeeds(%.60q):\n\tgot %q, skipped lines %v\n\twant %q, skipped lines %v", tt.in, seeds, lines, tt.seeds, tt.skipped)
			}
		})
	}
}

// TestParseSeedsManyLines is the case: one junk line in 10,000 skips that line
// only, reported under its own line number.
func TestParseSeedsManyLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("# a list\n")
	for i := range 10000 {
		if i == 4999 {
			b.WriteString("not a url 5\n") // line 5001
			continue
		}
		b.WriteString("http://h.test/p" + strings.Repeat("x", i%7) + "\n")
	}
	seeds, skipped, err := ParseSeeds(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds) != 9999 || len(skipped) != 1 || skipped[0].Line != 5001 {
		t.Fatalf("got %d seeds, skipped %v; want 9999 seeds and line 5001 skipped", len(seeds), skipped)
	}
	if got := skipped[0].String(); !strings.HasPrefix(got, `line 5001: "not a url 5": `) {
		t.Errorf("skip message %q", got)
	}
}

func TestParseSeedsReadError(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := ParseSeeds(iotest.ErrReader(boom))
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want %v", err, boom)
	}
}

func TestValidateSeedInConfig(t *testing.T) {
	cfg := Default()
	cfg.Seeds = []string{"http://host.test/p.html  trailing junk"}
	if err := cfg.Validate(); err == nil {
		t.Fatalf("seed with trailing junk accepted")
	}
}

func TestParseDuration(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"5", 5 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{"200ms", 200 * time.Millisecond, true},
		{"1m30s", 90 * time.Second, true},
		{" 2s ", 2 * time.Second, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"-1s", -time.Second, true}, // Validate refuses negative delays
		{"5 parsecs", 0, false},
		{"", 0, false},
		{"1e10", 0, false},
	} {
		got, err := ParseDuration(tt.in)
		if (err == nil) != tt.ok || (tt.ok && time.Duration(got) != tt.want) {
			t.Errorf("ParseDuration(%q):\n\tgot %v, %v\n\twant %v, ok %v", tt.in, time.Duration(got), err, tt.want, tt.ok)
		}
	}
}

// FuzzParseSeeds checks that any file parses without panic, that every seed returned
// is accepted by Validate, and that each line is either a seed, skipped, blank or a
// comment, in file order.
func FuzzParseSeeds(f *testing.F) {
	f.Add("http://a.test/\n# c\nnot a url\n")
	f.Add("\uFEFFhttps://b.test/x\r\n\r\n")
	f.Add("http://h.test/p.html  junk\nhttp://[::1]:80/\n")
	f.Fuzz(func(t *testing.T, in string) {
		seeds, skipped, err := ParseSeeds(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(seeds) > 0 {
			cfg := Default()
			cfg.Seeds = seeds
			if err := cfg.Validate(); err != nil {
				t.Fatalf("ParseSeeds returned a seed Validate refuses: %v", err)
			}
			// The engine canonicalises seeds under the configuration's URL rules.
			rules := extract.URLRules{StripParams: cfg.URL.StripParams, SortQuery: cfg.URL.SortQuery}
			for _, s := range seeds {
				if _, err := rules.Canonical(s); err != nil {
					t.Fatalf("ParseSeeds returned a seed the engine cannot canonicalise: %v", err)
				}
			}
		}
		last := 0
		for _, s := range skipped {
			if s.Line <= last || s.Err == nil {
				t.Fatalf("skipped %+v after line %d", s, last)
			}
			last = s.Line
		}
		if lines := strings.Count(in, "\n") + 1; last > lines {
			t.Fatalf("skipped line %d of %d", last, lines)
		}
	})
}
