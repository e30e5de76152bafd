package crawltest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/temoto/robotstxt"
	"golang.org/x/net/html"
)

// politeClient is a tiny, hand-written polite crawler used to check that the
// auditors pass good behaviour and that the sites' descriptions (Disallowed,
// Delay, links) agree with what an independent client finds. It reads
// robots.txt with github.com/temoto/robotstxt (a test oracle), HTML with
// golang.org/x/net/html and sitemaps with encoding/xml: none of the farm's
// code. It fetches one URL at a time per host and counts each host's delay
// from the end of the previous response. As a browser does, it asks each host
// it fetches an HTML page from for its /favicon.ico.
type politeClient struct {
	farm     *Farm
	client   *http.Client
	agent    string // the whole User-Agent
	token    string // its product token, for robots.txt groups
	minDelay time.Duration
}

type politeHost struct {
	queue      []string
	busy       bool
	ready      time.Time
	robotsDone bool
	blocked    bool
	group      *robotstxt.Group // nil: everything allowed
	delay      time.Duration
}

type politeResult struct {
	host     string
	end      time.Time
	found    []string // page URLs
	sitemaps []string // sitemap URLs
	robots   bool
	blocked  bool
	group    *robotstxt.Group
	delay    time.Duration
	err      error
}

func (c *politeClient) crawl(ctx context.Context, seeds []string) error {
	hosts := make(map[string]*politeHost)
	seen := make(map[string]bool)
	sitemap := make(map[string]bool)
	farmHosts := make(map[string]bool)
	for _, h := range c.farm.Hosts() {
		farmHosts[h] = true
	}
	add := func(raw string, isSitemap bool) {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" || !farmHosts[strings.ToLower(u.Host)] {
			return
		}
		u.Fragment = ""
		if u.Path == "" {
			u.Path = "/"
		}
		k := u.String()
		if seen[k] {
			return
		}
		seen[k] = true
		if isSitemap {
			sitemap[k] = true
		}
		h := strings.ToLower(u.Host)
		if hosts[h] == nil {
			hosts[h] = &politeHost{}
		}
		hosts[h].queue = append(hosts[h].queue, k)
	}
	for _, s := range seeds {
		add(s, false)
	}
	results := make(chan politeResult)
	inflight := 0
	for {
		now := time.Now()
		var wake time.Time
		for h, hs := range hosts {
			if hs.busy || (hs.robotsDone && len(hs.queue) == 0) {
				continue
			}
			if hs.ready.After(now) {
				if wake.IsZero() || hs.ready.Before(wake) {
					wake = hs.ready
				}
				continue
			}
			if !hs.robotsDone {
				hs.busy = true
				inflight++
				go func() { results <- c.fetchRobots(ctx, h) }()
				continue
			}
			if hs.blocked {
				hs.queue = nil
				continue
			}
			for len(hs.queue) > 0 {
				u := hs.queue[0]
				hs.queue = hs.queue[1:]
				if !allowedBy(hs.group, u) {
					continue
				}
				hs.busy = true
				inflight++
				// Read the loop's state here: the goroutine must not touch the
				// maps and host records this loop goes on writing.
				isSitemap, delay := sitemap[u], hs.delay
				go func() { results <- c.fetch(ctx, h, u, isSitemap, delay) }()
				break
			}
		}
		if inflight == 0 && wake.IsZero() {
			return nil
		}
		var (
			timer <-chan time.Time
			t     *time.Timer
		)
		if !wake.IsZero() {
			t = time.NewTimer(time.Until(wake))
			timer = t.C
		}
		stopTimer := func() {
			if t != nil {
				t.Stop()
			}
		}
		select {
		case r := <-results:
			stopTimer()
			inflight--
			if r.err != nil {
				return r.err
			}
			hs := hosts[r.host]
			hs.busy = false
			if r.robots {
				hs.robotsDone, hs.blocked, hs.group = true, r.blocked, r.group
				hs.delay = max(c.minDelay, r.delay)
			}
			hs.ready = r.end.Add(hs.delay)
			for _, u := range r.found {
				add(u, false)
			}
			for _, u := range r.sitemaps {
				add(u, true)
			}
		case <-timer:
		case <-ctx.Done():
			stopTimer()
			return ctx.Err()
		}
	}
}

// allowedBy checks the path both percent-encoded and decoded, because
// temoto/robotstxt does not normalise percent-encoding as RFC 9309 asks.
func allowedBy(g *robotstxt.Group, raw string) bool {
	if g == nil {
		return true
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	p := u.EscapedPath()
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	dp, err := url.PathUnescape(p)
	return g.Test(p) && (err != nil || g.Test(dp))
}

func (c *politeClient) get(ctx context.Context, u string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("User-Agent", c.agent)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, nil, err
		}
		r = zr
	}
	body, err := io.ReadAll(r)
	return resp, body, err
}

