// Package workload generates the URLs that the frontier benchmarks queue, and holds
// Memory, the in-memory frontier of maps and slices that they are measured against.
package workload

import (
	"strconv"

	"github.com/politecrawl/crawl/frontier"
)

// LinksPerPage is how many new links a fetched page yields in the benchmarks.
const LinksPerPage = 30

// Host returns the authority of host number i, such as "https://www.site00042.example".
func Host(i int) string {
	return string(appendHost(make([]byte, 0, 32), i))
}

func appendHost(b []byte, i int) []byte {
	b = append(b, "https://www.site"...)
	b = appendPadded(b, uint64(i), 5)
	return append(b, ".example"...)
}

// URL returns URL number n of host, about 75 bytes long with a five-digit host number.
// Distinct n give distinct URLs.
func URL(host string, n uint64) string {
	return string(appendPath(append(make([]byte, 0, len(host)+48), host...), n))
}

func appendPath(b []byte, n uint64) []byte {
	b = append(b, "/section-"...)
	b = strconv.AppendUint(b, n%16, 10)
	b = append(b, "/2026/"...)
	b = appendPadded(b, 1+n%12, 2)
	b = append(b, "/article-"...)
	b = strconv.AppendUint(b, n, 10)
	return append(b, ".html"...)
}

func appendPadded(b []byte, v uint64, width int) []byte {
	s := strconv.AppendUint(nil, v, 10)
	for range width - len(s) {
		b = append(b, '0')
	}
	return append(b, s...)
}

// Scatter maps n to a host number in [0, hosts), spreading consecutive n over hosts
// far apart.
func Scatter(n uint64, hosts int) int {
	return int((n * 2654435761) % uint64(hosts))
}

// Links appends to dst the links of the page parent, as a crawler queues them: n
// distinct URLs numbered from first, four in five on parent's host and the others on
// hosts scattered over [0, hosts), one level deeper, found on parent. The entries share
// parent.URL as FoundOn.
func Links(dst []frontier.Entry, parent *frontier.Entry, parentHost string, first uint64, n, hosts int) []frontier.Entry {
	for i := range n {
		id := first + uint64(i)
		host := parentHost
		if i%5 == 4 {
			host = Host(Scatter(id, hosts))
		}
		dst = append(dst, frontier.Entry{
			URL:     URL(host, id),
			Depth:   parent.Depth + 1,
			FoundOn: parent.URL,
		})
	}
	return dst
}

// Corpus numbers the URLs of a crawl over a fixed set of hosts: URL i is on host
// i%hosts, so that any first n URLs are spread evenly, and the URLs of a host come in
// groups of LinksPerPage found on one page, one level deeper, sharing the page's URL
// as FoundOn as a crawler's links do. A Corpus is not safe for simultaneous use.
type Corpus struct {
	hosts   []string
	parents []page // the last page of each host
}

type page struct {
	n   uint64
	url string
}

// NewCorpus returns the Corpus of hosts hosts, Host(0) to Host(hosts-1).
func NewCorpus(hosts int) *Corpus {
	c := &Corpus{hosts: make([]string, hosts), parents: make([]page, hosts)}
	for i := range c.hosts {
		c.hosts[i] = Host(i)
	}
	return c
}

// Append appends to dst the entries of URLs [from, to).
func (c *Corpus) Append(dst []frontier.Entry, from, to uint64) []frontier.Entry {
	n := uint64(len(c.hosts))
	for i := from; i < to; i++ {
		h := i % n
		p := &c.parents[h]
		if pn := parentBase | i/n/LinksPerPage; p.url == "" || p.n != pn {
			*p = page{pn, URL(c.hosts[h], pn)}
		}
		dst = append(dst, frontier.Entry{URL: URL(c.hosts[h], i), Depth: 2, FoundOn: p.url})
	}
	return dst
}

// parentBase numbers the pages that the URLs of a Corpus are found on, apart from
// the URLs themselves.
const parentBase = 1 << 40
