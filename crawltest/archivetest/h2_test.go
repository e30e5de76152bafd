package archivetest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// h2Site links only relatively, so that a crawl from its https seed stays on
// the farm's HTTP/2 listener.
var h2Site = crawltest.Site{
	Host:   "h2.test",
	Robots: &crawltest.Robots{Body: "User-agent: *\nAllow: /\n"},
	Pages: map[string]*crawltest.Page{
		"/":            {Links: []string{"/news.html", "/zipped.html"}},
		"/news.html":   {Links: []string{"/"}, Size: 12000},
		"/zipped.html": {Links: []string{"/"}, Gzip: true, Size: 30000},
	},
}

// h2Crawl crawls h2Site over HTTP/2 only (HTTP/1.1 refused at ALPN) into a new
// directory, with a WACZ.
func h2Crawl(t *testing.T) string {
	t.Helper()
	farm, err := crawltest.Start(h2Site)
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()
	ca, err := farm.ServeHTTP2()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.DataDir = filepath.Join(dir, "crawl")
	cfg.Seeds = []string{"https://h2.test/"}
	cfg.Politeness.MinDelay = config.Duration(20 * time.Millisecond)
	cfg.Network.AllowPrivate = true
	cfg.Network.Resolve = farm.ResolveHTTPS()
	cfg.Fetch.CAFile = caFile
	cfg.Fetch.HTTP2 = "on"
	cfg.Storage.WACZ = true
	c, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if s := c.Summary(); s.Pages < 3 {
		t.Fatalf("%d pages crawled over HTTP/2, want 3", s.Pages)
	}
	return cfg.DataDir
}

// TestHTTP2Archive: the records of an HTTP/2 crawl (HTTP/1.1 form, WARC-Protocol
// h2 and tls/1.3) are indexed by warcio as by us, record by record, and
// ReplayWeb.page replays its front page in Chromium.
func TestHTTP2Archive(t *testing.T) {
	dir := h2Crawl(t)
	if departures := warcioAgrees(t, dir); len(departures) != 0 {
		t.Errorf("key departures %v, want none", departures)
	}
	base, b := replayer(t, filepath.Join(dir, crawl.WACZName))
	frame := replay(t, b, base, "https://h2.test/", "", "h2.test/", "h2.test/news.html", filepath.Join(artefacts(t), "replay-h2.png"))
	if !strings.Contains(frame, "h2.test") {
		t.Errorf("replayed frame %s", frame)
	}
}
