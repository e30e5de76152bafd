package crawl_test

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/frontier"
)

// TestRobotsMarkAfterConnect: a crawl stopped while its robots.txt fetch is still
// setting up its connection (here a TLS handshake the server never answers) leaves no
// mark of a fetch in progress: no request was written, the host cannot have answered,
// and the next run need not hold it back for max_delay. The mark was made durable
// before the connection was dialled, and a kill there held the host 60 s at the next
// start (crawlbench resume, killed at 3 s: 10 of 23 hosts held for a request the farm
// never saw).
func TestRobotsMarkAfterConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// The server reads the ClientHello and never answers it.
	hello := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 512)
				if n, _ := c.Read(buf); n > 0 {
					select {
					case hello <- struct{}{}:
					default:
					}
				}
				c.Read(buf) // until the client goes
			}()
		}
	}()
	dir := t.TempDir()
	cfg := farmConfig([]string{"https://stall.test/"}, map[string]string{"stall.test:443": ln.Addr().String()}, dir)
	cfg.Workers = 1
	cfg.Fetch.Timeout = config.Duration(time.Minute)
	cfg.Fetch.TLSTimeout = config.Duration(time.Minute)
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = testWriter{t}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan error, 1)
	go func() { ended <- c.Run(ctx) }()
	select {
	case <-hello:
	case err := <-ended:
		t.Fatalf("the crawl ended before its robots.txt fetch reached the server: %v", err)
	case <-time.After(crawlWait):
		t.Fatal("no connection reached the server")
	}
	cancel()
	<-ended

	f, err := frontier.Open(filepath.Join(dir, "frontier.db"), frontier.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := f.LoadRobots("https://stall.test")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"pending"`) {
		t.Errorf("robots.txt record after a stop during the TLS handshake: %s; want no fetch marked in progress", data)
	}
}
