package robots

import "testing"

// TestPattern: a pattern outside robots.txt (TDMRep's location) matches as a rule does.
func TestPattern(t *testing.T) {
	for _, tt := range []struct {
		pattern, url string
		want         bool
	}{
		{"/a/", "https://example.com/a/b?q", true},
		{"/a/*.jpg$", "/a/x/y.jpg", true},
		{"/a/*.jpg$", "/a/x/y.jpg?v=1", false},
		{"/caf%c3%a9", "/caf%C3%A9/menu", true},
		{"/foo-%24", "/foo-$", true},
		{"/%7Euser", "/~user/", true},
		{"images/", "/images/1.png", true}, // a leading "/" is implied
		{"", "/", false},                   // an empty pattern matches nothing
	} {
		if got := NewPattern(tt.pattern).Match(tt.url); got != tt.want {
			t.Errorf("NewPattern(%q).Match(%q) = %v, want %v", tt.pattern, tt.url, got, tt.want)
		}
	}
	if (Pattern{}).Match("/") {
		t.Error("the zero Pattern matched /")
	}
}
