package crawltest

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

var gzPool = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// serve answers one request and records it.
func (f *Farm) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	f.handlers.Add(1)
	f.mu.Unlock()
	defer f.handlers.Done()
	if f.hook != nil {
		f.hook(r)
	}

	host := hostKey(r.Host)
	path := r.RequestURI
	if strings.HasPrefix(path, "http://") { // absolute form
		if h, p, ok := parseURL(path); ok {
			path = p
			if host == "" {
				host = h
			}
		}
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	status := f.respond(w, r, buf, host, path)
	n := buf.Len()
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes()) //nolint:errcheck // the client may be gone; the record says what was sent
	}
	if buf.Cap() <= 1<<20 {
		bufPool.Put(buf)
	}
	f.record(Request{
		Host: host, Path: path, Method: r.Method, UserAgent: r.UserAgent(),
		Cookie: r.Header.Get("Cookie"), Authorization: r.Header.Get("Authorization"),
		Status: status, Bytes: n, Start: start, End: time.Now(),
	})
}

// respond writes the headers for host+path and the body into buf, waits the
// latency, and returns the status.
func (f *Farm) respond(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer, host, path string) int {
	h := w.Header()
	s := f.hosts[host]
	if s == nil {
		buf.WriteString("crawltest: unknown host\n")
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(buf.Len()))
		w.WriteHeader(http.StatusMisdirectedRequest)
		return http.StatusMisdirectedRequest
	}
	if path == "/robots.txt" {
		return f.respondRobots(w, r, buf, s)
	}
	if s.Login != nil {
		if status, done := f.gate(w, r, buf, s, path); done {
			return status
		}
	}
	p := s.pages[normPath(path)]
	var latency time.Duration
	if p != nil {
		latency = p.Latency
	}
	wait(r.Context(), s.Latency+latency)
	if p == nil {
		buf.WriteString("<!DOCTYPE html>\n<title>404 Not Found</title><h1>Not Found</h1>\n")
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(buf.Len()))
		w.WriteHeader(http.StatusNotFound)
		return http.StatusNotFound
	}
	if p.Busy > 0 {
		if status, busy := f.busyAnswer(host, path, p); busy {
			if p.RetryAfter != "" {
				h.Set("Retry-After", p.RetryAfter)
			}
			buf.WriteString("busy\n")
			h.Set("Content-Type", "text/plain; charset=utf-8")
			h.Set("Content-Length", strconv.Itoa(buf.Len()))
			w.WriteHeader(status)
			return status
		}
	}
	status := pageStatus(p)
	if p.RedirectTo != "" && status/100 == 3 {
		h.Set("Location", p.RedirectTo)
	}
	for k, v := range p.Header {
		w.Header().Set(k, v)
	}
	if p.HeaderNoFollow {
		h.Set("X-Robots-Tag", "nofollow")
	}
	version := f.version(p)
	etag, lastMod := versioned(p, version)
	if status == http.StatusOK && !p.Sitemap && p.Bomb == 0 {
		if etag != "" {
			h.Set("ETag", etag)
		}
		if !lastMod.IsZero() {
			h.Set("Last-Modified", lastMod.UTC().Format(http.TimeFormat))
		}
		if notModified(r, etag, lastMod) {
			w.WriteHeader(http.StatusNotModified)
			return http.StatusNotModified
		}
	}
	ctype := p.ContentType
	switch {
	case p.Sitemap:
		f.renderSitemap(buf, s, path, p)
		if ctype == "" {
			ctype = "application/xml"
			if p.Gzip {
				ctype = "application/gzip"
			}
		}
		if p.Gzip {
			gzipBuf(buf)
		}
	case p.Bomb > 0:
		buf.Write(s.bombs[normPath(path)])
		h.Set("Content-Encoding", "gzip")
		if ctype == "" {
			ctype = "text/html; charset=utf-8"
		}
	default:
		renderPage(buf, s, path, p)
		if p.Changing {
			f.mu.Lock()
			if f.visits == nil {
				f.visits = make(map[string]int)
			}
			f.visits[s.host+normPath(path)]++
			n := f.visits[s.host+normPath(path)]
			f.mu.Unlock()
			buf.WriteString("<!-- visit " + strconv.Itoa(n) + " -->\n")
		}
		if p.ChangeEvery > 0 {
			buf.WriteString("<!-- version " + strconv.Itoa(version) + " -->\n")
		}
		if ctype == "" {
			ctype = "text/html; charset=utf-8"
		}
		if p.Gzip && acceptsGzip(r) {
			gzipBuf(buf)
			h.Set("Content-Encoding", "gzip")
		}
		if p.Gzip {
			h.Set("Vary", "Accept-Encoding")
		}
	}
	h.Set("Content-Type", ctype)
	if !p.NoLength {
		h.Set("Content-Length", strconv.Itoa(buf.Len()))
	}
	w.WriteHeader(status)
	return status
}

