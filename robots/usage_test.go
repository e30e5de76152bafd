package robots

import (
	"slices"
	"testing"
)

// The example of draft-ietf-aipref-attach §4.4, and its table of paths.
func TestContentUsage(t *testing.T) {
	r := Parse([]byte(`User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y
`))
	cases := []struct {
		agent, url string
		want       []string
	}{
		{"OtherBot", "https://example.com/test", []string{"train-ai=n"}},
		{"OtherBot", "https://example.com/never/test", nil},
		{"OtherBot", "https://example.com/ai-ok/test", []string{"train-ai=y"}},
		{"ExampleBot/1.0", "https://example.com/never/test", []string{"train-ai=y"}},
	}
	for _, c := range cases {
		if got := r.ContentUsage(c.agent, c.url); !slices.Equal(got, c.want) {
			t.Errorf("ContentUsage(%q, %q):\n\tgot  %q\n\twant %q", c.agent, c.url, got, c.want)
		}
	}
}

// Rules with paths of equal length all apply; a line without a preference, or before
// any group, is a record.
func TestContentUsageTies(t *testing.T) {
	r := Parse([]byte(`Content-Usage: train-ai=n
User-agent: *
Content-Usage: /a train-ai=y
Content-Usage: /a search=n
Content-Usage: /b
`))
	if got, want := r.ContentUsage("x", "/a/1"), []string{"train-ai=y", "search=n"}; !slices.Equal(got, want) {
		t.Errorf("ContentUsage(/a/1):\n\tgot  %q\n\twant %q", got, want)
	}
	if got := r.ContentUsage("x", "/b"); got != nil {
		t.Errorf("ContentUsage(/b) = %q, want none", got)
	}
	if n := len(r.Records()); n != 2 {
		t.Errorf("%d records, want 2 (the line before any group, the one without a preference)", n)
	}
}
