package extract

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

var canonicalTests = []struct {
	in   string
	want string
	err  error
}{
	// Scheme and host case, default ports, empty path.
	{"HTTP://Example.COM", "http://example.com/", nil},
	{"https://example.com:443/a", "https://example.com/a", nil},
	{"http://example.com:80/a", "http://example.com/a", nil},
	{"http://example.com:0080/a", "http://example.com/a", nil},
	{"https://example.com:80/a", "https://example.com:80/a", nil},
	{"http://example.com:8080", "http://example.com:8080/", nil},
	{"http://example.com:/a", "http://example.com/a", nil},
	{"http://example.com.:80/", "http://example.com/", nil},
	{"http://user:pass@example.com/", "http://example.com/", nil},
	{"http:/example.com/a", "http://example.com/a", nil},
	{"http:\\\\example.com\\a\\b", "http://example.com/a/b", nil},
	{"http:///example.com/", "http://example.com/", nil},
	// Browser-like cleanup of whitespace.
	{"  http://example.com/a \n", "http://example.com/a", nil},
	{"http://exa\tmple.com/a\n/b", "http://example.com/a/b", nil},
	{"\x00\x1fhttp://example.com/\x7f", "http://example.com/%7F", nil},
	// Fragments.
	{"http://example.com/a#frag", "http://example.com/a", nil},
	{"http://example.com/a?b=1#frag?x", "http://example.com/a?b=1", nil},
	{"http://example.com#", "http://example.com/", nil},
	// Dot segments, also percent-encoded.
	{"http://example.com/a/./b/../c", "http://example.com/a/c", nil},
	{"http://example.com/../../a", "http://example.com/a", nil},
	{"http://example.com/a/b/..", "http://example.com/a/", nil},
	{"http://example.com/a/.", "http://example.com/a/", nil},
	{"http://example.com/a/%2e%2E/b", "http://example.com/b", nil},
	{"http://example.com/a/.%2e", "http://example.com/", nil},
	{"http://example.com/a/..b/.c", "http://example.com/a/..b/.c", nil},
	{"http://example.com//a//b", "http://example.com//a//b", nil},
	// Percent-encoding: upper-case hex, unreserved decoded, reserved kept.
	{"http://example.com/%7euser/%3a%2f", "http://example.com/~user/%3A%2F", nil},
	{"http://example.com/%41%42c%2D%5F%2e", "http://example.com/ABc-_.", nil},
	{"http://example.com/a b?c d", "http://example.com/a%20b?c%20d", nil},
	{"http://example.com/caf\u00e9", "http://example.com/caf%C3%A9", nil},
	{"http://example.com/caf%c3%a9", "http://example.com/caf%C3%A9", nil},
	{"http://example.com/%zz/%4", "http://example.com/%25zz/%254", nil},
	{"http://example.com/a;b=c,d@e:f", "http://example.com/a;b=c,d@e:f", nil},
	{"http://example.com/<>\"{}|^`", "http://example.com/%3C%3E%22%7B%7D%7C%5E%60", nil},
	{"http://example.com/[x]", "http://example.com/%5Bx%5D", nil},
	{"http://example.com/?a=%2b+b&c=/?", "http://example.com/?a=%2B+b&c=/?", nil},
	{"http://example.com/?q=\\", "http://example.com/?q=%5C", nil},
	// IDNA.
	{"http://B\u00FCcher.example/", "http://xn--bcher-kva.example/", nil},
	{"http://xn--bcher-kva.example/", "http://xn--bcher-kva.example/", nil},
	{"http://XN--BCHER-KVA.example/", "http://xn--bcher-kva.example/", nil},
	{"http://\u4f8b\u3048.\u30c6\u30b9\u30c8/", "http://xn--r8jz45g.xn--zckzah/", nil},
	{"http://\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45\u3002com/", "http://example.com/", nil},
	{"http://fa\u00DF.de/", "http://xn--fa-hia.de/", nil},
	{"http://%65xample.com/", "http://example.com/", nil},
	{"http://b%C3%BCcher.example/", "http://xn--bcher-kva.example/", nil},
	{"http://my_host.example.com/", "http://my_host.example.com/", nil},
	{"http://r3---sn-abc.example.com/", "http://r3---sn-abc.example.com/", nil},
	// IP addresses.
	{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/", nil},
	{"http://0x7f.1/", "http://127.0.0.1/", nil},
	{"http://2130706433/", "http://127.0.0.1/", nil},
	{"http://0177.0.0.01/", "http://127.0.0.1/", nil},
	{"http://[2001:DB8::0:1]:80/", "http://[2001:db8::1]/", nil},
	{"http://[::FFFF:1.2.3.4]/", "http://[::ffff:1.2.3.4]/", nil},
	// Parameters: defaults stripped, order kept.
	{"http://example.com/?b=2&utm_source=x&a=1&UTM_Medium=y", "http://example.com/?b=2&a=1", nil},
	{"http://example.com/?fbclid=1&gclid=2", "http://example.com/", nil},
	{"http://example.com/?sid=1&sidebar=2", "http://example.com/?sidebar=2", nil},
	{"http://example.com/?a=1&&b=2&", "http://example.com/?a=1&b=2", nil},
	{"http://example.com/?", "http://example.com/", nil},
	{"http://example.com/?utm%5Fsource=x&z", "http://example.com/?z", nil},
	{"http://example.com/page.jsp;jsessionid=ABC123?x=1", "http://example.com/page.jsp?x=1", nil},
	{"http://example.com/a;JSESSIONID=1;v=2/b", "http://example.com/a;v=2/b", nil},
	// Refusals.
	{"ftp://example.com/", "", ErrScheme},
	{"javascript:alert(1)", "", ErrScheme},
	{"mailto:a@example.com", "", ErrScheme},
	{"/relative/path", "", ErrRelative},
	{"example.com/a", "", ErrRelative},
	{"", "", ErrRelative},
	{"http://", "", ErrHost},
	{"http:///", "", ErrHost},
	{"http://user@/", "", ErrHost},
	{"http://exa mple.com/", "", ErrHost},
	{"http://a..b/", "", ErrHost},
	{"http://example.com../", "", ErrHost},
	{"http://ex%zzample.com/", "", ErrHost},
	{"http://ex%2Fample.com/", "", ErrHost},
	// An internationalised label whose punycode is longer than DNS allows (63
	// bytes): refused, as the canonical form could not be read back.
	{"http://ß" + strings.Repeat("s", 60) + ".example/", "", ErrHost},
	{"http://ß" + strings.Repeat("s", 50) + ".example/", "http://xn--" + strings.Repeat("s", 50) + "-p7d.example/", nil},
	{"http://xn--a.example/", "", ErrHost},
	{"http://256.0.0.1/", "", ErrHost},
	{"http://1.2.3.4.5/", "", ErrHost},
	{"http://example.123/", "", ErrHost},
	{"http://[::1/", "", ErrHost},
	{"http://[1.2.3.4]/", "", ErrHost},
	{"http://[fe80::1%25eth0]/", "", ErrHost},
	{"http://[::1]x/", "", ErrHost},
	{"http://example.com:65536/", "", ErrPort},
	{"http://example.com:8a/", "", ErrPort},
	{"http://example.com:99999999999999999999/", "", ErrPort},
	{"http://a:b:c/", "", ErrHost},
}

func TestCanonical(t *testing.T) {
	for _, tt := range canonicalTests {
		got, err := Canonical(tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("Canonical(%q):\n\tgot %q, %v\n\twant error %v", tt.in, got, err, tt.err)
			}
			var ue *URLError
			if !errors.As(err, &ue) || ue.Op != "canonical" {
				t.Errorf("Canonical(%q): error %v is not a *URLError with Op canonical", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Canonical(%q):\n\tgot  %q, %v\n\twant %q", tt.in, got, err, tt.want)
			continue
		}
		if again, err := Canonical(got); err != nil || again != got {
			t.Errorf("Canonical(Canonical(%q)):\n\tgot  %q, %v\n\twant %q", tt.in, again, err, got)
		}
	}
}

func TestURLRules(t *testing.T) {
	tests := []struct {
		name  string
		rules *URLRules
		in    string
		want  string
	}{
		{"zero keeps params", &URLRules{}, "http://x.com/a;jsessionid=1?utm_source=1&b=2", "http://x.com/a;jsessionid=1?utm_source=1&b=2"},
		{"nil keeps params", nil, "http://x.com/?utm_source=1", "http://x.com/?utm_source=1"},
		{"sort", &URLRules{SortQuery: true}, "http://x.com/?c=3&a=2&b=1&a=1", "http://x.com/?a=2&a=1&b=1&c=3"},
		{"sort and strip", &URLRules{StripParams: []string{"ref"}, SortQuery: true}, "http://x.com/?z&ref=1&REF=2&a", "http://x.com/?a&z"},
		{"glob in the middle", &URLRules{StripParams: []string{"x*y"}}, "http://x.com/?xay=1&xy=2&xya=3", "http://x.com/?xya=3"},
		{"glob suffix", &URLRules{StripParams: []string{"*_id"}}, "http://x.com/?session_id=1&id=2", "http://x.com/?id=2"},
		{"star only", &URLRules{StripParams: []string{"*"}}, "http://x.com/?a=1&b=2", "http://x.com/"},
		{"path param", &URLRules{StripParams: []string{"phpsessid"}}, "http://x.com/a;PHPSESSID=9/b", "http://x.com/a/b"},
		{"path param then dots", &URLRules{StripParams: []string{"s"}}, "http://x.com/a/..;s=1/b", "http://x.com/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.rules.Canonical(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("Canonical(%q):\n\tgot  %q, %v\n\twant %q", tt.in, got, err, tt.want)
			}
			if again, _ := tt.rules.Canonical(got); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	base, err := url.Parse("http://a.example/b/c/d;p?q#f")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		href string
		want string
		err  error
	}{
		// RFC 3986 §5.4.1 normal examples, fragment dropped.
		{"g", "http://a.example/b/c/g", nil},
		{"./g", "http://a.example/b/c/g", nil},
		{"g/", "http://a.example/b/c/g/", nil},
		{"/g", "http://a.example/g", nil},
		{"//g", "http://g/", nil},
		{"?y", "http://a.example/b/c/d;p?y", nil},
		{"g?y", "http://a.example/b/c/g?y", nil},
		{"#s", "http://a.example/b/c/d;p?q", nil},
		{"g#s", "http://a.example/b/c/g", nil},
		{";x", "http://a.example/b/c/;x", nil},
		{"", "http://a.example/b/c/d;p?q", nil},
		{".", "http://a.example/b/c/", nil},
		{"..", "http://a.example/b/", nil},
		{"../g", "http://a.example/b/g", nil},
		{"../../../g", "http://a.example/g", nil},
		// Browser behaviour.
		{"  g\n", "http://a.example/b/c/g", nil},
		{"\t/x\ty ", "http://a.example/xy", nil},
		{"\\x\\y", "http://a.example/x/y", nil},
		{"/\\evil.example/", "http://evil.example/", nil},
		{"http:g", "http://a.example/b/c/g", nil},
		{"HTTPS://Other.Example:443", "https://other.example/", nil},
		{"g?utm_source=x&a=1", "http://a.example/b/c/g?a=1", nil},
		{"mailto:x@y", "", ErrScheme},
		{"javascript:void(0)", "", ErrScheme},
		{"https:", "", ErrHost},
		{"//exa mple/", "", ErrHost},
	}
	for _, tt := range tests {
		got, err := (&canonDefaultRules).Resolve(base, tt.href)
		if tt.err != nil {
			var ue *URLError
			if !errors.Is(err, tt.err) || !errors.As(err, &ue) || ue.Op != "resolve" {
				t.Errorf("Resolve(%q):\n\tgot  %q, %v\n\twant error %v", tt.href, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q):\n\tgot  %q, %v\n\twant %q", tt.href, got, err, tt.want)
		}
	}
	if _, err := (&URLRules{}).Resolve(nil, "g"); !errors.Is(err, ErrRelative) {
		t.Errorf("Resolve(nil base): got %v, want ErrRelative", err)
	}
	if _, err := (&URLRules{}).Resolve(&url.URL{Path: "/x"}, "g"); !errors.Is(err, ErrRelative) {
		t.Errorf("Resolve(relative base): got %v, want ErrRelative", err)
	}
}

func TestAuthority(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://example.com/a?b", "http://example.com"},
		{"https://example.com:8443/", "https://example.com:8443"},
		{"http://[::1]:8080/", "http://[::1]:8080"},
		{"http://example.com", "http://example.com"},
		{"HTTP://User@Example.COM:80/x", "http://example.com"},
		{"http:\\\\example.com\\x", "http://example.com"},
		{"http://0x7f.1/", "http://127.0.0.1"},
		{"ftp://example.com/", ""},
		{"http://exa mple.com/", ""},
		{"http://example.com:99999/", ""},
		{"/relative", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Authority(tt.in); got != tt.want {
			t.Errorf("Authority(%q):\n\tgot  %q\n\twant %q", tt.in, got, tt.want)
		}
	}
	// On canonical input Authority returns a prefix of its argument.
	u := "https://example.com:8443/path"
	if got := Authority(u); got != u[:len(got)] {
		t.Errorf("Authority(%q) = %q is not a prefix", u, got)
	}
}

func TestURLErrorMessage(t *testing.T) {
	_, err := Canonical("ftp://" + strings.Repeat("x", 2000))
	var ue *URLError
	if !errors.As(err, &ue) {
		t.Fatalf("got %T, want *URLError", err)
	}
	if len(ue.URL) != canonMaxErrURL {
		t.Errorf("URLError.URL has %d bytes, want %d", len(ue.URL), canonMaxErrURL)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, `canonical "ftp://xxx`) || strings.Count(msg, "extract:") != 1 ||
		!strings.HasSuffix(msg, ": extract: scheme is not http or https") {
		t.Errorf("error message %q", msg)
	}
}

// FuzzCanonical checks that Canonical never panics, is idempotent, produces a URL that
// net/url parses back to the same string, and agrees with Authority.
func FuzzCanonical(f *testing.F) {
	for _, tt := range canonicalTests {
		f.Add(tt.in)
	}
	f.Add("http://a.example/b/c/../../../../x?y=%zz#z")
	f.Add("https://[0:0:0:0:0:0:0:1]:0443/%2E%2e/;jsessionid=1")
	f.Add("http://\u0661\u0662.example/")
	rules := &URLRules{StripParams: []string{"utm_*", "x*y", "sid"}, SortQuery: true}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, r := range []*URLRules{nil, &canonDefaultRules, rules} {
			got, err := r.Canonical(raw)
			if err != nil {
				var ue *URLError
				if !errors.As(err, &ue) {
					t.Fatalf("Canonical(%q): error %v is not a *URLError", raw, err)
				}
				continue
			}
			again, err := r.Canonical(got)
			if err != nil || again != got {
				t.Fatalf("not idempotent:\n\tin     %q\n\tonce   %q\n\ttwice  %q, %v", raw, got, again, err)
			}
			u, err := url.Parse(got)
			if err != nil {
				t.Fatalf("url.Parse(%q) of Canonical(%q): %v", got, raw, err)
			}
			if u.String() != got {
				t.Fatalf("url.Parse(%q).String() = %q", got, u.String())
			}
			if a := Authority(got); a == "" || !strings.HasPrefix(got, a+"/") {
				t.Fatalf("Authority(%q) = %q", got, a)
			}
			if a, b := Authority(raw), Authority(got); a != b {
				t.Fatalf("Authority(%q) = %q but Authority(%q) = %q", raw, a, got, b)
			}
		}
	})
}
