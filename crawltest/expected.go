package crawltest

import (
	"bytes"
	"mime"
	"net/http"
	"strings"
)

// robotsState is what a correct crawler concludes from a host's robots.txt.
type robotsState int

const (
	robotsParsed      robotsState = iota // 2xx: its rules apply (Page.Disallowed)
	robotsAllowAll                       // 4xx other than 429, or too many redirects
	robotsUnreachable                    // 429, 5xx, other codes, or a redirect out of the farm
)

// maxRobotsRedirects is how many redirects a crawler follows for
// robots.txt (RFC 9309 section 2.3.1.2: at least five).
const maxRobotsRedirects = 5

// iconPath is where a browser asks every host for its icon.
const iconPath = "/favicon.ico"

// maxIconRedirects is how many redirects of a host icon a browser-like
// crawler is expected to follow (browsers follow twenty; five is fetch's
// usual bound, and no farm needs more).
const maxIconRedirects = 5

// expectation is what a correct crawler does on the farm, computed once.
type expectation struct {
	pages        map[string]bool        // URLs fetched, robots.txt excluded
	robots       map[string]bool        // robots.txt URLs and their redirect targets
	exempt       map[string]bool        // redirect targets of another host's robots.txt
	nofollowOnly map[string]bool        // URLs reachable only through nofollow
	icons        map[string]bool        // host icons and their redirect targets, not in pages
	state        map[string]robotsState // by host
	perHost      map[string]int         // expected requests by host, robots.txt included
}

// expectation computes (once) what a correct crawler fetches.
func (f *Farm) expectation() *expectation {
	f.expOnce.Do(func() { f.exp = f.computeExpectation() })
	return f.exp
}

func (f *Farm) computeExpectation() *expectation {
	e := &expectation{
		robots:  make(map[string]bool),
		exempt:  make(map[string]bool),
		state:   make(map[string]robotsState, len(f.sites)),
		perHost: make(map[string]int, len(f.sites)),
	}
	for _, s := range f.sites {
		st, chain := f.robotsOutcome(s)
		e.state[s.host] = st
		e.robots[urlKey(s.host, "/robots.txt")] = true
		for _, u := range chain {
			e.robots[u] = true
			e.exempt[u] = true
		}
	}
	e.pages = f.reach(e, false)
	all := f.reach(e, true)
	e.nofollowOnly = make(map[string]bool)
	for u := range all {
		if !e.pages[u] {
			e.nofollowOnly[u] = true
		}
	}
	e.icons = f.icons(e)
	for _, s := range f.sites {
		e.perHost[s.host]++ // robots.txt
	}
	for u := range e.pages {
		h, _, _ := strings.Cut(strings.TrimPrefix(u, "http://"), "/")
		e.perHost[h]++
	}
	return e
}

// robotsOutcome follows s's robots.txt through its redirects as a crawler
// does and returns the conclusion and the URLs fetched after the first.
func (f *Farm) robotsOutcome(s *site) (robotsState, []string) {
	var chain []string
	status, target := robotsResponse(s)
	for hops := 0; ; hops++ {
		switch {
		case status >= 200 && status < 300:
			return robotsParsed, chain
		case status >= 300 && status < 400 && target != "":
			if hops == maxRobotsRedirects {
				return robotsAllowAll, chain
			}
			h, p, ok := parseURL(target)
			t := f.hosts[h]
			if !ok || t == nil {
				return robotsUnreachable, chain
			}
			chain = append(chain, urlKey(h, p))
			if p == "/robots.txt" {
				status, target = robotsResponse(t)
			} else if pg := t.pages[p]; pg == nil {
				status, target = http.StatusNotFound, ""
			} else {
				status, target = pageStatus(pg), pg.RedirectTo
				if target != "" {
					if th, tp, ok := resolve(h, p, target); ok {
						target = urlKey(th, tp)
					} else {
						target = ""
					}
				}
			}
		case status >= 400 && status < 500 && status != http.StatusTooManyRequests:
			return robotsAllowAll, chain
		default:
			return robotsUnreachable, chain
		}
	}
}

func robotsResponse(s *site) (status int, target string) {
	if s.Robots == nil {
		return http.StatusNotFound, ""
	}
	return robotsStatus(s.Robots), s.Robots.RedirectTo
}

