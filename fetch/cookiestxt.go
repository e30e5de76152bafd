package fetch

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cookie is one cookie as a cookies.txt line holds it.
type Cookie struct {
	// Domain is the host or domain, lower case, without a leading dot.
	Domain string
	// Subdomains reports that the cookie goes to the names under Domain too
	// (a domain cookie); false means Domain alone (a host-only cookie).
	Subdomains bool
	// Path is the path prefix the cookie goes to, "/" for the whole site.
	Path string
	// Secure cookies go over https only.
	Secure bool
	// HTTPOnly is kept and written back; it changes nothing for a crawler.
	HTTPOnly bool
	// Expires is when the cookie ends; zero is a session cookie, which a
	// crawler keeps for as long as its jar.
	Expires time.Time
	// Name and Value are the cookie's.
	Name, Value string
}

// httpOnlyPrefix marks an HttpOnly cookie's line, as curl and browser
// extensions write it.
const httpOnlyPrefix = "#HttpOnly_"

// ParseCookiesTxt parses a Netscape cookies.txt file, as curl (--cookie-jar),
// wget and the browser extensions that export cookies write it: one cookie a
// line, seven fields separated by tabs (domain, include-subdomains TRUE or
// FALSE, path, secure TRUE or FALSE, expiry in Unix seconds with 0 for a session
// cookie, name, value), lines starting with '#' comments except that
// "#HttpOnly_" before the domain marks an HttpOnly cookie. A line whose value is
// empty may lack its last tab. A malformed line is an error naming its number:
// a cookie file is the operator's input, better refused than half read.
func ParseCookiesTxt(data []byte) ([]Cookie, error) {
	var out []Cookie
	for n := 1; len(data) > 0; n++ {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		s := strings.TrimSuffix(string(line), "\r")
		httpOnly := strings.HasPrefix(s, httpOnlyPrefix)
		if httpOnly {
			s = s[len(httpOnlyPrefix):]
		} else if strings.HasPrefix(s, "#") || strings.TrimSpace(s) == "" {
			continue
		}
		c, err := parseCookieLine(s)
		if err != nil {
			return nil, fmt.Errorf("fetch: cookies.txt line %d: %w", n, err)
		}
		c.HTTPOnly = httpOnly
		out = append(out, c)
	}
	return out, nil
}

func parseCookieLine(s string) (Cookie, error) {
	f := strings.Split(s, "\t")
	if len(f) == 6 {
		f = append(f, "")
	}
	if len(f) != 7 {
		return Cookie{}, fmt.Errorf("%d tab-separated fields, want 7", len(f))
	}
	var c Cookie
	c.Domain = strings.ToLower(strings.TrimPrefix(f[0], "."))
	if c.Domain == "" || strings.HasPrefix(c.Domain, ".") || strings.ContainsAny(c.Domain, " /;,\"#") || !validCookieText(c.Domain) {
		return Cookie{}, fmt.Errorf("domain %q", f[0])
	}
	var err error
	if c.Subdomains, err = parseBool(f[1]); err != nil {
		return Cookie{}, fmt.Errorf("include-subdomains: %w", err)
	}
	c.Path = f[2]
	if !strings.HasPrefix(c.Path, "/") || !validCookieText(c.Path) || strings.Contains(c.Path, ";") {
		return Cookie{}, fmt.Errorf("path %q: want an absolute path", f[2])
	}
	if c.Secure, err = parseBool(f[3]); err != nil {
		return Cookie{}, fmt.Errorf("secure: %w", err)
	}
	// Some exporters write fractional seconds.
	secs, _, _ := strings.Cut(f[4], ".")
	exp, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || exp < 0 {
		return Cookie{}, fmt.Errorf("expiry %q: want Unix seconds, 0 for a session cookie", f[4])
	}
	if exp > 0 {
		c.Expires = time.Unix(min(exp, 1<<40), 0).UTC()
	}
	c.Name, c.Value = f[5], f[6]
	if c.Name == "" || strings.ContainsAny(c.Name, " =;,\"") || !validCookieText(c.Name) {
		return Cookie{}, fmt.Errorf("cookie name %q", c.Name)
	}
	if strings.Contains(c.Value, ";") || !validCookieText(c.Value) {
		// The value is a secret: it is not quoted.
		return Cookie{}, fmt.Errorf("the value of cookie %q holds ';' or a control character", c.Name)
	}
	return c, nil
}

func parseBool(s string) (bool, error) {
	switch strings.ToUpper(s) {
	case "TRUE":
		return true, nil
	case "FALSE":
		return false, nil
	}
	return false, fmt.Errorf("%q, want TRUE or FALSE", s)
}

// validCookieText reports whether s is printable ASCII or UTF-8 without
// control characters (tabs included: they separate the fields).
func validCookieText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// AppendCookiesTxt appends cs to b in the format ParseCookiesTxt reads, after
// the customary first line when b is empty.
func AppendCookiesTxt(b []byte, cs []Cookie) []byte {
	if len(b) == 0 {
		b = append(b, "# Netscape HTTP Cookie File\n# Written by politecrawl. Each line holds a secret: keep this file private.\n\n"...)
	}
	for _, c := range cs {
		if c.HTTPOnly {
			b = append(b, httpOnlyPrefix...)
		}
		if c.Subdomains {
			b = append(b, '.')
		}
		b = append(b, c.Domain...)
		b = append(b, '\t')
		b = appendBool(b, c.Subdomains)
		b = append(b, '\t')
		b = append(b, c.Path...)
		b = append(b, '\t')
		b = appendBool(b, c.Secure)
		b = append(b, '\t')
		var exp int64
		if !c.Expires.IsZero() {
			exp = max(c.Expires.Unix(), 1)
		}
		b = strconv.AppendInt(b, exp, 10)
		b = append(b, '\t')
		b = append(b, c.Name...)
		b = append(b, '\t')
		b = append(b, c.Value...)
		b = append(b, '\n')
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "TRUE"...)
	}
	return append(b, "FALSE"...)
}
