package cluster

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// MaxShards is the largest shard count a crawl may have.
const MaxShards = 4096

// DefaultShards is the shard count of a crawl whose Config leaves Shards zero.
const DefaultShards = 64

// ShardOf returns the shard of rawURL in a crawl of total shards: the FNV-1a 64-bit hash
// of the URL's registered domain (publicsuffix.EffectiveTLDPlusOne of its host, so
// www.example.co.uk and example.co.uk share a shard) modulo total. A host that is an IP
// address, a single label or a public suffix itself is its own registered domain. Hosts
// are compared lower-cased, without port or trailing dot, and internationalised names in
// their ASCII (punycode) form, so both spellings of a host land in the same shard.
//
// It returns an error if total is not in 1..MaxShards or rawURL has no host.
func ShardOf(rawURL string, total int) (int, error) {
	if total < 1 || total > MaxShards {
		return 0, fmt.Errorf("cluster: shard count %d out of range 1..%d", total, MaxShards)
	}
	host, ok := quickHost(rawURL)
	if !ok {
		u, err := url.Parse(rawURL)
		if err != nil {
			return 0, fmt.Errorf("cluster: shard of URL: %w", err)
		}
		host = u.Hostname()
	}
	domain, err := registeredDomain(host)
	if err != nil {
		return 0, fmt.Errorf("cluster: shard of URL %q: %w", rawURL, err)
	}
	h := fnv.New64a()
	h.Write([]byte(domain))
	return int(h.Sum64() % uint64(total)), nil
}

var errNoHost = errors.New("no host")

// quickHost returns the host of an absolute URL whose authority is plain (lower-case
// ASCII letters, digits, '.', '-', an optional numeric port), as url.Parse's Hostname
// would, without parsing the rest. ok is false for anything else, which url.Parse
// then handles.
func quickHost(rawURL string) (host string, ok bool) {
	i := strings.Index(rawURL, "://")
	if i <= 0 {
		return "", false
	}
	for j := 0; j < i; j++ {
		if c := rawURL[j]; !('a' <= c && c <= 'z') {
			return "", false
		}
	}
	rest := rawURL[i+3:]
	end := len(rest)
	if k := strings.IndexAny(rest, "/?#"); k >= 0 {
		end = k
	}
	auth := rest[:end]
	colon := len(auth)
	for k := 0; k < len(auth); k++ {
		c := auth[k]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '.':
			if colon < len(auth) && !('0' <= c && c <= '9') {
				return "", false
			}
		case c == ':' && colon == len(auth):
			colon = k
		default:
			return "", false
		}
	}
	if colon == 0 {
		return "", false
	}
	return auth[:colon], true
}

// registeredDomain returns the registered domain of host (see ShardOf).
func registeredDomain(host string) (string, error) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return "", errNoHost
	}
	if net.ParseIP(host) != nil {
		return host, nil
	}
	if !isASCII(host) {
		if a, err := idna.Lookup.ToASCII(host); err == nil {
			host = a
		}
	}
	if !strings.Contains(host, ".") {
		return host, nil
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		// host is a public suffix itself (github.io) or malformed (a..b): it is its own site.
		return host, nil
	}
	return d, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// ParseShards parses a shard list such as "0-15,32,40-41" for a crawl of total shards
// and returns the shards it names in increasing order. Items are single shards or
// inclusive ranges, separated by commas; spaces around items are ignored. "all" names
// every shard 0..total-1. It returns an error for an empty list, a malformed item, a shard
// outside 0..total-1, a reversed range or a shard named twice.
func ParseShards(s string, total int) ([]int, error) {
	if total < 1 || total > MaxShards {
		return nil, fmt.Errorf("cluster: shard count %d out of range 1..%d", total, MaxShards)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("cluster: empty shard list")
	}
	if s == "all" {
		all := make([]int, total)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	seen := make([]bool, total)
	var out []int
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		lo, hi, err := parseRange(item, total)
		if err != nil {
			return nil, fmt.Errorf("cluster: shard list %q: %w", s, err)
		}
		for n := lo; n <= hi; n++ {
			if seen[n] {
				return nil, fmt.Errorf("cluster: shard list %q: shard %d named twice", s, n)
			}
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// parseRange parses "n" or "lo-hi" with every shard in 0..total-1.
func parseRange(item string, total int) (lo, hi int, err error) {
	if item == "" {
		return 0, 0, errors.New("empty item")
	}
	a, b, isRange := strings.Cut(item, "-")
	if lo, err = parseShard(strings.TrimSpace(a), total); err != nil {
		return 0, 0, err
	}
	if !isRange {
		return lo, lo, nil
	}
	if hi, err = parseShard(strings.TrimSpace(b), total); err != nil {
		return 0, 0, err
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("reversed range %q", item)
	}
	return lo, hi, nil
}

func parseShard(s string, total int) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a shard number", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n >= total {
		return 0, fmt.Errorf("shard %s out of range 0..%d", s, total-1)
	}
	return n, nil
}

// FormatShards returns shards (sorted, no duplicates) in ParseShards' syntax, ranges
// collapsed: [0 1 2 3 7] is "0-3,7". It returns "" for no shards.
func FormatShards(shards []int) string {
	var b strings.Builder
	for i := 0; i < len(shards); {
		j := i
		for j+1 < len(shards) && shards[j+1] == shards[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(shards[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(shards[j]))
		}
		i = j + 1
	}
	return b.String()
}
