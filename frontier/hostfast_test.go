package frontier

import (
	"strings"
	"testing"
)

func TestHostFast(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for a URL hostFast leaves to hostParse
	}{
		{"http://a.test", "http://a.test"},
		{"http://a.test/x", "http://a.test"},
		{"https://www.site00042.example/section-3/2026/04/article-7.html", "https://www.site00042.example"},
		{"https://A.Test:8443/x", "https://a.test:8443"},
		{"http://a.test:/", "http://a.test:"},
		{"http://a.test?q", "http://a.test"},
		{"http://a.test#f", "http://a.test"},
		{"http://a_b-c.test/%41%7e?%2F", "http://a_b-c.test"},
		{"http://a.test/ä ü", "http://a.test"},
		{"http://192.0.2.1:80/", "http://192.0.2.1:80"},
		// Left to hostParse.
		{"HTTP://a.test/", ""},
		{"ftp://a.test/", ""},
		{"http://", ""},
		{"http:///x", ""},
		{"http://:80/", ""},
		{"http://.a.test/", ""},
		{"http://a.test:8x/", ""},
		{"http://a.test:80:81/", ""},
		{"http://user@a.test/", ""},
		{"http://[::1]:80/", ""},
		{"http://a%41.test/", ""},
		{"http://a.test/%zz", ""},
		{"http://a.test/%4", ""},
		{"http://a.test/?%zz", ""}, // url.Parse accepts it: a bad escape in the query is left raw
		{"http://a.test/x\x7f", ""},
		{"http://a.test/\n", ""},
		{"http://a test/", ""},
		{"http://ä.test/", ""},
	}
	for _, tt := range tests {
		got, ok := hostFast(tt.in)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("hostFast(%q):\n\tgot %q, %v\n\twant %q", tt.in, got, ok, tt.want)
		}
		if ok {
			if want, err := hostParse(tt.in); err != nil || got != want {
				t.Errorf("hostFast(%q) = %q, but hostParse says %q, %v", tt.in, got, want, err)
			}
		}
	}
}

// FuzzHostFast checks hostFast against hostParse: whatever hostFast answers, url.Parse
// answers too.
func FuzzHostFast(f *testing.F) {
	for _, s := range []string{"http://a.test/x", "https://A.Test:8443/x?q#f", "http://a.test:/", "http://a.test/%41",
		"http://a.test/%4", "http://[::1]:80/", "http://a.test:80:81/", "http://u@a.test/", "http://a.test/\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := hostFast(s)
		if !ok {
			return
		}
		want, err := hostParse(s)
		if err != nil || got != want {
			t.Fatalf("hostFast(%q) = %q, but hostParse says %q, %v", s, got, want, err)
		}
		if strings.ToLower(got) != got {
			t.Fatalf("hostFast(%q) = %q, not lower-case", s, got)
		}
	})
}

func BenchmarkHostOf(b *testing.B) {
	const u = "https://www.site00042.example/section-3/2026/04/article-7.html"
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			hostOf(u)
		}
	})
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			hostParse(u)
		}
	})
}
