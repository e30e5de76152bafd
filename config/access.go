package config

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"

	"github.com/politecrawl/crawl/fetch"
)

// DefaultHTTP2 is fetch.http2 when the configuration says nothing.
const DefaultHTTP2 = fetch.HTTP2Off

// Auth is one entry of fetch.auth: credentials for the hosts a pattern matches,
// HTTP Basic (User and Password) or Bearer (Token).
type Auth struct {
	// Hosts is a host pattern as fetch.headers takes them; never "*".
	Hosts    string `yaml:"hosts"`
	User     string `yaml:"user"`
	Password string `yaml:"password"`
	Token    string `yaml:"token"`
}

// Access returns what fetch.headers and fetch.auth ask of the client, as
// fetch.Options takes them.
func (f Fetch) Access() ([]fetch.HostHeader, []fetch.HostAuth) {
	patterns := make([]string, 0, len(f.Headers))
	for p := range f.Headers {
		patterns = append(patterns, p)
	}
	sort.Strings(patterns)
	headers := make([]fetch.HostHeader, 0, len(patterns))
	for _, p := range patterns {
		h := http.Header{}
		for k, v := range f.Headers[p] {
			h[k] = []string{v}
		}
		headers = append(headers, fetch.HostHeader{Hosts: p, Header: h})
	}
	auth := make([]fetch.HostAuth, 0, len(f.Auth))
	for _, a := range f.Auth {
		auth = append(auth, fetch.HostAuth{Hosts: a.Hosts, Username: a.User, Password: a.Password, Token: a.Token})
	}
	return headers, auth
}

// Cookies reads and parses fetch.cookies_file; none when it is empty. An error
// is an *Error naming fetch.cookies_file.
func (f Fetch) Cookies() ([]fetch.Cookie, error) {
	if f.CookiesFile == "" {
		return nil, nil
	}
	data, err := os.ReadFile(f.CookiesFile)
	if err == nil {
		var cs []fetch.Cookie
		if cs, err = fetch.ParseCookiesTxt(data); err == nil {
			return cs, nil
		}
	}
	return nil, &Error{Field: "fetch.cookies_file", Value: f.CookiesFile, Err: err}
}

// validateAccess checks fetch.http2, proxy, no_proxy, headers and auth by
// building a client of each alone, so that an error names its key. No value of
// a password or token is ever quoted.
func (c *Config) validateAccess() error {
	f := c.Fetch
	try := func(field, value string, o fetch.Options) error {
		o.UserAgent = "politecrawl"
		if _, err := fetch.New(o); err != nil {
			return &Error{Field: field, Value: value, Line: c.lines[field], Err: err}
		}
		return nil
	}
	if err := try("fetch.http2", f.HTTP2, fetch.Options{HTTP2: f.HTTP2}); err != nil {
		return err
	}
	if f.Proxy != "" {
		shown := "(not a URL)"
		if u, err := url.Parse(f.Proxy); err == nil {
			shown = u.Redacted()
		}
		if err := try("fetch.proxy", shown, fetch.Options{Proxy: f.Proxy}); err != nil {
			return err
		}
		if err := try("fetch.no_proxy", fmt.Sprint(f.NoProxy), fetch.Options{Proxy: f.Proxy, NoProxy: f.NoProxy}); err != nil {
			return err
		}
	} else if len(f.NoProxy) > 0 {
		return &Error{Field: "fetch.no_proxy", Value: fmt.Sprint(f.NoProxy), Line: c.lines["fetch.no_proxy"], Err: fmt.Errorf("is set without fetch.proxy")}
	}
	headers, auth := f.Access()
	for _, h := range headers {
		if err := try("fetch.headers", h.Hosts, fetch.Options{Headers: []fetch.HostHeader{h}}); err != nil {
			return err
		}
	}
	for _, a := range auth {
		if err := try("fetch.auth", a.Hosts, fetch.Options{Auth: []fetch.HostAuth{a}}); err != nil {
			return err
		}
	}
	return nil
}
