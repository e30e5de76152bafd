package crawltest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is returned by [Farm.DialContext] after [Farm.Close].
var ErrClosed = errors.New("crawltest: farm closed")

// Request is one request the farm served, as the server saw it.
type Request struct {
	// Host is the virtual host, lower-case, from the Host header (":80"
	// dropped). A host the farm does not serve is recorded as sent.
	Host string

	// Path is the request target as sent (path and query); of an absolute-form
	// target, as a client sends through a proxy, its path and query.
	Path string

	// Method is the HTTP method.
	Method string

	// UserAgent is the User-Agent header.
	UserAgent string

	// Status is the HTTP status the farm answered.
	Status int

	// Bytes is the number of body bytes the farm sent (compressed size when
	// compressed).
	Bytes int

	// Cookie and Authorization are those header fields as received: what a
	// test checks to see that credentials reached only their own hosts.
	Cookie, Authorization string

	// Start is when the handler began, End when it had written the whole
	// response (before the final flush to the connection, so a client cannot
	// have read the whole response before End).
	Start, End time.Time
}

// URL returns the request's canonical URL, "http://" + Host + Path with
// normalised percent-encoding: the form [Farm.Expected] uses.
func (r Request) URL() string { return urlKey(r.Host, r.Path) }

// site is a Site with its lookup tables.
type site struct {
	Site
	host   string
	pages  map[string]*Page  // by normalised path
	bombs  map[string][]byte // compressed bodies of the Bomb pages, by normalised path
	robots []byte            // Robots.Body with the Sitemap lines appended
}

// Farm serves a set of virtual sites on one loopback listener, choosing the
// site by the Host header, and records every request. Create one with
// [Start]; its methods are safe for simultaneous use by multiple goroutines.
type Farm struct {
	ln    net.Listener
	srv   *http.Server
	addr  string
	sites []*site
	hosts map[string]*site

	mu         sync.Mutex
	reqs       []Request
	visits     map[string]int    // host+path → 200 answers, for Page.Changing
	busy       map[string]int    // host+path → busy answers, for Page.Busy
	round      int               // for Page.ChangeEvery; see SetRound
	sessions   map[string]string // session cookie value → host, for Site.Login
	h2srv      *http.Server      // the HTTP/2 listener of ServeHTTP2, if started
	h2addr     string
	handshakes atomic.Int64 // TLS handshakes begun on the https listener
	sessionSeq int
	closed     bool
	handlers   sync.WaitGroup

	// hook, when set (by tests), runs at the start of every request.
	hook func(*http.Request)

	expOnce sync.Once
	exp     *expectation
}

// Start validates the sites and serves them on a new listener on
// 127.0.0.1 (a free port). Call [Farm.Close] when done.
func Start(sites ...Site) (*Farm, error) {
	f := &Farm{hosts: make(map[string]*site, len(sites))}
	for i := range sites {
		s, err := newSite(sites[i])
		if err != nil {
			return nil, err
		}
		if f.hosts[s.host] != nil {
			return nil, fmt.Errorf("crawltest: site %q: duplicate host", s.Host)
		}
		f.hosts[s.host] = s
		f.sites = append(f.sites, s)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("crawltest: %w", err)
	}
	f.ln = ln
	f.addr = ln.Addr().String()
	f.srv = &http.Server{
		Handler:           http.HandlerFunc(f.serve),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Minute,
		ErrorLog:          nil,
	}
	go f.srv.Serve(ln) //nolint:errcheck // returns ErrServerClosed on Close
	return f, nil
}