func (c *politeClient) fetchRobots(ctx context.Context, host string) politeResult {
	res := politeResult{host: host, robots: true}
	u := "http://" + host + "/robots.txt"
	for hops := 0; ; hops++ {
		resp, body, err := c.get(ctx, u)
		res.end = time.Now()
		if err != nil {
			res.blocked = true
			return res
		}
		switch s := resp.StatusCode; {
		case s >= 200 && s < 300:
			data, err := robotstxt.FromBytes(body)
			if err != nil {
				res.err = err
				return res
			}
			res.group = data.FindGroup(c.token)
			res.delay = res.group.CrawlDelay
			res.sitemaps = data.Sitemaps
			return res
		case s >= 300 && s < 400 && hops < maxRobotsRedirects:
			next, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
			if err != nil {
				res.blocked = true
				return res
			}
			u = next.String()
		case s >= 400 && s < 500 && s != http.StatusTooManyRequests:
			return res
		default:
			res.blocked = true
			return res
		}
	}
}

func (c *politeClient) fetch(ctx context.Context, host, u string, isSitemap bool, delay time.Duration) politeResult {
	res := politeResult{host: host}
	resp, body, err := c.get(ctx, u)
	res.end = time.Now()
	if err != nil {
		res.err = err
		return res
	}
	base := resp.Request.URL
	switch {
	case resp.StatusCode/100 == 3:
		if next, err := base.Parse(resp.Header.Get("Location")); err == nil {
			res.found = append(res.found, next.String())
		}
	case resp.StatusCode/100 != 2:
	case isSitemap:
		if bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				res.err = err
				return res
			}
			if body, err = io.ReadAll(zr); err != nil {
				res.err = err
				return res
			}
		}
		var sm struct {
			URLs []struct {
				Loc string `xml:"loc"`
			} `xml:"url"`
			Sitemaps []struct {
				Loc string `xml:"loc"`
			} `xml:"sitemap"`
		}
		if err := xml.Unmarshal(body, &sm); err != nil {
			res.err = err
			return res
		}
		for _, e := range sm.URLs {
			res.found = append(res.found, strings.TrimSpace(e.Loc))
		}
		for _, e := range sm.Sitemaps {
			res.sitemaps = append(res.sitemaps, strings.TrimSpace(e.Loc))
		}
	case strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html"):
		// A requisite, not a link: nofollow does not keep it.
		res.found = append(res.found, "http://"+host+"/favicon.ico")
		if strings.Contains(strings.ToLower(resp.Header.Get("X-Robots-Tag")), "nofollow") {
			break
		}
		links, nofollow := htmlLinks(body)
		if nofollow {
			break
		}
		for _, l := range links {
			if next, err := base.Parse(l); err == nil {
				res.found = append(res.found, next.String())
			}
		}
	}
	return res
}

// htmlLinks returns the hrefs of <a> elements without rel=nofollow and
// whether a <meta name=robots> says nofollow.
func htmlLinks(body []byte) (links []string, nofollow bool) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, false
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			attr := func(k string) string {
				for _, a := range n.Attr {
					if a.Key == k {
						return a.Val
					}
				}
				return ""
			}
			switch n.Data {
			case "a":
				if href := attr("href"); href != "" && !strings.Contains(attr("rel"), "nofollow") {
					links = append(links, href)
				}
			case "meta":
				if strings.EqualFold(attr("name"), "robots") && strings.Contains(strings.ToLower(attr("content")), "nofollow") {
					nofollow = true
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return links, nofollow
}

const testAgent = "politecrawl/0.1 (+https://example.test/bot)"

func TestPoliteClientPassesDemo(t *testing.T) {
	f := startFarm(t, DemoSites()...)
	const minDelay = 10 * time.Millisecond
	c := &politeClient{farm: f, client: f.Client(), agent: testAgent, token: DemoAgent, minDelay: minDelay}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.crawl(ctx, f.Seeds()); err != nil {
		t.Fatal(err)
	}
	rep := Audit(f, AuditOptions{Agent: DemoAgent, MinDelay: minDelay, Tolerance: time.Millisecond, MinCoverage: 1, Icons: true})
	if err := rep.Err(); err != nil {
		t.Fatalf("%v\nmissing %q\nunexpected %q", err, rep.Missing, rep.Unexpected)
	}
	if rep.Coverage != 1 || rep.Duplicates != 0 || len(rep.Unexpected) != 0 {
		t.Errorf("coverage %v, duplicates %d, unexpected %q: want 1, 0, none", rep.Coverage, rep.Duplicates, rep.Unexpected)
	}
	if want := len(f.ExpectedIcons()); rep.Icons != want || len(rep.MissingIcons) != 0 {
		t.Errorf("Icons = %d, missing %q: want %d, none", rep.Icons, rep.MissingIcons, want)
	}
	if rep.SmallestGapRatio < 1 {
		t.Errorf("SmallestGapRatio = %v, want >= 1", rep.SmallestGapRatio)
	}
	wantRobots := len(f.ExpectedRobots())
	if rep.RobotsRequests != wantRobots {
		t.Errorf("RobotsRequests = %d, want %d", rep.RobotsRequests, wantRobots)
	}
	t.Logf("%d requests, ideal %v, actual %v, efficiency %.2f", rep.Requests, rep.IdealTime, rep.ActualTime, rep.Efficiency())
}
