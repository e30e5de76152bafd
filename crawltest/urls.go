package crawltest

import (
	"net/url"
	"strings"
)

const upperhex = "0123456789ABCDEF"

// normPath normalises the percent-encoding of a path with optional query:
// escapes of unreserved characters are decoded, other escapes get upper-case
// hex, and bytes outside printable ASCII (and a '%' that starts no escape)
// are escaped. "" becomes "/".
func normPath(p string) string {
	if p == "" {
		return "/"
	}
	clean := true
	for i := 0; i < len(p); i++ {
		if c := p[i]; c == '%' || c <= ' ' || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '%' && i+2 < len(p) && ishex(p[i+1]) && ishex(p[i+2]):
			v := unhex(p[i+1])<<4 | unhex(p[i+2])
			if unreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperhex[v>>4])
				b.WriteByte(upperhex[v&15])
			}
			i += 2
		case c == '%' || c <= ' ' || c >= 0x7f:
			b.WriteByte('%')
			b.WriteByte(upperhex[c>>4])
			b.WriteByte(upperhex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// hostKey lower-cases a host and drops a ":80" port.
func hostKey(h string) string {
	h = strings.TrimSuffix(h, ":80")
	for i := 0; i < len(h); i++ {
		if c := h[i]; 'A' <= c && c <= 'Z' {
			return strings.ToLower(h)
		}
	}
	return h
}

// urlKey is the canonical form of a farm URL: "http://" + host + path.
func urlKey(host, path string) string {
	return "http://" + host + normPath(path)
}

// resolve resolves href against the page at host+path and returns the
// target's host and normalised path (with query). ok is false for anything
// the farm cannot serve: other schemes, other ports, unparsable hrefs.
func resolve(host, path, href string) (thost, tpath string, ok bool) {
	href = strings.TrimSpace(href)
	if i := strings.IndexByte(href, '#'); i >= 0 {
		href = href[:i]
	}
	if len(href) > 0 && href[0] == '/' && (len(href) == 1 || href[1] != '/') &&
		!strings.Contains(href, "/.") && !strings.ContainsAny(href, "\\#") {
		return host, normPath(strings.TrimSuffix(href, "?")), true
	}
	base, err := url.Parse("http://" + host + path)
	if err != nil {
		return "", "", false
	}
	ref, err := url.Parse(href)
	if err != nil {
		return "", "", false
	}
	return splitURL(base.ResolveReference(ref))
}

// parseURL splits an absolute http URL into host and normalised path.
func parseURL(raw string) (host, path string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !u.IsAbs() {
		return "", "", false
	}
	return splitURL(u)
}

func splitURL(u *url.URL) (host, path string, ok bool) {
	if !strings.EqualFold(u.Scheme, "http") || u.Host == "" || u.User != nil {
		return "", "", false
	}
	if p := u.Port(); p != "" && p != "80" {
		return "", "", false
	}
	path = u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return hostKey(u.Hostname()), normPath(path), true
}
