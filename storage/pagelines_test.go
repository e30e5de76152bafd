package storage

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestEachPagesLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the reader's buffer
	filler := strings.Repeat("f", tailWindow)
	type line struct {
		at   int64
		text string
	}
	tests := []struct {
		name      string
		content   string
		all       bool
		want      []line
		wantStart int64
	}{
		{"empty", "", false, nil, 0},
		{"whole small file", "a\nbb\n", false, []line{{0, "a\n"}, {2, "bb\n"}}, 0},
		{"unterminated last line", "a\nbb", true, []line{{0, "a\n"}, {2, "bb"}}, 0},
		{"long line", "a\n" + long + "\nb\n", true, []line{{0, "a\n"}, {2, long + "\n"}, {int64(3 + len(long)), "b\n"}}, 0},
		{
			// The window starts inside the filler line: it is skipped, the lines after it are read.
			"tail window", filler + "\nlast\n", false,
			[]line{{int64(len(filler) + 1), "last\n"}}, int64(len(filler) + 6 - tailWindow),
		},
		{"all reads past the window", filler + "\nlast\n", true, []line{{0, filler + "\n"}, {int64(len(filler) + 1), "last\n"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pages.jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			var got []line
			start, err := eachPagesLine(path, tt.all, func(at int64, b []byte) error {
				got = append(got, line{at, string(b)})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if start != tt.wantStart {
				t.Errorf("start %d, want %d", start, tt.wantStart)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %d lines, want %d", len(got), len(tt.want))
				for i := range min(len(got), len(tt.want)) {
					if got[i] != tt.want[i] {
						t.Errorf("line %d: at %d %.40q, want at %d %.40q", i, got[i].at, got[i].text, tt.want[i].at, tt.want[i].text)
					}
				}
			}
		})
	}
}

func TestEachPagesLineStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.jsonl")
	if err := os.WriteFile(path, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	n := 0
	_, err := eachPagesLine(path, true, func(int64, []byte) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Fatalf("err %v after %d lines, want stop after 2", err, n)
	}
	if _, err := eachPagesLine(filepath.Join(t.TempDir(), "none"), false, nil); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestLineLoc(t *testing.T) {
	tests := []struct {
		line string
		want warcLoc
		ok   bool
	}{
		{`{"warc_file":"a.warc.gz","warc_offset":10,"warc_length":5}` + "\n", warcLoc{"a.warc.gz", 10, 5}, true},
		{`{"url":"http://x/"}`, warcLoc{}, false},
		{`{"warc_file":""}`, warcLoc{}, false},
		{`not json`, warcLoc{}, false},
		{`{"warc_file":"a","warc_offset":"x"}`, warcLoc{}, false},
	}
	for _, tt := range tests {
		got, ok := lineLoc([]byte(tt.line))
		if got != tt.want || ok != tt.ok {
			t.Errorf("lineLoc(%q) = %v, %v; want %v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}
