package extract

import (
	"net/url"
	"strings"
)

// smOrigin is the scheme, host and port of an http or https URL (lower-cased, the
// scheme's default port as ""), and the directory of its path (up to and including
// the last '/').
type smOrigin struct {
	scheme, host, port, dir string
}

// smParseOrigin parses raw, which must be an absolute http or https URL with a host.
func smParseOrigin(raw string) (smOrigin, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return smOrigin{}, false
	}
	return smOriginOf(u)
}

// smOriginOf returns u's origin and directory.
func smOriginOf(u *url.URL) (smOrigin, bool) {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" || u.Host == "" {
		return smOrigin{}, false
	}
	o := smOrigin{scheme: scheme, host: strings.ToLower(u.Hostname()), port: u.Port()}
	if o.host == "" {
		return smOrigin{}, false
	}
	if scheme == "http" && o.port == "80" || scheme == "https" && o.port == "443" {
		o.port = ""
	}
	dir := u.EscapedPath()
	o.dir = dir[:strings.LastIndexByte(dir, '/')+1]
	if o.dir == "" {
		o.dir = "/"
	}
	return o, true
}

// sameSite reports whether o and x have the same scheme, host and port.
func (o smOrigin) sameSite(x smOrigin) bool {
	return o.scheme == x.scheme && o.host == x.host && o.port == x.port
}

// covers reports whether x is on o's site and x's path is under o's directory.
func (o smOrigin) covers(x smOrigin, path string) bool {
	if path == "" {
		path = "/"
	}
	return o.sameSite(x) && strings.HasPrefix(path, o.dir)
}

// SitemapCovers reports whether a sitemap at sitemapURL may list loc under the
// sitemaps.org rules: the same scheme, host and port (www.example.com and
// example.com differ; an explicit default port does not), and loc's path under the
// directory of the sitemap's path, so that /catalog/sitemap.xml covers /catalog/ and
// below but not /images/. Both must be absolute http or https URLs. A sitemap that a
// robots.txt lists also covers all of that robots.txt's site (see
// SitemapOptions.RobotsURL); Sitemap applies both rules unless AnyHost is set.
func SitemapCovers(sitemapURL, loc string) bool {
	s, ok := smParseOrigin(sitemapURL)
	if !ok {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(loc))
	if err != nil {
		return false
	}
	l, ok := smOriginOf(u)
	return ok && s.covers(l, u.EscapedPath())
}

// loc checks an entry's location and returns it, trimmed (or resolved against the
// sitemap's URL when relative is allowed, for feeds), or counts why it is skipped.
func (p *smParser) loc(raw string, tooLong, relative bool) (string, bool) {
	s := strings.TrimSpace(raw)
	switch {
	case tooLong || len(s) > smMaxLoc:
		p.res.Skipped[SkipTooLong]++
		return "", false
	case s == "":
		p.res.Skipped[SkipMalformed]++
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil {
		p.res.Skipped[SkipMalformed]++
		return "", false
	}
	if !u.IsAbs() || u.Host == "" && u.Opaque == "" {
		if !relative || p.base == nil || u.Scheme != "" {
			p.res.Skipped[SkipMalformed]++
			return "", false
		}
		u = p.base.ResolveReference(u)
		s = u.String()
		if len(s) > smMaxLoc {
			p.res.Skipped[SkipTooLong]++
			return "", false
		}
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		p.res.Skipped[SkipScheme]++
		return "", false
	}
	o, ok := smOriginOf(u)
	if !ok {
		p.res.Skipped[SkipMalformed]++
		return "", false
	}
	if p.opts.AnyHost || p.self.covers(o, u.EscapedPath()) || p.hasRobots && p.robots.sameSite(o) {
		return s, true
	}
	if p.self.sameSite(o) || p.hasRobots && p.robots.host == o.host {
		p.res.Skipped[SkipCrossPath]++
	} else {
		p.res.Skipped[SkipCrossHost]++
	}
	return "", false
}
