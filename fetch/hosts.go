package fetch

import (
	"fmt"
	"net/netip"
	"strings"
)

// hostPattern matches the host of a URL. Its forms, as Options.NoProxy,
// Options.Headers and Options.Auth take them:
//
//   - every host
//     example.org     example.org and every name under it (www.example.org)
//     .example.org    the same (the leading dot of curl's no_proxy is accepted)
//     =example.org    example.org alone
//     192.0.2.7       that IP address written as the host
//     192.0.2.0/24    the IP addresses written as the host inside the prefix
//
// Names are compared without case and without a trailing dot; a pattern never
// matches a port, which it may not contain.
type hostPattern struct {
	any    bool
	exact  bool
	name   string // lower case, no leading or trailing dot
	prefix netip.Prefix
}

// parseHostPattern parses one pattern; the error names it.
func parseHostPattern(s string) (hostPattern, error) {
	t := strings.TrimSpace(s)
	if t == "*" {
		return hostPattern{any: true}, nil
	}
	if p, err := netip.ParsePrefix(t); err == nil {
		return hostPattern{prefix: p.Masked()}, nil
	}
	if a, err := netip.ParseAddr(strings.Trim(t, "[]")); err == nil {
		return hostPattern{prefix: netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())}, nil
	}
	exact := strings.HasPrefix(t, "=")
	name := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(t, "="), "."), "."))
	if name == "" || strings.ContainsAny(name, ":/ *\t") || strings.Contains(name, "..") ||
		strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") {
		return hostPattern{}, fmt.Errorf("host pattern %q: want *, a host name, =name, an IP address or a CIDR prefix", s)
	}
	return hostPattern{exact: exact, name: name}, nil
}

// match reports whether host (as in a URL, without port; IPv6 with or without
// brackets) matches the pattern.
func (p hostPattern) match(host string) bool {
	if p.any {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if p.prefix.IsValid() {
		a, err := netip.ParseAddr(strings.Trim(host, "[]"))
		return err == nil && p.prefix.Contains(a.Unmap())
	}
	if host == p.name {
		return true
	}
	return !p.exact && strings.HasSuffix(host, p.name) && host[len(host)-len(p.name)-1] == '.'
}

// specificity orders patterns from the most general: * first, then prefixes
// and names by length, "=name" last. Rules applied in this order let the most
// specific win.
func (p hostPattern) specificity() int {
	switch {
	case p.any:
		return 0
	case p.prefix.IsValid():
		return 1 + p.prefix.Bits()
	case p.exact:
		return 1 << 20
	}
	return 1000 + len(p.name)
}