func newSite(in Site) (*site, error) {
	host := hostKey(in.Host)
	if host == "" || strings.ContainsAny(host, ":/?#@ ") {
		return nil, fmt.Errorf("crawltest: site %q: bad host (want a name without port)", in.Host)
	}
	s := &site{Site: in, host: host, pages: make(map[string]*Page, len(in.Pages))}
	for p, pg := range in.Pages {
		if !strings.HasPrefix(p, "/") || pg == nil {
			return nil, fmt.Errorf("crawltest: site %q: page %q: path must start with / and page be non-nil", in.Host, p)
		}
		s.pages[normPath(p)] = pg
		if pg.Bomb > 0 {
			if s.bombs == nil {
				s.bombs = make(map[string][]byte)
			}
			s.bombs[normPath(p)] = renderBomb(s, p, pg)
		}
	}
	if in.Icon && s.pages[iconPath] == nil {
		s.pages[iconPath] = icon()
	}
	if l := in.Login; l != nil && (l.User == "" || !strings.HasPrefix(l.path(), "/") || l.BasicPrefix != "" && !strings.HasPrefix(l.BasicPrefix, "/")) {
		return nil, fmt.Errorf("crawltest: site %q: a login needs a user, and paths starting with /", in.Host)
	}
	if in.Seed != "" && !strings.HasPrefix(in.Seed, "/") {
		return nil, fmt.Errorf("crawltest: site %q: seed %q must start with /", in.Host, in.Seed)
	}
	for _, sm := range in.Sitemaps {
		if _, _, ok := parseURL(sm); !ok {
			return nil, fmt.Errorf("crawltest: site %q: sitemap %q is not an absolute http URL", in.Host, sm)
		}
	}
	if r := in.Robots; r != nil {
		if r.RedirectTo != "" {
			if _, _, ok := parseURL(r.RedirectTo); !ok {
				return nil, fmt.Errorf("crawltest: site %q: robots redirect %q is not an absolute http URL", in.Host, r.RedirectTo)
			}
		}
		body := r.Body
		for _, sm := range in.Sitemaps {
			if !strings.Contains(body, sm) {
				if body != "" && !strings.HasSuffix(body, "\n") {
					body += "\n"
				}
				body += "Sitemap: " + sm + "\n"
			}
		}
		s.robots = []byte(body)
	}
	return s, nil
}

// Addr returns the listener's address, "127.0.0.1:PORT".
func (f *Farm) Addr() string { return f.addr }

// Resolve maps every site's "HOST:80" to the listener's address, the form
// of fetch.Options.Resolve. The map is new on every call.
func (f *Farm) Resolve() map[string]string {
	m := make(map[string]string, len(f.sites))
	for _, s := range f.sites {
		m[s.host+":80"] = f.addr
	}
	return m
}

// Hosts returns the farm's host names in the order the sites were given.
func (f *Farm) Hosts() []string {
	hs := make([]string, len(f.sites))
	for i, s := range f.sites {
		hs[i] = s.host
	}
	return hs
}

// Seeds returns each site's seed URL, "http://HOST/" unless Site.Seed says
// otherwise, in the order the sites were given.
func (f *Farm) Seeds() []string {
	seeds := make([]string, len(f.sites))
	for i, s := range f.sites {
		seeds[i] = "http://" + s.host + s.seedPath()
	}
	return seeds
}

func (s *site) seedPath() string {
	if s.Seed == "" {
		return "/"
	}
	return s.Seed
}

// DialContext dials the farm for any "HOST:80" address of a farm host, and
// fails for anything else. Use it as http.Transport.DialContext to reach the
// farm with a plain net/http client.
func (f *Farm) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port != "80" || f.hosts[hostKey(host)] == nil {
		return nil, fmt.Errorf("crawltest: dial %s: not a farm host", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", f.addr)
}

// Client returns a new http.Client that reaches the farm's hosts through
// [Farm.DialContext] and does not follow redirects.
func (f *Farm) Client() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			DialContext:         f.DialContext,
			MaxIdleConnsPerHost: 4,
			DisableCompression:  true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Requests returns a copy of the requests served so far, sorted by Start.
// Requests still being served are not included.
func (f *Farm) Requests() []Request {
	f.mu.Lock()
	reqs := make([]Request, len(f.reqs))
	copy(reqs, f.reqs)
	f.mu.Unlock()
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Start.Before(reqs[j].Start) })
	return reqs
}

// Reset forgets the requests recorded so far.
func (f *Farm) Reset() {
	f.mu.Lock()
	f.reqs = nil
	f.mu.Unlock()
}

// Close stops the listener, closes every connection and waits for the
// handlers to return. The record stays readable.
func (f *Farm) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	h2 := f.h2srv
	f.mu.Unlock()
	err := f.srv.Close()
	if h2 != nil {
		if err2 := h2.Close(); err == nil {
			err = err2
		}
	}
	f.handlers.Wait()
	if err != nil {
		return fmt.Errorf("crawltest: close: %w", err)
	}
	return nil
}

func (f *Farm) record(r Request) {
	f.mu.Lock()
	f.reqs = append(f.reqs, r)
	f.mu.Unlock()
}

// SetRound sets the farm's round, which the pages with [Page.ChangeEvery] change by.
// A new farm is in round 0.
func (f *Farm) SetRound(n int) {
	f.mu.Lock()
	f.round = n
	f.mu.Unlock()
}
