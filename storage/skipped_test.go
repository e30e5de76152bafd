package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSkippedRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 123e6, time.UTC)
	in := []*Skip{
		{URL: "http://a.test/private/x", Reason: "robots", Detail: "disallow: /private/ (line 2)",
			RobotsURL: "http://a.test/robots.txt", Time: at, FoundOn: "http://a.test/", Depth: 1},
		{URL: "http://b.test/", Reason: "deferred", Detail: "crawl-delay", Delay: 90 * time.Second,
			Until: at.Add(90 * time.Second), Time: at},
		{URL: "http://c.test/", Reason: "failed", Detail: "dial tcp: connection refused", Time: at},
	}
	path := filepath.Join(t.TempDir(), "skipped.jsonl")
	w, err := OpenSkipped(path, PagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background(), in[:2]...); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background(), in[2]); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background()); err != nil {
		t.Fatalf("Write of nothing: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background(), in[0]); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(b), "\n", 2)[0]
	const want = `{"url":"http://a.test/private/x","reason":"robots","detail":"disallow: /private/ (line 2)","robots_url":"http://a.test/robots.txt","time":"2026-03-01T12:00:00.123Z","found_on":"http://a.test/","depth":1}`
	if first != want {
		t.Errorf("first line:\n\tgot  %s\n\twant %s", first, want)
	}
	var got []*Skip
	if err := ReadSkipped(bytes.NewReader(b), func(s *Skip) error { got = append(got, s); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(in) {
		t.Fatalf("ReadSkipped: %d lines, want %d", len(got), len(in))
	}
	for i := range got {
		if !got[i].Time.Equal(in[i].Time) || !got[i].Until.Equal(in[i].Until) {
			t.Errorf("line %d times: got %v %v, want %v %v", i+1, got[i].Time, got[i].Until, in[i].Time, in[i].Until)
		}
		got[i].Time, got[i].Until = in[i].Time, in[i].Until
	}
	if fmt.Sprintf("%+v %+v %+v", *got[0], *got[1], *got[2]) != fmt.Sprintf("%+v %+v %+v", *in[0], *in[1], *in[2]) {
		t.Errorf("ReadSkipped:\n\tgot  %v\n\twant %v", got, in)
	}
}

// A torn last line (a crash in the middle of a write) is cut off at open; whole lines
// stay, and lines written by concurrent writers are each whole.
func TestSkippedTornTailAndConcurrency(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skipped.jsonl")
	good := `{"url":"http://a.test/","reason":"robots","detail":"","time":"2026-03-01T12:00:00.000Z","depth":0}` + "\n"
	if err := os.WriteFile(path, []byte(good+`{"url":"http://a.test/x","rea`), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := OpenSkipped(path, PagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Cut() == 0 {
		t.Errorf("Cut() = 0, want the torn line's length")
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 10 {
				s := &Skip{URL: fmt.Sprintf("http://a.test/%d/%d", i, j), Reason: "scope", Detail: "depth", Time: time.Now()}
				if err := w.Write(context.Background(), s, s); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	if err := ReadSkipped(f, func(*Skip) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 1+8*10*2 {
		t.Errorf("%d lines, want %d", n, 1+8*10*2)
	}
}

// TestSkippedLastLineWithoutNewlineKept checks that a whole last line that lacks only
// its newline is kept, as in pages.jsonl, rather than cut as torn.
func TestSkippedLastLineWithoutNewlineKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skipped.jsonl")
	line := `{"url":"http://a.test/","reason":"robots","detail":"","time":"2026-03-01T12:00:00.000Z","depth":0}`
	if err := os.WriteFile(path, []byte(line+"\n"+line), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := OpenSkipped(path, PagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := w.Repair(); r.Cut != 0 || !r.Newline {
		t.Errorf("Repair() = %+v, want Newline and nothing cut", r)
	}
	if err := w.Write(context.Background(), &Skip{URL: "http://a.test/x", Reason: "scope", Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	if err := ReadSkipped(f, func(s *Skip) error { got = append(got, s.URL); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://a.test/", "http://a.test/", "http://a.test/x"}; !slices.Equal(got, want) {
		t.Errorf("lines:\n\tgot  %q\n\twant %q", got, want)
	}
}

// FuzzSkip checks that any line decodes without panic, and that a decoded line encodes
// and decodes to itself.
func FuzzSkip(f *testing.F) {
	f.Add([]byte(`{"url":"http://a.test/private/x","reason":"robots","detail":"disallow: /private/ (line 2)","robots_url":"http://a.test/robots.txt","time":"2026-03-01T12:00:00.123Z","found_on":"http://a.test/","depth":1}`))
	f.Add([]byte(`{"url":"http://b.test/","reason":"deferred","detail":"crawl-delay","crawl_delay":90,"until":"2026-03-01T12:01:30Z","time":"2026-03-01T12:00:00Z","depth":0}`))
	f.Add([]byte(`{"crawl_delay":-1e308,"time":"x"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"time":"9999-12-31T23:59:59-23:59"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var s Skip
		if err := s.UnmarshalJSON(line); err != nil {
			return
		}
		if y := s.Time.UTC().Year(); y < 0 || y > 9999 {
			return // RFC 3339 has four-digit years: such a time cannot be written back
		}
		if y := s.Until.UTC().Year(); y < 0 || y > 9999 {
			return
		}
		b, err := s.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON of a decoded line: %v", err)
		}
		var again Skip
		if err := again.UnmarshalJSON(b); err != nil {
			t.Fatalf("decoding %s: %v", b, err)
		}
		b2, err := again.MarshalJSON()
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("round trip:\n\t%s\n\t%s (%v)", b, b2, err)
		}
	})
}
