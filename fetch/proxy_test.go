package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/politecrawl/crawl/crawltest"
)

// startTinyproxy runs Debian's tinyproxy on loopback for one test. Without it the
// test is skipped, unless POLITECRAWL_PROXY or POLITECRAWL_REQUIRE_TOOLS is 1 (.ci/extra and
// .ci/run set them).
func startTinyproxy(t *testing.T, user, pass string) *crawltest.Tinyproxy {
	t.Helper()
	tp, err := crawltest.StartTinyproxy(t.TempDir(), user, pass)
	if errors.Is(err, crawltest.ErrNoTinyproxy) {
		crawltest.MissingTool(t, "tinyproxy", "not found", "apt-get install tinyproxy; .ci/extra runs this test", "POLITECRAWL_PROXY")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tp.Close() })
	return tp
}

// startSOCKS starts the farm's SOCKS5 proxy for one test.
func startSOCKS(t *testing.T, user, pass string) *crawltest.SOCKS5 {
	t.Helper()
	s, err := crawltest.StartSOCKS5(user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// origin serves "host=<Host> sni=<server name>" and records nothing else.
func origin(w http.ResponseWriter, r *http.Request) {
	sni := ""
	if r.TLS != nil {
		sni = r.TLS.ServerName
	}
	fmt.Fprintf(w, "host=%s sni=%s auth=%s", r.Host, sni, r.Header.Get("Proxy-Authorization"))
}

func TestProxyThrough(t *testing.T) {
	plain, _ := serve(t, origin)
	secure := httptest.NewTLSServer(http.HandlerFunc(origin))
	t.Cleanup(secure.Close)
	tp := startTinyproxy(t, "crawler", "s3cret")
	socks := startSOCKS(t, "crawler", "s3cret")
	resolve := map[string]string{"www.example.com:80": addr(plain), "www.example.com:443": addr(secure)}
	for _, tc := range []struct{ name, proxy string }{
		{"tinyproxy", "http://crawler:s3cret@" + tp.Addr()},
		{"socks5", "socks5://crawler:s3cret@" + socks.Addr()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, func(o *Options) {
				o.Proxy = tc.proxy
				o.Resolve = resolve
				o.TLSConfig = secure.Client().Transport.(*http.Transport).TLSClientConfig
			})
			for _, u := range []string{"http://www.example.com/a", "https://www.example.com/b"} {
				resp, err := c.Fetch(context.Background(), &Request{URL: u})
				if err != nil {
					t.Fatalf("Fetch(%q): %v", u, err)
				}
				want := "host=www.example.com sni= auth="
				target := addr(plain)
				if strings.HasPrefix(u, "https") {
					want, target = "host=www.example.com sni=www.example.com auth=", addr(secure)
				}
				if string(resp.Body) != want {
					t.Errorf("Fetch(%q) body:\n\tgot %q\n\twant %q", u, resp.Body, want)
				}
				if resp.RemoteIP != "127.0.0.1" {
					t.Errorf("Fetch(%q) RemoteIP = %q, want the origin's 127.0.0.1", u, resp.RemoteIP)
				}
				path := u[strings.LastIndexByte(u, '/'):]
				if !strings.HasPrefix(string(resp.RawRequest), "GET "+path+" HTTP/1.1\r\nHost: www.example.com\r\n") ||
					strings.Contains(string(resp.RawRequest), "Proxy-") {
					t.Errorf("Fetch(%q) RawRequest = %q, want the origin-form request alone", u, resp.RawRequest)
				}
				if tc.name == "tinyproxy" && !tp.WaitLog("CONNECT "+target+" ") {
					t.Errorf("tinyproxy logged no CONNECT %s:\n%s", target, tp.Log())
				}
			}
		})
	}
	if targets := socks.Targets(); len(targets) != 2 || targets[0] != addr(plain) || targets[1] != addr(secure) {
		t.Errorf("SOCKS5 targets = %q, want the two checked addresses %s and %s", targets, addr(plain), addr(secure))
	}
	for _, c := range tp.Connects() {
		if c != addr(plain) && c != addr(secure) {
			t.Errorf("tinyproxy was asked for %q, not a checked address", c)
		}
	}
}

