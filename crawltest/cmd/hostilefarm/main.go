// Hostilefarm serves a crawltest farm of hostile sites on loopback until it is
// interrupted, and writes a crawl configuration for it, so that any build of the crawl
// command (an old one too) can be run against it and its peak memory measured from
// outside, for example with /usr/bin/time -v:
//
//	go run ./crawltest/cmd/hostilefarm -config /tmp/hostile.yaml &
//	/usr/bin/time -v crawl -config /tmp/hostile.yaml -data /tmp/d -progress none
//
// The farm holds -copies sites of each kind of crawltest.HostileSites (gzip bombs of
// -bomb bytes decoded, about 100 to 1; pages of -size bytes without Content-Length; one
// text run, deep nesting and tag soup of -size bytes), or only the kinds -kinds names,
// beside -normal ordinary sites of 20 pages (sent without Content-Length with -chunked).
// The configuration names every home page as a seed, maps the farm's host names to its
// address, allows loopback and sets a min_delay of 10ms; it uses only keys every build
// of the crawler knows.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "hostilefarm:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("hostilefarm", flag.ContinueOnError)
	configFile := fs.String("config", "hostile.yaml", "write the crawl configuration to this `file`")
	copies := fs.Int("copies", 2, "sites of each hostile kind")
	kinds := fs.String("kinds", strings.Join(crawltest.HostileKinds, ","), "comma-separated hostile `kinds` to serve")
	normal := fs.Int("normal", 50, "ordinary sites of 20 pages beside the hostile ones")
	chunked := fs.Bool("chunked", false, "send the ordinary pages without Content-Length")
	size := fs.String("size", "10MiB", "`bytes` of the hostile pages other than bombs")
	bomb := fs.String("bomb", "64MiB", "`bytes` a bomb decodes to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sz, err := config.ParseByteSize(*size)
	if err != nil {
		return fmt.Errorf("-size: %w", err)
	}
	bz, err := config.ParseByteSize(*bomb)
	if err != nil {
		return fmt.Errorf("-bomb: %w", err)
	}
	want := strings.Split(*kinds, ",")
	var sites []crawltest.Site
	for _, s := range crawltest.HostileSites(*copies, int(sz)) {
		kind, _, _ := strings.Cut(s.Host, "-")
		if !slices.Contains(want, kind) {
			continue
		}
		if kind == "bomb" {
			home := *s.Pages["/"]
			home.Bomb = int(bz)
			s.Pages = map[string]*crawltest.Page{"/": &home, "/next.html": s.Pages["/next.html"]}
		}
		sites = append(sites, s)
	}
	if *normal > 0 {
		sites = append(sites, crawltest.Generate(crawltest.GenerateOptions{
			Seed: 13, Hosts: *normal, PagesPerHost: 20, LinksPerPage: 10, PageSize: 20 << 10, NoLength: *chunked,
		})...)
	}
	if len(sites) == 0 {
		return fmt.Errorf("no site to serve")
	}
	farm, err := crawltest.Start(sites...)
	if err != nil {
		return err
	}
	defer farm.Close()

	var b strings.Builder
	b.WriteString("# Written by hostilefarm; valid while it runs.\nseeds:\n")
	for _, s := range farm.Seeds() {
		fmt.Fprintf(&b, "  - %s\n", s)
	}
	b.WriteString("politeness:\n  min_delay: 10ms\nnetwork:\n  allow_private: true\n  resolve:\n")
	for k, v := range farm.Resolve() {
		fmt.Fprintf(&b, "    %q: %q\n", k, v)
	}
	if err := os.WriteFile(*configFile, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "hostilefarm: %d sites on %s; configuration in %s\n", len(sites), farm.Addr(), *configFile)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	return nil
}
