package cluster

import (
	"hash/fnv"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestRegisteredDomain(t *testing.T) {
	for _, tc := range []struct{ url, domain string }{
		{"https://example.com/", "example.com"},
		{"https://www.example.com/a", "example.com"},
		{"http://a.b.example.co.uk:8080/x", "example.co.uk"},
		{"https://EXAMPLE.co.UK./", "example.co.uk"},
		{"https://user:pw@Blog.Example.org/", "example.org"},
		{"https://someone.github.io/", "someone.github.io"},
		{"https://github.io/", "github.io"},
		{"http://127.0.0.1:8000/", "127.0.0.1"},
		{"http://[::1]:8000/", "::1"},
		{"http://localhost/", "localhost"},
		{"https://bücher.example/", "xn--bcher-kva.example"},
		{"https://www.xn--bcher-kva.example/", "xn--bcher-kva.example"},
		{"https://a..b/", "a..b"},
		{"https://example.com", "example.com"},
		{"https://example.com:443?q", "example.com"},
		{"https://example.com#f", "example.com"},
		{"https://Example.com/", "example.com"},
	} {
		for _, total := range []int{1, 7, 64, MaxShards} {
			h := fnv.New64a()
			h.Write([]byte(tc.domain))
			want := int(h.Sum64() % uint64(total))
			got, err := ShardOf(tc.url, total)
			if err != nil || got != want {
				t.Errorf("ShardOf(%q, %d):\n\tgot %d, %v\n\twant %d (domain %s)", tc.url, total, got, err, want, tc.domain)
			}
		}
	}
}

func TestShardOfErrors(t *testing.T) {
	for _, tc := range []struct {
		url   string
		total int
	}{
		{"https://example.com/", 0},
		{"https://example.com/", MaxShards + 1},
		{"/relative/path", 64},
		{"mailto:someone@example.com", 64},
		{"http://%zz/", 64},
		{"", 64},
	} {
		if got, err := ShardOf(tc.url, tc.total); err == nil || !strings.HasPrefix(err.Error(), "cluster: ") {
			t.Errorf("ShardOf(%q, %d) = %d, %v; want a cluster error", tc.url, tc.total, got, err)
		}
	}
}

// TestShardOfSpread: many sites spread over the shards (no shard is empty or holds
// more than twice its share).
func TestShardOfSpread(t *testing.T) {
	const total, sites = 16, 16000
	counts := make([]int, total)
	for i := range sites {
		s, err := ShardOf("https://www.site"+strconv.Itoa(i)+".com/", total)
		if err != nil {
			t.Fatal(err)
		}
		counts[s]++
	}
	for s, c := range counts {
		if c == 0 || c > 2*sites/total {
			t.Errorf("shard %d holds %d of %d sites", s, c, sites)
		}
	}
}

func TestParseShards(t *testing.T) {
	for _, tc := range []struct {
		in    string
		total int
		want  []int
	}{
		{"0", 1, []int{0}},
		{"0-3", 64, []int{0, 1, 2, 3}},
		{"0-15,32,40-41", 64, append(seq(0, 15), 32, 40, 41)},
		{" 40-41 , 32,0-1 ", 64, []int{0, 1, 32, 40, 41}},
		{"5-5", 8, []int{5}},
		{"all", 4, []int{0, 1, 2, 3}},
		{"63", 64, []int{63}},
		{"007", 8, []int{7}},
	} {
		got, err := ParseShards(tc.in, tc.total)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseShards(%q, %d):\n\tgot %v, %v\n\twant %v", tc.in, tc.total, got, err, tc.want)
		}
	}
}

func TestParseShardsErrors(t *testing.T) {
	for _, tc := range []struct {
		in    string
		total int
		want  string
	}{
		{"", 64, "empty shard list"},
		{"  ", 64, "empty shard list"},
		{"64", 64, "shard 64 out of range 0..63"},
		{"0-64", 64, "out of range"},
		{"-1", 64, `"" is not a shard number`},
		{"3-1", 64, "reversed range"},
		{"1,,2", 64, "empty item"},
		{"1,", 64, "empty item"},
		{"a", 64, `"a" is not a shard number`},
		{"1-2-3", 64, `"2-3" is not a shard number`},
		{"+1", 64, "not a shard number"},
		{"0-3,2", 64, "shard 2 named twice"},
		{"99999999999999999999", 64, "out of range"},
		{"0", 0, "shard count 0 out of range"},
		{"0", MaxShards + 1, "out of range"},
	} {
		got, err := ParseShards(tc.in, tc.total)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "cluster: ") {
			t.Errorf("ParseShards(%q, %d):\n\tgot %v, %v\n\twant error containing %q", tc.in, tc.total, got, err, tc.want)
		}
	}
}

