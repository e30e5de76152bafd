package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/politecrawl/crawl"
)

// progressWidth is the width of the live progress line: an 80-column terminal.
const progressWidth = 80

// console writes the crawl's messages and its progress to stderr. In line mode it keeps
// one line rewritten in place with the crawl's progress, and clears it before any
// other message so that the message is not mixed into it. It is safe for concurrent
// use: the engine's workers report through it.
type console struct {
	mu   sync.Mutex
	w    io.Writer
	live bool // a progress line is shown and must be cleared first
}

// clearLine is the terminal's carriage return and erase-line sequence.
const clearLine = "\r\033[K"

// showLine replaces the live line with text.
func (c *console) showLine(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprint(c.w, clearLine+text)
	c.live = true
}

// println writes a message line, clearing the live line first.
func (c *console) println(a ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live {
		fmt.Fprint(c.w, clearLine)
		c.live = false
	}
	fmt.Fprintln(c.w, a...)
}

// clear removes the live line.
func (c *console) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live {
		fmt.Fprint(c.w, clearLine)
		c.live = false
	}
}

// Write lets the engine's log handler write through the console (a warning clears the
// live line first). Each call is one record.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live {
		fmt.Fprint(c.w, clearLine)
		c.live = false
	}
	return c.w.Write(p)
}

// showProgress renders the crawl's progress every interval until ctx ends: as a live
// line (asLine) or as a "progress:" line each time. The rate is over the interval.
func showProgress(ctx context.Context, c *crawl.Crawler, out *console, every time.Duration, asLine bool) {
	t := time.NewTicker(every)
	defer t.Stop()
	var last int64
	lastAt := time.Now()
	for {
		select {
		case <-ctx.Done():
			out.clear()
			return
		case now := <-t.C:
			p := c.Progress()
			if p == (crawl.Progress{}) {
				continue // not crawling yet
			}
			if since := now.Sub(lastAt); since > 0 {
				p.PagesPerSec = float64(p.Pages-last) / since.Seconds()
			}
			last, lastAt = p.Pages, now
			if asLine {
				out.showLine(p.Line(progressWidth))
			} else {
				out.println("progress: " + p.String())
			}
		}
	}
}

// permanentAdvice is what the command tells a user to do about a permanent failure,
// in its own flags where it has one.
func permanentAdvice(e *crawl.PermanentError) string {
	switch e.Cause {
	case crawl.AddressRefused:
		return "to crawl it, allow such addresses with -allow-private (network.allow_private: true)"
	case crawl.CertificateUntrusted:
		return "trust the site's CA with fetch.ca_file (in -config), or, knowing the risk, set fetch.insecure_skip_verify: true"
	case crawl.NoSuchHost:
		return "check the URL's host name"
	case crawl.NoCommonProtocol:
		return "a server that speaks HTTP/2 only needs fetch.http2: auto (in -config); with fetch.http2: on, one without HTTP/2 needs auto"
	}
	return ""
}
