package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseCookiesTxt(t *testing.T) {
	exp := time.Unix(1893456000, 0).UTC()
	for _, tc := range []struct {
		name, in string
		want     []Cookie
		err      string // a part of the error, or "" for none
	}{
		{"empty", "", nil, ""},
		{"comments and blanks", "# Netscape HTTP Cookie File\n\n  \n# a comment\n", nil, ""},
		{"curl domain cookie", ".example.org\tTRUE\t/\tFALSE\t1893456000\tsid\tabc123\n",
			[]Cookie{{Domain: "example.org", Subdomains: true, Path: "/", Expires: exp, Name: "sid", Value: "abc123"}}, ""},
		{"host-only secure session", "www.example.org\tFALSE\t/app\tTRUE\t0\ttoken\tx=y\r\n",
			[]Cookie{{Domain: "www.example.org", Path: "/app", Secure: true, Name: "token", Value: "x=y"}}, ""},
		{"HttpOnly", "#HttpOnly_.Example.ORG\tTRUE\t/\tTRUE\t1893456000\ts\tv",
			[]Cookie{{Domain: "example.org", Subdomains: true, Path: "/", Secure: true, HTTPOnly: true, Expires: exp, Name: "s", Value: "v"}}, ""},
		{"empty value without its tab", "example.org\tFALSE\t/\tFALSE\t0\tflag",
			[]Cookie{{Domain: "example.org", Path: "/", Name: "flag"}}, ""},
		{"fractional expiry", "example.org\tfalse\t/\tfalse\t1893456000.25\ta\tb",
			[]Cookie{{Domain: "example.org", Path: "/", Expires: exp, Name: "a", Value: "b"}}, ""},
		{"two", "a.test\tFALSE\t/\tFALSE\t0\tx\t1\nb.test\tFALSE\t/\tFALSE\t0\ty\t2\n",
			[]Cookie{{Domain: "a.test", Path: "/", Name: "x", Value: "1"}, {Domain: "b.test", Path: "/", Name: "y", Value: "2"}}, ""},
		{"spaces not tabs", "example.org TRUE / FALSE 0 a b", nil, "line 1: 1 tab-separated fields"},
		{"bad flag", "# c\nexample.org\tyes\t/\tFALSE\t0\ta\tb", nil, "line 2: include-subdomains"},
		{"bad secure", "example.org\tTRUE\t/\t1\t0\ta\tb", nil, "secure"},
		{"relative path", "example.org\tTRUE\tapp\tFALSE\t0\ta\tb", nil, "path"},
		{"bad expiry", "example.org\tTRUE\t/\tFALSE\tsoon\ta\tb", nil, "expiry"},
		{"negative expiry", "example.org\tTRUE\t/\tFALSE\t-5\ta\tb", nil, "expiry"},
		{"no name", "example.org\tTRUE\t/\tFALSE\t0\t\tb", nil, "cookie name"},
		{"no domain", "\tTRUE\t/\tFALSE\t0\ta\tb", nil, "domain"},
		{"eight fields", "example.org\tTRUE\t/\tFALSE\t0\ta\tb\tc", nil, "8 tab-separated"},
		{"semicolon in value", "example.org\tTRUE\t/\tFALSE\t0\ta\tb;c", nil, `cookie "a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCookiesTxt([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseCookiesTxt(%q):\n\tgot error %v\n\twant one containing %q", tc.in, err, tc.err)
				}
				if strings.Contains(tc.in, "b;c") && strings.Contains(err.Error(), "b;c") {
					t.Errorf("the error %q quotes the cookie's value", err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseCookiesTxt(%q):\n\tgot %+v, %v\n\twant %+v", tc.in, got, err, tc.want)
			}
		})
	}
}

// FuzzCookiesTxt: whatever parses writes back to a file that parses to the
// same cookies.
func FuzzCookiesTxt(f *testing.F) {
	f.Add([]byte(".example.org\tTRUE\t/\tFALSE\t1893456000\tsid\tabc123\n"))
	f.Add([]byte("#HttpOnly_www.example.org\tFALSE\t/a\tTRUE\t0\tt\t\n# c\n\nx\tFALSE\t/\tFALSE\t1.5\tn\tv"))
	f.Add([]byte("a\tTRUE\t/\tFALSE\t99999999999999\tn"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := ParseCookiesTxt(data)
		if err != nil {
			return
		}
		out := AppendCookiesTxt(nil, cs)
		again, err := ParseCookiesTxt(out)
		if err != nil {
			t.Fatalf("written file does not parse: %v\n%s", err, out)
		}
		if len(cs) == 0 && len(again) == 0 {
			return
		}
		if !reflect.DeepEqual(again, cs) {
			t.Fatalf("round trip:\n\tgot %+v\n\twant %+v", again, cs)
		}
	})
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func cookieNames(cs []*http.Cookie) string {
	var b []string
	for _, c := range cs {
		b = append(b, c.Name+"="+c.Value)
	}
	return strings.Join(b, "; ")
}

func TestJar(t *testing.T) {
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	j := NewJar(func() time.Time { return now })
	set := func(u string, cs ...*http.Cookie) { j.SetCookies(mustURL(t, u), cs) }
	set("https://www.example.org/app/login",
		&http.Cookie{Name: "host", Value: "1"},                                   // host-only, path /app
		&http.Cookie{Name: "dom", Value: "2", Domain: ".example.org", Path: "/"}, // domain cookie
		&http.Cookie{Name: "sec", Value: "3", Path: "/", Secure: true},
		&http.Cookie{Name: "short", Value: "4", Path: "/", MaxAge: 60},
		&http.Cookie{Name: "other", Value: "x", Domain: "example.com"}, // another site: ignored
		&http.Cookie{Name: "suffix", Value: "x", Domain: "org"},        // a public suffix: ignored
	)
	set("http://www.example.org/", &http.Cookie{Name: "insecure-secure", Value: "x", Secure: true}) // Secure over http: ignored
	set("http://bank.co.uk/", &http.Cookie{Name: "psl", Value: "x", Domain: "co.uk"})

	for _, tc := range []struct{ url, want string }{
		{"https://www.example.org/app/page", "host=1; dom=2; sec=3; short=4"},
		{"http://www.example.org/app/page", "host=1; dom=2; short=4"},
		{"https://www.example.org/application", "dom=2; sec=3; short=4"},
		{"https://static.example.org/app/x", "dom=2"},
		{"https://example.org/", "dom=2"},
		{"https://example.com/", ""},
		{"https://notexample.org/", ""},
		{"http://shop.co.uk/", ""},
	} {
		if got := cookieNames(j.Cookies(mustURL(t, tc.url))); got != tc.want {
			t.Errorf("Cookies(%s):\n\tgot %q\n\twant %q", tc.url, got, tc.want)
		}
	}

	now = now.Add(2 * time.Minute)
	if got := cookieNames(j.Cookies(mustURL(t, "https://www.example.org/"))); got != "dom=2; sec=3" {
		t.Errorf("after Max-Age: got %q, want the short cookie gone", got)
	}
	set("https://www.example.org/", &http.Cookie{Name: "dom", Domain: "example.org", Path: "/", MaxAge: -1})
	if got := cookieNames(j.Cookies(mustURL(t, "https://www.example.org/"))); got != "sec=3" {
		t.Errorf("after deletion: got %q, want sec=3", got)
	}

	// Saved and loaded, the jar sends the same.
	saved := AppendCookiesTxt(nil, j.All())
	cs, err := ParseCookiesTxt(saved)
	if err != nil {
		t.Fatal(err)
	}
	j2 := NewJar(func() time.Time { return now })
	if expired := j2.Add(cs); expired != 0 {
		t.Errorf("Add: %d expired", expired)
	}
	for _, u := range []string{"https://www.example.org/app/x", "http://www.example.org/app/x", "https://a.example.org/"} {
		if got, want := cookieNames(j2.Cookies(mustURL(t, u))), cookieNames(j.Cookies(mustURL(t, u))); got != want {
			t.Errorf("loaded jar Cookies(%s):\n\tgot %q\n\twant %q", u, got, want)
		}
	}
	if !j.Changed() || j.Changed() {
		t.Error("Changed: want true once, then false")
	}
}

func TestJarLimit(t *testing.T) {
	j := NewJar(nil)
	u := mustURL(t, "http://a.test/")
	for i := range maxCookiesPerDomain + 10 {
		j.SetCookies(u, []*http.Cookie{{Name: fmt.Sprint("c", i), Value: "v"}})
	}
	j.SetCookies(u, []*http.Cookie{{Name: "big", Value: strings.Repeat("x", maxCookieSize)}})
	cs := j.Cookies(u)
	if len(cs) != maxCookiesPerDomain || cs[0].Name != "c10" {
		t.Errorf("got %d cookies starting with %v, want the newest %d", len(cs), cs[0], maxCookiesPerDomain)
	}
}

// TestCookiesAndAuth: the client sends each host its own cookies and
// credentials, keeps what Set-Cookie gives, and sends nothing to another host,
// redirects followed or not.
func TestCookiesAndAuth(t *testing.T) {
	type seen struct{ host, path, cookie, auth, lang string }
	got := make(chan seen, 16)
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.Host, r.URL.Path, r.Header.Get("Cookie"), r.Header.Get("Authorization"), r.Header.Get("Accept-Language")}
		switch r.URL.Path {
		case "/login":
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "fresh", Path: "/"})
		case "/away":
			http.Redirect(w, r, "http://other.test/landing", http.StatusFound)
		}
	})
	jar := NewJar(nil)
	jar.Add([]Cookie{{Domain: "site.test", Path: "/", Name: "pref", Value: "dark"}})
	c := newClient(t, func(o *Options) {
		o.Resolve = map[string]string{"site.test:80": addr(srv), "www.site.test:80": addr(srv), "other.test:80": addr(srv)}
		o.Jar = jar
		o.Auth = []HostAuth{{Hosts: "=site.test", Username: "ann", Password: "pw"}, {Hosts: "www.site.test", Token: "tok"}}
		o.Headers = []HostHeader{
			{Hosts: "*", Header: http.Header{"Accept-Language": {"en"}}},
			{Hosts: "site.test", Header: http.Header{"accept-language": {"fr"}}},
		}
	})
	fetch := func(u string, follow int) {
		t.Helper()
		if _, err := c.Fetch(context.Background(), &Request{URL: u, FollowRedirects: follow}); err != nil {
			t.Fatalf("Fetch(%s): %v", u, err)
		}
	}
	fetch("http://site.test/login", 0)
	fetch("http://site.test/page", 0)
	fetch("http://www.site.test/page", 0)
	fetch("http://site.test/away", 1)
	close(got)
	var all []seen
	for s := range got {
		all = append(all, s)
	}
	want := []seen{
		{"site.test", "/login", "pref=dark", "Basic YW5uOnB3", "fr"},
		{"site.test", "/page", "pref=dark; session=fresh", "Basic YW5uOnB3", "fr"},
		{"www.site.test", "/page", "", "Bearer tok", "fr"},
		{"site.test", "/away", "pref=dark; session=fresh", "Basic YW5uOnB3", "fr"},
		{"other.test", "/landing", "", "", "en"},
	}
	if !reflect.DeepEqual(all, want) {
		t.Errorf("requests:\n\tgot  %+v\n\twant %+v", all, want)
	}
}

func TestHeaderOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		err  string
	}{
		{"user agent", Options{Headers: []HostHeader{{Hosts: "*", Header: http.Header{"user-agent": {"Mozilla"}}}}}, "User-Agent may not be set"},
		{"host", Options{Headers: []HostHeader{{Hosts: "a.test", Header: http.Header{"Host": {"b.test"}}}}}, "Host may not be set"},
		{"cookie", Options{Headers: []HostHeader{{Hosts: "a.test", Header: http.Header{"Cookie": {"a=b"}}}}}, "cookie jar"},
		{"bad name", Options{Headers: []HostHeader{{Hosts: "*", Header: http.Header{"X Y": {"1"}}}}}, "not a header field name"},
		{"bad value", Options{Headers: []HostHeader{{Hosts: "*", Header: http.Header{"X-Y": {"a\r\nInjected: 1"}}}}}, "control character"},
		{"bad pattern", Options{Headers: []HostHeader{{Hosts: "a.test:80", Header: http.Header{"X-Y": {"1"}}}}}, "host pattern"},
		{"auth everywhere", Options{Auth: []HostAuth{{Hosts: "*", Token: "t"}}}, "every host"},
		{"auth both", Options{Auth: []HostAuth{{Hosts: "a.test", Username: "u", Token: "t"}}}, "both"},
		{"auth neither", Options{Auth: []HostAuth{{Hosts: "a.test"}}}, "neither"},
		{"auth control", Options{Auth: []HostAuth{{Hosts: "a.test", Token: "t\nX: y"}}}, "control character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.UserAgent = testUA
			_, err := New(tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("New: got %v, want an error containing %q", err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "t\nX") {
				t.Errorf("the error %q quotes the token", err)
			}
		})
	}
}
