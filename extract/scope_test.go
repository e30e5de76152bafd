package extract

import (
	"strings"
	"sync"
	"testing"
)

// TestScopeSeeds checks each mode against seeds added in memory, and the same seeds
// held only in a SeedIndex (by their SeedKey): both scopes decide alike.
func TestScopeSeeds(t *testing.T) {
	seeds := []string{"https://www.example.com/docs/intro.html", "http://LOCALHOST:8080/a/", "http://192.0.2.7/x/y", "https://co.uk/"}
	tests := []struct {
		mode string
		url  string
		want Reason
	}{
		{ModeHost, "https://www.example.com/other", ReasonNone},
		{ModeHost, "http://www.example.com/other", ReasonNone},
		{ModeHost, "https://example.com/", ReasonOffHost},
		{ModeHost, "http://localhost:8080/z", ReasonNone},
		{ModeHost, "http://localhost/z", ReasonOffHost},
		{ModeHost, "http://192.0.2.7/", ReasonNone},
		{ModeDomain, "https://blog.example.com/", ReasonNone},
		{ModeDomain, "https://example.com/", ReasonNone},
		{ModeDomain, "https://example.org/", ReasonOffDomain},
		{ModeDomain, "http://localhost/", ReasonNone},
		{ModeDomain, "http://a.localhost/", ReasonOffDomain},
		{ModeDomain, "http://192.0.2.7/", ReasonNone},
		{ModeDomain, "https://co.uk/", ReasonNone},
		{ModeDomain, "https://other.co.uk/", ReasonOffDomain},
		{ModePrefix, "https://www.example.com/docs/", ReasonNone},
		{ModePrefix, "https://www.example.com/docs/deep/page?q=/x", ReasonNone},
		{ModePrefix, "https://www.example.com/doc", ReasonOffPrefix},
		{ModePrefix, "https://www.example.com/", ReasonOffPrefix},
		{ModePrefix, "http://www.example.com/docs/", ReasonOffPrefix},
		{ModePrefix, "http://localhost:8080/a/b", ReasonNone},
		{ModePrefix, "http://192.0.2.7/x/", ReasonNone},
		{ModePrefix, "http://192.0.2.7/y/", ReasonOffPrefix},
		{ModeAny, "ftp://x/", ReasonScheme},
		{ModeAny, "https://anything.test/", ReasonNone},
	}
	for _, inIndex := range []bool{false, true} {
		scopes := map[string]*Scope{}
		for _, mode := range []string{ModeHost, ModeDomain, ModePrefix, ModeAny} {
			opts := ScopeOptions{Mode: mode}
			if !inIndex {
				opts.Seeds = seeds
				s, err := NewScope(opts)
				if err != nil {
					t.Fatal(err)
				}
				scopes[mode] = s
				continue
			}
			index := &mapIndex{keys: map[string]bool{}}
			opts.SeedIndex = index
			s, err := NewScope(opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range seeds {
				key, err := s.SeedKey(u)
				if err != nil {
					t.Fatal(err)
				}
				if (key == "") != (mode == ModeAny) {
					t.Errorf("mode %s: SeedKey(%q) = %q", mode, u, key)
				}
				index.keys[key] = true
			}
			if s.SeedKeys() != 0 {
				t.Errorf("mode %s: %d keys in memory, want none", mode, s.SeedKeys())
			}
			scopes[mode] = s
		}
		for _, tt := range tests {
			if got := scopes[tt.mode].Check(tt.url, 1); got != tt.want {
				t.Errorf("mode %s, index %v: Check(%q):\n\tgot %q\n\twant %q", tt.mode, inIndex, tt.url, got, tt.want)
			}
		}
	}
}

// TestScopeSeedKeyModes: keys of one mode never match in another, and configured
// prefixes make mode prefix learn nothing from seeds.
func TestScopeSeedKeyModes(t *testing.T) {
	keys := map[string]bool{}
	for _, mode := range []string{ModeHost, ModeDomain, ModePrefix} {
		s, err := NewScope(ScopeOptions{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		key, err := s.SeedKey("https://www.example.com/")
		if err != nil || key == "" || keys[key] {
			t.Errorf("mode %s: SeedKey: %q, %v; want a key of its own", mode, key, err)
		}
		keys[key] = true
	}
	s, err := NewScope(ScopeOptions{Mode: ModePrefix, Prefixes: []string{"https://www.example.com/docs"}})
	if err != nil {
		t.Fatal(err)
	}
	if key, err := s.SeedKey("https://other.example/"); key != "" || err != nil {
		t.Errorf("mode prefix with prefixes: SeedKey: %q, %v; want none", key, err)
	}
	if _, err := s.SeedKey("mailto:x@example.com"); err == nil || !strings.Contains(err.Error(), "not an absolute") {
		t.Errorf("SeedKey of a mailto URL: %v", err)
	}
}

// TestScopeCheckAllocs: Check of a canonical URL does not allocate with the seeds in
// memory.
func TestScopeCheckAllocs(t *testing.T) {
	for _, mode := range []string{ModeHost, ModeDomain, ModePrefix} {
		s, err := NewScope(ScopeOptions{Mode: mode, Seeds: []string{"https://www.example.com/docs/"}})
		if err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() { s.Check("https://blog.example.com/docs/a/b/c.html", 1) }); n != 0 {
			t.Errorf("mode %s: Check allocates %.0f times", mode, n)
		}
	}
}

type mapIndex struct {
	mu   sync.Mutex
	keys map[string]bool
}

func (m *mapIndex) Has(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.keys[key]
}
