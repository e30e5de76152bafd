package fetch

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"

	"golang.org/x/net/http/httpguts"
)

// HostHeader is a set of extra request headers for the hosts a pattern matches.
type HostHeader struct {
	// Hosts is a host pattern as NoProxy takes them: "*" for every host, a name
	// for it and the names under it, "=name" for that name alone, an IP address
	// or a CIDR prefix.
	Hosts string
	// Header holds the fields to send. A field set by a more specific pattern
	// replaces the same field of a more general one.
	Header http.Header
}

// HostAuth holds credentials for the hosts a pattern matches: Basic when
// Username is set, Bearer when Token is.
type HostAuth struct {
	// Hosts is a host pattern as in HostHeader, but never "*": credentials go
	// only to the hosts they are for.
	Hosts string
	// Username and Password are sent as HTTP Basic authentication.
	Username, Password string
	// Token is sent as "Authorization: Bearer <Token>".
	Token string
}

// ownHeaders are the fields HostHeader may not set, with the reason.
var ownHeaders = map[string]string{
	"Host":                "the URL decides it",
	"User-Agent":          "robots.txt is matched against the crawler's own agent",
	"Accept-Encoding":     "the client decodes bodies itself",
	"Authorization":       "credentials go in Auth, which sends them only to their hosts",
	"Cookie":              "cookies go in the cookie jar, which sends them only to their domains",
	"Proxy-Authorization": "proxy credentials go in the Proxy URL",
	"If-None-Match":       "conditional requests are the recrawl's",
	"If-Modified-Since":   "conditional requests are the recrawl's",
	"Connection":          "hop-by-hop fields are the transport's",
	"Keep-Alive":          "hop-by-hop fields are the transport's",
	"Proxy-Connection":    "hop-by-hop fields are the transport's",
	"Te":                  "hop-by-hop fields are the transport's",
	"Trailer":             "hop-by-hop fields are the transport's",
	"Transfer-Encoding":   "hop-by-hop fields are the transport's",
	"Upgrade":             "hop-by-hop fields are the transport's",
	"Content-Length":      "a GET has no body",
}

// headerRule is a checked HostHeader.
type headerRule struct {
	hosts  hostPattern
	header http.Header
}

// authRule is a checked HostAuth, its Authorization value ready.
type authRule struct {
	hosts hostPattern
	value string
}

// parseHeaders checks the Headers option and orders its rules from the most
// general pattern to the most specific, so that applying them in order lets the
// most specific win.
func parseHeaders(in []HostHeader) ([]headerRule, error) {
	rules := make([]headerRule, 0, len(in))
	for i, hh := range in {
		p, err := parseHostPattern(hh.Hosts)
		if err != nil {
			return nil, fmt.Errorf("fetch: Headers[%d]: %w", i, err)
		}
		h := make(http.Header, len(hh.Header))
		for k, vs := range hh.Header {
			if !httpguts.ValidHeaderFieldName(k) {
				return nil, fmt.Errorf("fetch: Headers[%d] (%s): %q is not a header field name", i, hh.Hosts, k)
			}
			ck := http.CanonicalHeaderKey(k)
			if why, ok := ownHeaders[ck]; ok {
				return nil, fmt.Errorf("fetch: Headers[%d] (%s): %s may not be set: %s", i, hh.Hosts, ck, why)
			}
			for _, v := range vs {
				if !httpguts.ValidHeaderFieldValue(v) {
					return nil, fmt.Errorf("fetch: Headers[%d] (%s): %s: value %q holds a control character", i, hh.Hosts, ck, v)
				}
			}
			h[ck] = append([]string(nil), vs...)
		}
		rules = append(rules, headerRule{hosts: p, header: h})
	}
	sort.SliceStable(rules, func(a, b int) bool { return rules[a].hosts.specificity() < rules[b].hosts.specificity() })
	return rules, nil
}

// parseAuth checks the Auth option and orders it as parseHeaders does.
func parseAuth(in []HostAuth) ([]authRule, error) {
	rules := make([]authRule, 0, len(in))
	for i, a := range in {
		p, err := parseHostPattern(a.Hosts)
		if err != nil {
			return nil, fmt.Errorf("fetch: Auth[%d]: %w", i, err)
		}
		if p.any {
			return nil, fmt.Errorf("fetch: Auth[%d]: credentials for every host (*) would go wherever a link leads", i)
		}
		var value string
		switch {
		case a.Username != "" && a.Token != "":
			return nil, fmt.Errorf("fetch: Auth[%d] (%s): both a user name and a token", i, a.Hosts)
		case a.Username != "":
			value = "Basic " + base64.StdEncoding.EncodeToString([]byte(a.Username+":"+a.Password))
		case a.Token != "":
			value = "Bearer " + a.Token
		default:
			return nil, fmt.Errorf("fetch: Auth[%d] (%s): neither a user name nor a token", i, a.Hosts)
		}
		if !httpguts.ValidHeaderFieldValue(value) {
			// The value itself is a secret: it is not quoted.
			return nil, fmt.Errorf("fetch: Auth[%d] (%s): the token holds a control character", i, a.Hosts)
		}
		rules = append(rules, authRule{hosts: p, value: value})
	}
	sort.SliceStable(rules, func(a, b int) bool { return rules[a].hosts.specificity() < rules[b].hosts.specificity() })
	return rules, nil
}

// hostHeader sets on h the configured fields and credentials for host.
func (c *Client) hostHeader(h http.Header, host string) {
	for _, r := range c.headers {
		if r.hosts.match(host) {
			for k, vs := range r.header {
				h[k] = append([]string(nil), vs...)
			}
		}
	}
	var auth string
	for _, r := range c.auth {
		if r.hosts.match(host) {
			auth = r.value
		}
	}
	if auth != "" {
		h.Set("Authorization", auth)
	}
}