// TestProxyGuard: through a proxy the address guard decides as it does
// directly, and a refused address never reaches the proxy, first hop or redirect.
func TestProxyGuard(t *testing.T) {
	private, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 on this host: %v", err)
	}
	var privateHits atomic.Int64
	privateSrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		privateHits.Add(1)
		fmt.Fprint(w, "secret")
	})}
	go privateSrv.Serve(private)
	t.Cleanup(func() { privateSrv.Close() })
	privateURL := "http://" + private.Addr().String() + "/admin"

	allowed, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-private":
			http.Redirect(w, r, privateURL, http.StatusFound)
		case "/to-private-name":
			http.Redirect(w, r, "http://intranet.test/admin", http.StatusFound)
		default:
			fmt.Fprint(w, "public")
		}
	})
	tp := startTinyproxy(t, "", "")
	socks := startSOCKS(t, "", "")
	for _, tc := range []struct{ name, proxy string }{
		{"tinyproxy", "http://" + tp.Addr()},
		{"socks5", "socks5://" + socks.Addr()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, func(o *Options) {
				o.Proxy = tc.proxy
				o.Resolve = map[string]string{"allowed.test:80": addr(allowed), "intranet.test:80": private.Addr().String()}
			})
			// The guard of this test: 127.0.0.1 stands for the public Internet,
			// every other address for a private network.
			c.dialer.allow = func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.1") }
			for _, req := range []*Request{
				{URL: "http://allowed.test/to-private", FollowRedirects: 5},
				{URL: "http://allowed.test/to-private-name", FollowRedirects: 5},
				{URL: privateURL},
				{URL: "http://intranet.test/admin"},
			} {
				_, err := c.Fetch(context.Background(), req)
				var fe *Error
				if !errors.As(err, &fe) || fe.Phase != PhasePolicy || !errors.Is(err, ErrForbiddenAddress) {
					t.Errorf("Fetch(%q): got %v, want a policy *Error wrapping ErrForbiddenAddress", req.URL, err)
				}
			}
			resp, err := c.Fetch(context.Background(), &Request{URL: "http://allowed.test/"})
			if err != nil || string(resp.Body) != "public" {
				t.Fatalf("Fetch(allowed): %v", err)
			}
		})
	}
	// Every proxy request was for the allowed origin: the two redirects' first
	// hops and the last fetch (the keep-alive connection may serve several).
	for _, c := range tp.Connects() {
		if c != addr(allowed) {
			t.Errorf("tinyproxy was asked for %q", c)
		}
	}
	if targets := socks.Targets(); len(targets) == 0 || strings.Join(targets, " ") != strings.TrimSpace(strings.Repeat(addr(allowed)+" ", len(targets))) {
		t.Errorf("SOCKS5 targets = %q, want only %s", targets, addr(allowed))
	}
	if n := privateHits.Load(); n != 0 {
		t.Errorf("the private server was reached %d times", n)
	}
}

