package storage

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestPageRecrawlFields checks pages.jsonl's changed and previous_fetch: left out
// for a first fetch, written and read back for a refetch, false included.
func TestPageRecrawlFields(t *testing.T) {
	unchanged := false
	prev := time.Date(2026, 11, 22, 1, 2, 3, 4e6, time.UTC)
	for _, c := range []struct {
		name string
		page Page
		want []string // substrings of the line
		not  []string
	}{
		{"first fetch", Page{URL: "http://a.example/", FetchedAt: prev},
			nil, []string{`"changed"`, `"previous_fetch"`}},
		{"unchanged refetch", Page{URL: "http://a.example/", FetchedAt: prev.Add(time.Hour), Changed: &unchanged, PreviousFetch: prev},
			[]string{`"changed":false`, `"previous_fetch":"2026-11-22T01:02:03.004Z"`}, nil},
	} {
		b, err := json.Marshal(&c.page)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: line %s lacks %s", c.name, b, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(string(b), w) {
				t.Errorf("%s: line %s holds %s", c.name, b, w)
			}
		}
		var got Page
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: Unmarshal(%s): %v", c.name, b, err)
		}
		if (got.Changed == nil) != (c.page.Changed == nil) || got.Changed != nil && *got.Changed != *c.page.Changed ||
			!got.PreviousFetch.Equal(c.page.PreviousFetch) {
			t.Errorf("%s: read back changed %v, previous_fetch %v; want %v, %v", c.name, got.Changed, got.PreviousFetch, c.page.Changed, c.page.PreviousFetch)
		}
	}
}
