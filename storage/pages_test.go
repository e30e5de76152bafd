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

// TestPageLanguage checks pages.jsonl's language: an object with code, script and
// confidence, read back; left out when nil.
func TestPageLanguage(t *testing.T) {
	p := Page{URL: "http://a.example/", Language: &Language{Code: "zh", Script: "Hant", Confidence: 0.75}}
	b, err := json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"language":{"code":"zh","script":"Hant","confidence":0.75}`; !strings.Contains(string(b), want) {
		t.Errorf("line %s lacks %s", b, want)
	}
	var got Page
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Language == nil || *got.Language != *p.Language {
		t.Errorf("read back language %+v, want %+v", got.Language, p.Language)
	}
	b, err = json.Marshal(&Page{URL: "http://a.example/"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"language"`) {
		t.Errorf("line %s holds a language", b)
	}
}
