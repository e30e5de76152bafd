package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/politecrawl/crawl/crawltest"
)

// requisites crawls crawltest.RequisiteFarm with page requisites, first with the
// engine (in this process, min_delay requisitesDelay), then with Debian's wget
// (--recursive --page-requisites --warc-file, --wait requisitesDelay, robots.txt on,
// through the farm as its HTTP proxy so that the virtual hosts resolve), and puts
// side by side what each archived of the farm's requisites, its requests, its wall
// time and the politeness violations the farm's audit finds in its record.
func (b *bench) requisites(ctx context.Context, r *result) error {
	hosts, pages := 10, 30
	if b.opts.short {
		hosts, pages = 3, 5
	}
	const delay = 50 * time.Millisecond
	farm, err := crawltest.Start(crawltest.RequisiteFarm(hosts, pages)...)
	if err != nil {
		return err
	}
	defer farm.Close()
	var seeds []string
	for _, s := range farm.Seeds() {
		if !strings.HasPrefix(s, "http://cdn.test/") {
			seeds = append(seeds, s)
		}
	}
	want := hosts*(5+2*pages) + 1 // per host: 5 shared and 2 per page; cdn.test's logo once
	b.logf("requisites: %d hosts × %d pages, %d requisites to fetch, min_delay %v", hosts, pages, want, delay)
	audit := func(tool string) {
		rep := crawltest.Audit(farm, crawltest.AuditOptions{Agent: agent, MinDelay: delay, Tolerance: time.Millisecond, MinCoverage: 1})
		got := 0
		for _, q := range farm.Requests() {
			if q.Status == 200 && (strings.HasPrefix(q.Path, "/static/") || strings.HasPrefix(q.Path, "/img/") || q.Path == "/logo.png") {
				got++
			}
		}
		r.add(tool+" requisites", float64(got), fmt.Sprintf("%d of %d", got, want))
		r.add(tool+" requests", float64(rep.Requests+rep.RobotsRequests), fmtCount(int64(rep.Requests+rep.RobotsRequests)))
		r.add(tool+" actual time", rep.ActualTime.Seconds(), fmtDuration(rep.ActualTime))
		// Politeness violations by kind; wget's User-Agent, which lacks our product
		// token, is no politeness matter.
		byKind := map[crawltest.Kind]int{}
		n := 0
		for _, v := range rep.Violations {
			if v.Kind != crawltest.KindUserAgent {
				byKind[v.Kind]++
				n++
			}
		}
		text := fmt.Sprint(n)
		if n > 0 {
			text = fmt.Sprintf("%d %v", n, byKind)
		}
		r.add(tool+" violations", float64(n), text)
		if tool == "politecrawl" {
			if got != want {
				r.problem("politecrawl archived %d requisites, want %d", got, want)
			}
			if err := rep.Err(); err != nil {
				r.problem("politecrawl audit: %v", err)
			}
		}
		shown := 0
		for _, v := range rep.Violations {
			if v.Kind != crawltest.KindUserAgent && shown < 3 {
				b.logf("requisites: %s violation: %v", tool, v)
				shown++
			}
		}
	}

	j := crawlJobFor(farm, filepath.Join(b.dir, "requisites"), b.opts.workers, delay)
	j.Seeds = seeds
	var logs bytes.Buffer
	res, err := runEngine(ctx, j, &logs)
	if err != nil {
		return fmt.Errorf("%w: %s", err, lastLines(logs.String(), 3))
	}
	if !res.Complete {
		r.problem("crawl not complete: %s", res.Summary)
	}
	r.add("politecrawl wall", res.Wall.Seconds(), fmtDuration(res.Wall))
	audit("politecrawl")

	wget, err := exec.LookPath("wget")
	if err != nil {
		if b.opts.short {
			b.logf("requisites: wget not found, its side skipped (-short)")
		} else {
			r.problem("wget not found (Debian's wget package): %v", err)
		}
		return nil
	}
	farm.Reset()
	dir := filepath.Join(b.dir, "requisites-wget")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// wget reaches the farm's virtual hosts through a forward proxy that hands each
	// request to the farm in origin form, as a direct client sends it, so that the
	// farm's record and audit read it as they read the engine's.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	proxy := ln.Addr().String()
	srv := &http.Server{Handler: &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.Out.URL.Scheme, pr.Out.URL.Host = "http", farm.Addr()
		pr.Out.Host = pr.In.Host
	}}}
	go srv.Serve(ln)
	defer srv.Close()
	domains := "cdn.test"
	for h := range hosts {
		domains += fmt.Sprintf(",docs%d.test", h)
	}
	args := []string{"--recursive", "--level=inf", "--page-requisites", "--span-hosts", "--domains=" + domains,
		"--warc-file=" + filepath.Join(dir, "wget"), "--no-verbose", "--directory-prefix=" + filepath.Join(dir, "files"),
		fmt.Sprintf("--wait=%.3f", delay.Seconds()), "-e", "robots=on", "-e", "use_proxy=on"}
	cmd := exec.CommandContext(ctx, wget, append(args, seeds...)...)
	cmd.Env = append(os.Environ(), "http_proxy=http://"+proxy)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil && cmd.ProcessState == nil {
		return fmt.Errorf("wget: %w", err)
	}
	// wget exits 8 when a server answered an error (the 404s it asks for): not a failure here.
	r.add("wget wall", wall.Seconds(), fmtDuration(wall))
	audit("wget")
	return nil
}