// TestProxyStrict: with the default guard, a loopback target is refused
// before the proxy is dialed.
func TestProxyStrict(t *testing.T) {
	socks := startSOCKS(t, "", "")
	srv, _ := serve(t, origin)
	c := newClient(t, func(o *Options) {
		o.AllowPrivate = false
		o.Proxy = "socks5://" + socks.Addr()
		o.Resolve = map[string]string{"public.test:80": addr(srv)}
	})
	for _, u := range []string{srv.URL + "/", "http://public.test/", "http://localhost:1/"} {
		_, err := c.Fetch(context.Background(), &Request{URL: u})
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("Fetch(%q): got %v, want ErrForbiddenAddress", u, err)
		}
	}
	// One allowed fetch through the same proxy (NoProxy is empty, loopback
	// allowed): the proxy's connections are accepted in order, so by its end
	// an earlier connection would have been counted.
	open := newClient(t, func(o *Options) { o.Proxy = "socks5://" + socks.Addr() })
	if _, err := open.Fetch(context.Background(), &Request{URL: srv.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	if accepted := socks.Accepted(); accepted != 1 {
		t.Errorf("the proxy accepted %d connections, want 1 (the allowed fetch)", accepted)
	}
}

// TestProxyFails: a proxy that is down or refuses the credentials is an error
// naming it without the password, and nothing goes direct.
func TestProxyFails(t *testing.T) {
	var hits sync.Mutex
	n := 0
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Lock()
		n++
		hits.Unlock()
	})
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downAddr := down.Addr().String()
	down.Close()
	socks := startSOCKS(t, "crawler", "s3cret")
	cases := []struct{ proxy, want string }{
		{"http://crawler:hunter2@" + downAddr, "http://crawler:xxxxx@" + downAddr},
		{"socks5://crawler:hunter2@" + downAddr, "socks5://crawler:xxxxx@" + downAddr},
		{"socks5://crawler:hunter2@" + socks.Addr(), "socks5://crawler:xxxxx@" + socks.Addr()},
		{"socks5://" + socks.Addr(), "socks5://" + socks.Addr()},
	}
	for _, tc := range cases {
		c := newClient(t, func(o *Options) { o.Proxy = tc.proxy })
		_, err := c.Fetch(context.Background(), &Request{URL: srv.URL + "/"})
		var fe *Error
		if !errors.As(err, &fe) || fe.Phase != PhaseProxy || !errors.Is(err, ErrProxy) || !fe.Temporary() {
			t.Errorf("proxy %s: got %v, want a temporary proxy *Error", tc.want, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "hunter2") {
			t.Errorf("proxy %s: error %q does not name the proxy with its password redacted", tc.want, msg)
		}
	}
	hits.Lock()
	defer hits.Unlock()
	if n != 0 {
		t.Errorf("the origin got %d requests, want none: a failed proxy is never bypassed", n)
	}
}

func TestProxyTinyproxyAuth(t *testing.T) {
	tp := startTinyproxy(t, "crawler", "s3cret")
	srv, _ := serve(t, origin)
	c := newClient(t, func(o *Options) { o.Proxy = "http://crawler:wrong@" + tp.Addr() })
	_, err := c.Fetch(context.Background(), &Request{URL: srv.URL + "/"})
	var fe *Error
	if !errors.As(err, &fe) || fe.Phase != PhaseProxy || !strings.Contains(err.Error(), "http://crawler:xxxxx@"+tp.Addr()) ||
		!strings.Contains(err.Error(), "401 Unauthorized") || strings.Contains(err.Error(), "wrong") {
		t.Errorf("got %v, want a proxy *Error naming the proxy and its 401 (tinyproxy's answer to a wrong password)", err)
	}
}

func TestNoProxy(t *testing.T) {
	socks := startSOCKS(t, "", "")
	srv, _ := serve(t, origin)
	c := newClient(t, func(o *Options) {
		o.Proxy = "socks5://" + socks.Addr()
		o.NoProxy = []string{"direct.test", "127.0.0.0/8"}
		o.Resolve = map[string]string{"www.direct.test:80": addr(srv), "other.test:80": addr(srv)}
	})
	for _, u := range []string{"http://www.direct.test/", srv.URL + "/", "http://other.test/"} {
		if _, err := c.Fetch(context.Background(), &Request{URL: u}); err != nil {
			t.Fatalf("Fetch(%q): %v", u, err)
		}
	}
	if targets := socks.Targets(); len(targets) != 1 || targets[0] != addr(srv) {
		t.Errorf("SOCKS5 targets = %q, want other.test's address alone", targets)
	}
}