func TestFormatShards(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{3}, "3"},
		{[]int{0, 1, 2, 3, 7}, "0-3,7"},
		{[]int{0, 2, 4, 5}, "0,2,4-5"},
	} {
		if got := FormatShards(tc.in); got != tc.want {
			t.Errorf("FormatShards(%v):\n\tgot %q\n\twant %q", tc.in, got, tc.want)
		}
	}
}

func seq(lo, hi int) []int {
	var out []int
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

// FuzzParseShards: ParseShards never panics; what it accepts is sorted, unique, in
// range, and survives FormatShards and a second parse unchanged.
func FuzzParseShards(f *testing.F) {
	for _, s := range []string{"0-15,32,40-41", "all", "1,,2", "3-1", "0-3,2", " 7 ", "99999999999999999999"} {
		f.Add(s, 64)
	}
	f.Fuzz(func(t *testing.T, s string, total int) {
		total = total%(MaxShards+2) - 1 // -1..MaxShards: some out of range
		got, err := ParseShards(s, total)
		if err != nil {
			return
		}
		if len(got) == 0 || !slices.IsSorted(got) || got[0] < 0 || got[len(got)-1] >= total {
			t.Fatalf("ParseShards(%q, %d) = %v", s, total, got)
		}
		for i := 1; i < len(got); i++ {
			if got[i] == got[i-1] {
				t.Fatalf("ParseShards(%q, %d) = %v: repeated shard", s, total, got)
			}
		}
		again, err := ParseShards(FormatShards(got), total)
		if err != nil || !slices.Equal(again, got) {
			t.Fatalf("ParseShards(FormatShards(%v)) = %v, %v", got, again, err)
		}
	})
}

// FuzzShardOf: ShardOf never panics, stays in range, and does not depend on case,
// port or userinfo.
func FuzzShardOf(f *testing.F) {
	for _, s := range []string{"https://www.example.co.uk/", "http://[::1]:80/", "http://bücher.example/", "x", "http://a..b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		s, err := ShardOf(raw, 64)
		if err != nil {
			return
		}
		if s < 0 || s >= 64 {
			t.Fatalf("ShardOf(%q) = %d", raw, s)
		}
		// The quick host agrees with url.Parse wherever both answer.
		if host, ok := quickHost(raw); ok {
			if u, err := url.Parse(raw); err == nil && u.Hostname() != host {
				t.Fatalf("quickHost(%q) = %q, url.Parse says %q", raw, host, u.Hostname())
			}
		}
	})
}

func TestQuickHost(t *testing.T) {
	for _, tc := range []struct {
		in   string
		host string
		ok   bool
	}{
		{"https://www.example.com/a/b?c#d", "www.example.com", true},
		{"http://example.com:8080", "example.com", true},
		{"http://example.com:8080?x", "example.com", true},
		{"http://127.0.0.1:80/", "127.0.0.1", true},
		{"http://Example.com/", "", false},
		{"http://u@example.com/", "", false},
		{"http://[::1]/", "", false},
		{"http://:80/", "", false},
		{"http://a:8b/", "", false},
		{"http://a:80:90/", "", false},
		{"HTTP://a/", "", false},
		{"//a/", "", false},
		{"a", "", false},
	} {
		host, ok := quickHost(tc.in)
		if host != tc.host || ok != tc.ok {
			t.Errorf("quickHost(%q):\n\tgot %q, %v\n\twant %q, %v", tc.in, host, ok, tc.host, tc.ok)
		}
		if ok {
			if u, err := url.Parse(tc.in); err != nil || u.Hostname() != host {
				t.Errorf("quickHost(%q) = %q; url.Parse: %v, %v", tc.in, host, u, err)
			}
		}
	}
}

// TestShardCache: the cache answers as ShardOf does, also for hosts that share a slot
// and for URLs it does not cache.
func TestShardCache(t *testing.T) {
	c := newShardCache(64)
	for round := range 2 { // the second round reads the cache
		for i := range 20000 {
			for _, u := range []string{
				"https://www.site" + strconv.Itoa(i) + ".co.uk/a",
				"http://site" + strconv.Itoa(i%100) + ".example.com:8080/",
				"https://User@Site" + strconv.Itoa(i%10) + ".org/", // not cached
			} {
				got, err := c.shardOf(u)
				want, werr := ShardOf(u, 64)
				if got != want || (err == nil) != (werr == nil) {
					t.Fatalf("round %d: cache says %d, %v for %q; ShardOf %d, %v", round, got, err, u, want, werr)
				}
			}
		}
	}
	if _, err := c.shardOf("http:///nohost"); err == nil {
		t.Error("URL without host: no error")
	}
}