func (f *Farm) respondRobots(w http.ResponseWriter, r *http.Request, buf *bytes.Buffer, s *site) int {
	h := w.Header()
	rb := s.Robots
	if rb == nil {
		wait(r.Context(), s.Latency)
		buf.WriteString("not found\n")
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(buf.Len()))
		w.WriteHeader(http.StatusNotFound)
		return http.StatusNotFound
	}
	wait(r.Context(), s.Latency+rb.Latency)
	status := robotsStatus(rb)
	if status/100 == 3 && rb.RedirectTo != "" {
		h.Set("Location", rb.RedirectTo)
	} else if status/100 == 2 {
		buf.Write(s.robots)
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	return status
}

// robotsStatus is the status robots.txt answers.
func robotsStatus(rb *Robots) int {
	if rb.RedirectTo != "" && rb.Status/100 != 3 {
		return http.StatusMovedPermanently
	}
	if rb.Status == 0 {
		return http.StatusOK
	}
	return rb.Status
}

// pageStatus is the status a page answers.
// busyAnswer counts a request for a Page.Busy page and says whether it is answered
// busy, with which status.
func (f *Farm) busyAnswer(host, path string, p *Page) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.busy == nil {
		f.busy = make(map[string]int)
	}
	key := host + normPath(path)
	if f.busy[key] >= p.Busy {
		return 0, false
	}
	f.busy[key]++
	if p.Status == http.StatusTooManyRequests {
		return p.Status, true
	}
	return http.StatusServiceUnavailable, true
}

func pageStatus(p *Page) int {
	if p.Busy > 0 {
		return http.StatusOK
	}
	if p.RedirectTo != "" && p.Status/100 != 3 {
		return http.StatusMovedPermanently
	}
	if p.Status == 0 {
		return http.StatusOK
	}
	return p.Status
}

func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			part, q, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(part), "gzip") && strings.TrimSpace(strings.ReplaceAll(q, " ", "")) != "q=0" {
				return true
			}
		}
	}
	return false
}

// gzipBuf replaces buf's content by its gzip compression.
func gzipBuf(buf *bytes.Buffer) {
	plain := bufPool.Get().(*bytes.Buffer)
	plain.Reset()
	plain.Write(buf.Bytes())
	buf.Reset()
	zw := gzPool.Get().(*gzip.Writer)
	zw.Reset(buf)
	zw.Write(plain.Bytes()) //nolint:errcheck // writes to a bytes.Buffer do not fail
	zw.Close()              //nolint:errcheck // as above
	gzPool.Put(zw)
	bufPool.Put(plain)
}

// wait waits d or until ctx ends.
func wait(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// notModified reports whether a conditional request for a page with these
// validators may be answered 304 Not Modified (RFC 9110 section 13.2.2:
// If-None-Match wins over If-Modified-Since).
func notModified(r *http.Request, etag string, lastMod time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if etag == "" {
			return false
		}
		for _, tag := range strings.Split(inm, ",") {
			if tag = strings.TrimSpace(tag); tag == etag || tag == "*" {
				return true
			}
		}
		return false
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" || lastMod.IsZero() {
		return false
	}
	t, err := http.ParseTime(ims)
	return err == nil && !lastMod.Truncate(time.Second).After(t)
}

// version is p's version in the farm's current round (Page.ChangeEvery); 0 for
// a page that does not change by rounds.
func (f *Farm) version(p *Page) int {
	if p == nil || p.ChangeEvery <= 0 {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.round / p.ChangeEvery
}

// versioned returns p's validators at version v (Page.ChangeEvery).
func versioned(p *Page, v int) (etag string, lastMod time.Time) {
	etag, lastMod = p.ETag, p.LastModified
	if v == 0 {
		return etag, lastMod
	}
	if etag != "" {
		suffix := "-v" + strconv.Itoa(v)
		if q := strings.TrimSuffix(etag, `"`); len(q) < len(etag) && len(q) > 0 {
			etag = q + suffix + `"`
		} else {
			etag += suffix
		}
	}
	if !lastMod.IsZero() {
		lastMod = lastMod.Add(time.Duration(v) * time.Hour)
	}
	return etag, lastMod
}
