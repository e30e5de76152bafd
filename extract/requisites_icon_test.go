package extract

import "testing"

func TestHostIcon(t *testing.T) {
	tests := []struct {
		page, want string
		ok         bool
	}{
		{"http://example.com/docs/index.html?x=1#top", "http://example.com/favicon.ico", true},
		{"HTTPS://Example.COM:443/a/", "https://example.com/favicon.ico", true},
		{"http://example.com:8080/", "http://example.com:8080/favicon.ico", true},
		{"http://user:pw@example.com/", "http://example.com/favicon.ico", true},
		{"ftp://example.com/", "", false},
		{"/relative/page.html", "", false},
		{"http://%zz/", "", false},
	}
	for _, tt := range tests {
		q, ok := HostIcon(tt.page)
		if ok != tt.ok || q.URL != tt.want {
			t.Errorf("HostIcon(%q):\n\tgot %q, %v\n\twant %q, %v", tt.page, q.URL, ok, tt.want, tt.ok)
		}
		if ok && q.Kind != KindIcon {
			t.Errorf("HostIcon(%q).Kind = %v, want icon", tt.page, q.Kind)
		}
	}
}
