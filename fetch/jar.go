package fetch

import (
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/publicsuffix"
)

// Jar limits: a site cannot fill the jar without bound.
const (
	maxCookiesPerDomain = 64
	maxCookieSize       = 4096 // bytes of name and value (RFC 6265 §6.1)
)

// Jar is a cookie jar (RFC 6265) for [Options.Jar] that can be loaded from and
// saved to a cookies.txt file, so that a crawl keeps a site's session across
// runs. Cookies are kept by site: each goes only to the host or domain that set
// it (never to a public suffix such as co.uk), and within it to its path, over
// https only when Secure. A Jar is safe for simultaneous use by multiple
// goroutines.
type Jar struct {
	now func() time.Time

	mu      sync.Mutex
	domains map[string]map[string]*jarEntry // domain -> name;path -> entry
	seq     uint64
	changed bool
}

type jarEntry struct {
	Cookie
	seq uint64 // creation order, for sending and eviction
}

// NewJar returns an empty jar whose expiry decisions use now (nil: time.Now).
func NewJar(now func() time.Time) *Jar {
	if now == nil {
		now = time.Now
	}
	return &Jar{now: now, domains: map[string]map[string]*jarEntry{}}
}

// Add puts cookies into the jar as they are (a cookies.txt file's, from
// ParseCookiesTxt), replacing those of the same domain, path and name, and
// reports how many of them were already expired and left out.
func (j *Jar) Add(cs []Cookie) (expired int) {
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, c := range cs {
		if !c.Expires.IsZero() && !c.Expires.After(now) {
			expired++
			continue
		}
		j.put(c)
	}
	return expired
}

// put stores c, keeping the creation order of the cookie it replaces and
// evicting the oldest of its domain beyond the limit. j.mu is held.
func (j *Jar) put(c Cookie) {
	m := j.domains[c.Domain]
	if m == nil {
		m = map[string]*jarEntry{}
		j.domains[c.Domain] = m
	}
	key := c.Name + ";" + c.Path
	j.changed = true
	if e, ok := m[key]; ok {
		e.Cookie = c
		return
	}
	j.seq++
	m[key] = &jarEntry{Cookie: c, seq: j.seq}
	if len(m) > maxCookiesPerDomain {
		var oldest string
		var seq uint64
		for k, e := range m {
			if oldest == "" || e.seq < seq {
				oldest, seq = k, e.seq
			}
		}
		delete(m, oldest)
	}
}

// SetCookies takes the Set-Cookie fields of a response to u (http.CookieJar).
// A cookie for a domain that u's host is not in, for a public suffix, or
// marked Secure over plain http is ignored; a Max-Age of zero or less or an
// Expires in the past deletes the cookie.
func (j *Jar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return
	}
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, hc := range cookies {
		if hc.Name == "" || len(hc.Name)+len(hc.Value) > maxCookieSize || hc.Secure && u.Scheme != "https" {
			continue
		}
		c := Cookie{Name: hc.Name, Value: hc.Value, Secure: hc.Secure, HTTPOnly: hc.HttpOnly}
		var ok bool
		if c.Domain, c.Subdomains, ok = cookieDomain(host, hc.Domain); !ok {
			continue
		}
		c.Path = hc.Path
		if !strings.HasPrefix(c.Path, "/") {
			c.Path = defaultPath(u.Path)
		}
		remove := false
		switch {
		case hc.MaxAge < 0:
			remove = true
		case hc.MaxAge > 0:
			c.Expires = now.Add(time.Duration(hc.MaxAge) * time.Second)
		case !hc.Expires.IsZero():
			c.Expires = hc.Expires
			remove = !hc.Expires.After(now)
		}
		if remove {
			if m := j.domains[c.Domain]; m != nil {
				delete(m, c.Name+";"+c.Path)
				j.changed = true
			}
			continue
		}
		j.put(c)
	}
}

// cookieDomain returns the domain a cookie set by host with Domain attribute
// attr is kept under, and whether it goes to subdomains; ok is false for a
// cookie host may not set (another site's domain, or a public suffix).
func cookieDomain(host, attr string) (domain string, subdomains, ok bool) {
	attr = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(attr, "."), "."))
	if attr == "" || attr == host && net.ParseIP(host) != nil {
		return host, false, true
	}
	if net.ParseIP(host) != nil {
		return "", false, false // an IP address has no subdomains
	}
	if attr != host && !strings.HasSuffix(host, "."+attr) {
		return "", false, false
	}
	if ps, _ := publicsuffix.PublicSuffix(attr); ps == attr {
		// A public suffix: only the host that is it may set a cookie, host-only.
		return host, false, attr == host
	}
	return attr, true, true
}

// defaultPath is RFC 6265's default-path of a request path.
func defaultPath(p string) string {
	i := strings.LastIndexByte(p, '/')
	if !strings.HasPrefix(p, "/") || i <= 0 {
		return "/"
	}
	return p[:i]
}

// pathMatch is RFC 6265's path-match.
func pathMatch(reqPath, cookiePath string) bool {
	if !strings.HasPrefix(reqPath, cookiePath) {
		return false
	}
	return len(reqPath) == len(cookiePath) || strings.HasSuffix(cookiePath, "/") || reqPath[len(cookiePath)] == '/'
}

// Cookies returns the cookies to send with a request to u (http.CookieJar):
// those of u's host and of the domains above it that it was given, whose path
// u's path is in, Secure ones only over https; longest paths first.
func (j *Jar) Cookies(u *url.URL) []*http.Cookie {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return nil
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	var found []*jarEntry
	for d := host; ; {
		for key, e := range j.domains[d] {
			switch {
			case !e.Expires.IsZero() && !e.Expires.After(now):
				delete(j.domains[d], key)
				j.changed = true
			case d != host && !e.Subdomains, e.Secure && u.Scheme != "https", !pathMatch(p, e.Path):
			default:
				found = append(found, e)
			}
		}
		dot := strings.IndexByte(d, '.')
		if dot < 0 || net.ParseIP(host) != nil {
			break
		}
		d = d[dot+1:]
	}
	sort.Slice(found, func(a, b int) bool {
		if la, lb := len(found[a].Path), len(found[b].Path); la != lb {
			return la > lb
		}
		return found[a].seq < found[b].seq
	})
	out := make([]*http.Cookie, len(found))
	for i, e := range found {
		out[i] = &http.Cookie{Name: e.Name, Value: e.Value}
	}
	return out
}

// All returns the cookies in the jar that have not expired, sorted by domain,
// path and name: what a cookies.txt file of the jar holds.
func (j *Jar) All() []Cookie {
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []Cookie
	for _, m := range j.domains {
		for _, e := range m {
			if e.Expires.IsZero() || e.Expires.After(now) {
				out = append(out, e.Cookie)
			}
		}
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.Domain != y.Domain {
			return x.Domain < y.Domain
		}
		if x.Path != y.Path {
			return x.Path < y.Path
		}
		return x.Name < y.Name
	})
	return out
}

// Changed reports whether the jar changed since the last call that reported
// a change: whether it needs saving.
func (j *Jar) Changed() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	ch := j.changed
	j.changed = false
	return ch
}
