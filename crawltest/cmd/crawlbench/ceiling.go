package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/politecrawl/crawl/internal/procstat"

	"github.com/PuerkitoBio/goquery"
)

// The ceiling is the least work a crawler can do to fetch the farm: for every host a
// GET of /robots.txt (read, not parsed), then a breadth-first crawl from the seeds with
// net/http, links found by goquery, resolved with net/url and kept in a map — no
// politeness, no robots.txt rules, no canonical form, no storage, nothing on disk. It
// runs as many workers as the crawler, on the same farm, in its own process.

// ceilingUserAgent is sent by the ceiling; the audit never sees it.
const ceilingUserAgent = "crawlbench-ceiling/1.0"

// ceilingMaxBody bounds a body read by the ceiling, as the crawler's default does.
const ceilingMaxBody = 10 << 20

func runCeiling(ctx context.Context, j *crawlJob) (*childResult, error) {
	hosts := make(map[string]bool, len(j.Seeds))
	q := &workQueue{seen: make(map[string]struct{}, len(j.Seeds)*16)}
	q.cond = sync.NewCond(&q.mu)
	for _, s := range j.Seeds {
		u, err := url.Parse(s)
		if err != nil {
			return nil, err
		}
		hosts[u.Host] = true
		q.push(u.Scheme + "://" + u.Host + "/robots.txt")
		q.push(s)
	}
	var dialer net.Dialer
	client := &http.Client{
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return dialer.DialContext(ctx, "tcp", j.FarmAddr)
			},
			MaxIdleConns:        8192,
			MaxIdleConnsPerHost: 2,
			MaxConnsPerHost:     2,
			IdleConnTimeout:     90 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       time.Minute,
	}

	var (
		pages, links atomic.Int64
		errMu        sync.Mutex
		firstErr     error
		wg           sync.WaitGroup
	)
	cpu0, start := procstat.CPUTime(), time.Now()
	for range j.Workers {
		wg.Go(func() {
			for {
				raw, ok := q.pop()
				if !ok {
					return
				}
				found, err := ceilingFetch(ctx, client, raw, hosts)
				if err != nil {
					errMu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					errMu.Unlock()
					q.abort()
					return
				}
				if !strings.HasSuffix(raw, "/robots.txt") {
					pages.Add(1)
					links.Add(int64(len(found)))
				}
				q.finish(found)
			}
		})
	}
	wg.Wait()
	r := &childResult{Wall: time.Since(start), CPU: procstat.CPUTime() - cpu0, Pages: pages.Load(), Links: links.Load()}
	if firstErr != nil {
		return nil, firstErr
	}
	r.Complete = true
	return r, nil
}

// ceilingFetch GETs raw and returns the links of an HTML page to hosts in scope.
func ceilingFetch(ctx context.Context, client *http.Client, raw string, hosts map[string]bool) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", ceilingUserAgent)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, ceilingMaxBody))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", raw, err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		return nil, nil
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil, nil
	}
	base := resp.Request.URL
	var found []string
	doc.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		u, err := base.Parse(strings.TrimSpace(href))
		if err != nil || u.Scheme != "http" || !hosts[u.Host] {
			return
		}
		u.Fragment = ""
		found = append(found, u.String())
	})
	return found, nil
}

// workQueue is the ceiling's frontier: a FIFO of URLs, a seen set and a count of URLs
// being worked on, so that workers know when the crawl is over.
type workQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []string
	seen    map[string]struct{}
	busy    int // URLs popped and not finished
	aborted bool
}

// push queues u unless it was seen before. q.mu must not be held.
func (q *workQueue) push(u string) {
	q.mu.Lock()
	q.add(u)
	q.mu.Unlock()
}

func (q *workQueue) add(u string) {
	if _, ok := q.seen[u]; ok {
		return
	}
	q.seen[u] = struct{}{}
	q.items = append(q.items, u)
	q.cond.Signal()
}

// pop returns the next URL, waiting while other workers may still find some; ok is
// false when the crawl is over.
func (q *workQueue) pop() (u string, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && q.busy > 0 && !q.aborted {
		q.cond.Wait()
	}
	if len(q.items) == 0 || q.aborted {
		return "", false
	}
	u = q.items[0]
	q.items[0] = ""
	q.items = q.items[1:]
	q.busy++
	return u, true
}

// finish queues the links found on a popped URL and marks it done.
func (q *workQueue) finish(found []string) {
	q.mu.Lock()
	for _, u := range found {
		q.add(u)
	}
	q.busy--
	if q.busy == 0 && len(q.items) == 0 {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
}

// abort ends the crawl after an error.
func (q *workQueue) abort() {
	q.mu.Lock()
	q.aborted = true
	q.cond.Broadcast()
	q.mu.Unlock()
}
