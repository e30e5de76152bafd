package replaycheck

import (
	"archive/zip"
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Sample returns up to perHost pages of each host listed in the WACZ's
// pages/pages.jsonl, spread evenly over each host's pages in URL order (the
// first included), hosts in name order: the same sample every time.
func Sample(wacz string, perHost int) ([]string, error) {
	z, err := zip.OpenReader(wacz)
	if err != nil {
		return nil, fmt.Errorf("replaycheck: %w", err)
	}
	defer z.Close()
	f, err := z.Open("pages/pages.jsonl")
	if err != nil {
		return nil, fmt.Errorf("replaycheck: %s: %w", wacz, err)
	}
	defer f.Close()
	byHost := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var line struct{ URL string }
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.URL == "" {
			continue // the header, or not a page
		}
		u, err := url.Parse(line.URL)
		if err != nil {
			continue
		}
		byHost[u.Host] = append(byHost[u.Host], line.URL)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replaycheck: %s: pages/pages.jsonl: %w", wacz, err)
	}
	hosts := make([]string, 0, len(byHost))
	for h := range byHost {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	var out []string
	for _, h := range hosts {
		us := byHost[h]
		sort.Strings(us)
		out = append(out, spread(us, perHost)...)
	}
	return out, nil
}

// spread picks n of s at even steps, the first included (all of s when n >= len(s)).
func spread(s []string, n int) []string {
	if n >= len(s) {
		return s
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, s[i*len(s)/n])
	}
	return out
}

// readIndex reads the WACZ's indexes/index.cdxj: the status of each URL's
// captures, the best (lowest of 200-399, else the first) kept; a revisit counts as
// the status it records.
func readIndex(wacz string) (map[string]int, error) {
	z, err := zip.OpenReader(wacz)
	if err != nil {
		return nil, fmt.Errorf("replaycheck: %w", err)
	}
	defer z.Close()
	f, err := z.Open("indexes/index.cdxj")
	if err != nil {
		return nil, fmt.Errorf("replaycheck: %s: %w", wacz, err)
	}
	defer f.Close()
	index := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		_, rest, _ := strings.Cut(sc.Text(), " ")
		_, js, _ := strings.Cut(rest, " ")
		var line struct{ URL, Status string }
		if json.Unmarshal([]byte(js), &line) != nil || line.URL == "" {
			continue
		}
		status, _ := strconv.Atoi(line.Status)
		k := key(line.URL)
		if old, ok := index[k]; !ok || status >= 200 && status < 400 && (old < 200 || old >= 400) {
			index[k] = status
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replaycheck: %s: indexes/index.cdxj: %w", wacz, err)
	}
	return index, nil
}