func TestParseProxy(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: the proxy's name, or "error"
	}{
		{"http://proxy.example:3128", "http://proxy.example:3128"},
		{"HTTP://proxy.example", "http://proxy.example:80"},
		{"https://u:p@proxy.example", "https://u:xxxxx@proxy.example:443"},
		{"socks5://10.0.0.1", "socks5://10.0.0.1:1080"},
		{"socks5://[::1]:9050", "socks5://[::1]:9050"},
		{"http://proxy.example:3128/", "http://proxy.example:3128"},
		{"socks5h://proxy.example", "error"},
		{"socks4://proxy.example", "error"},
		{"ftp://proxy.example", "error"},
		{"proxy.example:3128", "error"},
		{"http://", "error"},
		{"http://proxy.example:99999", "error"},
		{"http://proxy.example/path", "error"},
		{"http://proxy.example?q", "error"},
		{"socks5://" + strings.Repeat("u", 256) + ":p@h", "error"},
	} {
		p, err := parseProxy(tc.in, nil, time.Second, nil)
		got := "error"
		if err == nil {
			got = p.name
		}
		if got != tc.want {
			t.Errorf("parseProxy(%q):\n\tgot %v (%v)\n\twant %v", tc.in, got, err, tc.want)
		}
	}
}

func TestHostPattern(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		match   []string
		miss    []string
	}{
		{"*", []string{"a.test", "192.0.2.1"}, nil},
		{"example.org", []string{"example.org", "WWW.Example.org", "a.b.example.org", "example.org."}, []string{"badexample.org", "example.org.evil", "org"}},
		{".example.org", []string{"example.org", "www.example.org"}, []string{"xexample.org"}},
		{"=example.org", []string{"example.org"}, []string{"www.example.org"}},
		{"192.0.2.7", []string{"192.0.2.7"}, []string{"192.0.2.8", "example.org"}},
		{"10.0.0.0/8", []string{"10.1.2.3"}, []string{"11.0.0.1", "ten.test"}},
		{"::1", []string{"[::1]", "::1"}, []string{"[::2]"}},
		{"fd00::/8", []string{"[fd12::1]"}, []string{"[fe80::1]"}},
	} {
		p, err := parseHostPattern(tc.pattern)
		if err != nil {
			t.Errorf("parseHostPattern(%q): %v", tc.pattern, err)
			continue
		}
		for _, h := range tc.match {
			if !p.match(h) {
				t.Errorf("%q.match(%q) = false, want true", tc.pattern, h)
			}
		}
		for _, h := range tc.miss {
			if p.match(h) {
				t.Errorf("%q.match(%q) = true, want false", tc.pattern, h)
			}
		}
	}
	for _, bad := range []string{"", ".", "=", "a b", "host:80", "*.example.org", "http://x"} {
		if _, err := parseHostPattern(bad); err == nil {
			t.Errorf("parseHostPattern(%q): got no error", bad)
		}
	}
}

// FuzzProxySettings: parseProxy never panics, never lets the password into
// the name it prints, and what it accepts has a scheme it speaks and a port;
// a host pattern that parses matches the host it names.
func FuzzProxySettings(f *testing.F) {
	f.Add("http://user:pass@proxy.example:3128", "example.org")
	f.Add("socks5://[::1]:1080", "10.0.0.0/8")
	f.Add("https://p", "=x.test")
	f.Add("http://a:%zz@h", "*")
	f.Fuzz(func(t *testing.T, raw, pattern string) {
		p, err := parseProxy(raw, []string{pattern}, time.Second, nil)
		if err == nil {
			switch p.url.Scheme {
			case "http", "https", "socks5":
			default:
				t.Fatalf("parseProxy(%q) accepted scheme %q", raw, p.url.Scheme)
			}
			if p.url.Port() == "" {
				t.Fatalf("parseProxy(%q): no port in %q", raw, p.url.Host)
			}
			if pass, ok := p.url.User.Password(); ok && len(pass) >= 6 && strings.Contains(p.name, pass) &&
				!strings.Contains(p.url.Host+p.url.User.Username(), pass) {
				t.Fatalf("parseProxy(%q): name %q shows the password", raw, p.name)
			}
		}
		hp, err := parseHostPattern(pattern)
		if err != nil {
			return
		}
		if !hp.any && !hp.prefix.IsValid() && !hp.match(hp.name) {
			t.Fatalf("pattern %q does not match its own name %q", pattern, hp.name)
		}
		if hp.prefix.IsValid() && !hp.match(hp.prefix.Addr().String()) {
			t.Fatalf("pattern %q does not match its own address %s", pattern, hp.prefix.Addr())
		}
	})
}
