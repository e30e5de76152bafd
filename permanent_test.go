package crawl_test

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
)

// nxdomainResolver answers every DNS query with "no such name" (NXDOMAIN), in-process:
// no query leaves the test.
func nxdomainResolver(queries *atomic.Int32) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		queries.Add(1)
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			for { // DNS over a stream: a 2-byte length, then the message
				var n [2]byte
				if _, err := io.ReadFull(server, n[:]); err != nil {
					return
				}
				msg := make([]byte, binary.BigEndian.Uint16(n[:]))
				if _, err := io.ReadFull(server, msg); err != nil || len(msg) < 12 {
					return
				}
				// The query back as the answer: response, recursion available,
				// RCODE 3 (NXDOMAIN), no answer records.
				msg[2] = 0x80 | msg[2]&0x01
				msg[3] = 0x80 | 3
				if _, err := server.Write(append(n[:], msg...)); err != nil {
					return
				}
			}
		}()
		return client, nil
	}}
}

// TestSeedNameDoesNotExist: a seed whose host name does not exist fails at once, with a
// warning on stderr, an error in the summary, and a failed run.
func TestSeedNameDoesNotExist(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Seeds = []string{"http://no-such-host.invalid/"}
	var queries atomic.Int32
	cfg.Network.Resolver = nxdomainResolver(&queries)
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	// The deadline only keeps a regression from hanging the test run: the crawl used
	// to retry robots.txt for minutes.
	ctx, cancel := context.WithTimeout(context.Background(), crawlWait)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	sum := c.Summary()
	t.Logf("stderr:\n%s\nsummary:\n%s", stderr.String(), sum)
	if !sum.NothingFetched() || sum.Errors != 1 || sum.RobotsFetched != 0 {
		t.Errorf("summary: failed %v, %d errors, %d robots.txt fetched; want failed, 1, 0\n%s", sum.NothingFetched(), sum.Errors, sum.RobotsFetched, sum)
	}
	if queries.Load() == 0 {
		t.Error("the resolver hook was never asked")
	}
	if !strings.Contains(stderr.String(), "host name does not exist") || !strings.Contains(stderr.String(), "no-such-host.invalid") {
		t.Errorf("stderr does not say the name does not exist:\n%s", stderr.String())
	}
}