// reach runs the breadth-first search of a correct crawler from the seeds
// and the robots.txt sitemaps, and returns the URLs it fetches (robots.txt
// excluded). With nofollow set it also follows rel=nofollow links and the
// links of nofollow pages.
func (f *Farm) reach(e *expectation, nofollow bool) map[string]bool {
	fetched := make(map[string]bool)
	seen := make(map[string]bool)
	type item struct{ host, path string }
	var queue []item
	add := func(h, p string) {
		if p == "/robots.txt" || f.hosts[h] == nil {
			return
		}
		k := urlKey(h, p)
		if seen[k] {
			return
		}
		seen[k] = true
		queue = append(queue, item{h, p})
	}
	for _, s := range f.sites {
		add(s.host, normPath(s.seedPath()))
	}
	for _, s := range f.sites {
		if e.state[s.host] != robotsParsed || s.Robots == nil || s.Robots.RedirectTo != "" {
			continue
		}
		for _, sm := range s.Sitemaps {
			if h, p, ok := parseURL(sm); ok {
				add(h, p)
			}
		}
	}
	var buf bytes.Buffer
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		s := f.hosts[it.host]
		if e.state[it.host] == robotsUnreachable {
			continue
		}
		p := s.pages[it.path]
		if p != nil && p.Disallowed {
			continue
		}
		fetched[urlKey(it.host, it.path)] = true
		if p == nil {
			continue
		}
		status := pageStatus(p)
		if status/100 == 3 {
			if h, tp, ok := resolve(it.host, it.path, p.RedirectTo); ok && p.RedirectTo != "" {
				add(h, tp)
			}
			continue
		}
		if status/100 != 2 {
			continue
		}
		if p.Sitemap {
			buf.Reset()
			f.renderSitemap(&buf, s, it.path, p)
			locs, _, _ := sitemapLocs(buf.Bytes())
			for _, l := range locs {
				if h, tp, ok := parseURL(l); ok {
					add(h, tp)
				}
			}
			continue
		}
		if !isHTML(p.ContentType) {
			continue
		}
		if nofollow || !(p.MetaNoFollow || p.HeaderNoFollow) {
			for _, l := range p.Links {
				if h, tp, ok := resolve(it.host, it.path, l); ok {
					add(h, tp)
				}
			}
		}
		if nofollow {
			for _, l := range p.NoFollowLinks {
				if h, tp, ok := resolve(it.host, it.path, l); ok {
					add(h, tp)
				}
			}
		}
	}
	return fetched
}

// icons returns the host icons a browser-like crawler fetches, besides e.pages:
// the /favicon.ico of every host where it fetches a 2xx HTML page (not a
// sitemap), unless robots.txt forbids it, and the targets of its redirects.
func (f *Farm) icons(e *expectation) map[string]bool {
	icons := make(map[string]bool)
	for u := range e.pages {
		h, path := splitKey(u)
		if p := f.hosts[h].pages[path]; p == nil || p.Sitemap || pageStatus(p)/100 != 2 || !isHTML(p.ContentType) {
			continue
		}
		path = iconPath
		for range maxIconRedirects + 1 {
			k, s := urlKey(h, path), f.hosts[h]
			if s == nil || e.pages[k] || icons[k] || e.state[h] == robotsUnreachable {
				break
			}
			p := s.pages[path]
			if p != nil && p.Disallowed {
				break
			}
			icons[k] = true
			if p == nil || pageStatus(p)/100 != 3 || p.RedirectTo == "" {
				break
			}
			var ok bool
			if h, path, ok = resolve(h, path, p.RedirectTo); !ok {
				break
			}
		}
	}
	return icons
}

// isHTML reports whether a Content-Type ("" meaning the default) is HTML.
func isHTML(ctype string) bool {
	if ctype == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ctype)
	return err == nil && (mt == "text/html" || mt == "application/xhtml+xml")
}

// Expected returns the URLs a correct crawler fetches, starting from
// [Farm.Seeds] and the sitemaps of every robots.txt that answers 2xx, in
// canonical form ("http://HOST/PATH", see [Request.URL]). It assumes every
// farm host is in the crawler's scope. It is a breadth-first search that
//
//   - fetches every URL of a farm host it meets, except on a host whose
//     robots.txt is unreachable (429, 5xx, a redirect out of the farm) and
//     except pages marked Disallowed;
//   - counts 404s, error pages and redirects as fetched, and follows a
//     redirect to its target;
//   - follows the Links of 2xx HTML pages, unless the page is nofollow
//     (MetaNoFollow or HeaderNoFollow); never follows NoFollowLinks; reads
//     the <loc> entries of sitemap pages (absolute URLs only);
//   - leaves out /robots.txt, listed by [Farm.ExpectedRobots], and links to
//     hosts outside the farm.
//
// Pages reachable only through a disallowed page are not expected either.
// Host icons no page links to are not pages: [Farm.ExpectedIcons] lists them.
// The map is new on every call.
func (f *Farm) Expected() map[string]bool {
	return cloneSet(f.expectation().pages)
}

// ExpectedIcons returns the host icons a browser-like crawler fetches besides
// [Farm.Expected], in canonical form: a browser asks a host for /favicon.ico
// for its tab when a page names no icon, and a replay tool asks the archive for
// it whatever the page names, so such a crawler fetches it once for every host
// where it fetches a 2xx HTML page (not a sitemap), whether it answers (see
// [Site.Icon]) or not, and follows its redirects. An icon robots.txt forbids
// (a "/favicon.ico" page marked Disallowed) is left out, and so is one a page
// links to, which Expected has. The map is new on every call.
func (f *Farm) ExpectedIcons() map[string]bool {
	return cloneSet(f.expectation().icons)
}

// ExpectedRobots returns the robots.txt URLs a correct crawler fetches at
// least once: every host's /robots.txt and the targets of robots.txt
// redirects (up to five hops). The map is new on every call.
func (f *Farm) ExpectedRobots() map[string]bool {
	return cloneSet(f.expectation().robots)
}

// NoFollowOnly returns the URLs reachable only through nofollow links or
// nofollow pages: a correct crawler fetches none of them.
func (f *Farm) NoFollowOnly() map[string]bool {
	return cloneSet(f.expectation().nofollowOnly)
}

func cloneSet(m map[string]bool) map[string]bool {
	c := make(map[string]bool, len(m))
	for k := range m {
		c[k] = true
	}
	return c
}
