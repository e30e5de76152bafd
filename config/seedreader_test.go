package config

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// readResumed reads in as a crawl killed after every batch would: each batch by a new
// SeedReader started at the Offset and Line the previous one reached.
func readResumed(t *testing.T, in string, batch int) (seeds []string, skipped []SeedSkip, reads int) {
	t.Helper()
	var offset int64
	line := 0
	for {
		r := NewSeedReader(strings.NewReader(in[offset:]), offset, line)
		more, skip, err := r.Read(batch)
		seeds, skipped = append(seeds, more...), append(skipped, skip...)
		offset, line = r.Offset(), r.Line()
		if reads++; errors.Is(err, io.EOF) {
			if offset != int64(len(in)) {
				t.Fatalf("reader ended at byte %d of %d", offset, len(in))
			}
			return seeds, skipped, reads
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestSeedReaderResumes(t *testing.T) {
	in := "\uFEFF# seeds\nhttp://a.test/\r\n\nnot a url\nhttp://b.test/x\n  http://c.test/  \n" +
		"http://" + strings.Repeat("d", MaxSeedLine) + ".test/\nhttp://e.test/"
	want, wantSkipped, err := ParseSeeds(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 || len(wantSkipped) != 2 {
		t.Fatalf("ParseSeeds: got %q, skipped %v; want 4 seeds, 2 lines skipped", want, wantSkipped)
	}
	for _, batch := range []int{1, 2, 3, 100} {
		seeds, skipped, _ := readResumed(t, in, batch)
		if !slices.Equal(seeds, want) || !slices.EqualFunc(skipped, wantSkipped, sameSkip) {
			t.Errorf("batches of %d:\n\tgot %q, skipped %v\n\twant %q, skipped %v", batch, seeds, skipped, want, wantSkipped)
		}
	}
}

// TestSeedReaderOffset: Offset is always the end of a line, so that a reader started
// there reads the next line whole.
func TestSeedReaderOffset(t *testing.T) {
	in := "http://a.test/\nhttp://b.test/\r\n# c\nhttp://c.test/"
	r := NewSeedReader(strings.NewReader(in), 0, 0)
	var offsets []int64
	for {
		_, _, err := r.Read(1)
		offsets = append(offsets, r.Offset())
		if err != nil {
			break
		}
	}
	if want := []int64{15, 31, 49}; !slices.Equal(offsets, want) {
		t.Errorf("offsets: got %v, want %v", offsets, want)
	}
	if r.Line() != 4 {
		t.Errorf("Line: got %d, want 4", r.Line())
	}
}

// TestSeedReaderError: a line cut short by a read error is not counted, so a reader
// started at Offset reads it whole.
func TestSeedReaderError(t *testing.T) {
	in := "http://a.test/\nhttp://b.test/\n"
	boom := errors.New("boom")
	r := NewSeedReader(io.MultiReader(strings.NewReader(in[:20]), iotest.ErrReader(boom)), 0, 0)
	seeds, _, err := r.Read(10)
	if !errors.Is(err, boom) || !slices.Equal(seeds, []string{"http://a.test/"}) || r.Offset() != 15 {
		t.Fatalf("got %q, %v at byte %d; want [http://a.test/], boom at byte 15", seeds, err, r.Offset())
	}
	if _, _, again := r.Read(10); !errors.Is(again, boom) {
		t.Errorf("second Read: got %v, want %v", again, boom)
	}
	rest, _, err := NewSeedReader(strings.NewReader(in[15:]), 15, r.Line()).Read(10)
	if !errors.Is(err, io.EOF) || !slices.Equal(rest, []string{"http://b.test/"}) {
		t.Errorf("resumed: got %q, %v; want [http://b.test/], EOF", rest, err)
	}
}

// FuzzSeedReader checks that reading a file in batches, each by a new reader started
// where the last one stopped, returns what ParseSeeds returns.
func FuzzSeedReader(f *testing.F) {
	f.Add("http://a.test/\n# c\nnot a url\n", 1)
	f.Add("\uFEFFhttps://b.test/x\r\n\r\nhttp://c.test/", 2)
	f.Fuzz(func(t *testing.T, in string, batch int) {
		batch = 1 + batch&7
		want, wantSkipped, err := ParseSeeds(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		seeds, skipped, _ := readResumed(t, in, batch)
		if !slices.Equal(seeds, want) || !slices.EqualFunc(skipped, wantSkipped, sameSkip) {
			t.Fatalf("batches of %d:\n\tgot %q, skipped %v\n\twant %q, skipped %v", batch, seeds, skipped, want, wantSkipped)
		}
	})
}

func sameSkip(a, b SeedSkip) bool {
	return a.Line == b.Line && a.Text == b.Text && a.Err.Error() == b.Err.Error()
}
