package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/frontier/workload"
)

// hostile crawls, each in a child process so that the peak RSS (VmHWM) is the
// crawler's alone, a farm of hostile sites beside ordinary ones, then a farm of bomb
// hosts only, all fetched at once (issue 13.4).
func (b *bench) hostile(ctx context.Context, r *result) error {
	s := b.opts.size
	judge := !b.opts.short
	farms := []struct {
		name  string
		sites []crawltest.Site
		goal  string
		limit int64
	}{
		{"hostile farm", hostileSites(s.hostileCopies, s.hostileSize, s.hostileBomb, crawltest.HostileKinds), "≤ 100 MB", 100e6},
		{"bombs", hostileSites(s.bombHosts, s.hostileSize, s.hostileBomb, []string{"bomb"}), "≤ 150 MB", 150e6},
	}
	farms[0].sites = append(farms[0].sites, crawltest.Generate(crawltest.GenerateOptions{
		Seed: 13, Hosts: s.hostileNormal, PagesPerHost: 20, LinksPerPage: 10, PageSize: 20 << 10,
	})...)
	for i, f := range farms {
		farm, err := crawltest.Start(f.sites...)
		if err != nil {
			return err
		}
		b.logf("hostile: %s, %d sites (bombs of %s, other hostile pages of %s)", f.name, len(f.sites),
			workload.FormatBytes(float64(s.hostileBomb)), workload.FormatBytes(float64(s.hostileSize)))
		j := &job{Kind: "crawl", Crawl: crawlJobFor(farm, filepath.Join(b.dir, fmt.Sprintf("hostile-%d", i)), b.opts.workers, 10*time.Millisecond)}
		res, err := b.runChildJob(ctx, j)
		farm.Close()
		if err != nil {
			return err
		}
		if !res.Complete {
			r.problem("%s: crawl not complete: %s", f.name, res.Summary)
		}
		r.goal(f.name+" peak RSS", float64(res.PeakRSS), workload.FormatBytes(float64(res.PeakRSS)), f.goal, res.PeakRSS <= f.limit, judge && res.PeakRSS > 0)
		r.add(f.name+" pages", float64(res.Pages), fmtCount(res.Pages))
	}
	return nil
}

// hostileSites returns copies sites of each of kinds, of size bytes, bombs decoding to
// bomb bytes.
func hostileSites(copies, size, bomb int, kinds []string) []crawltest.Site {
	var out []crawltest.Site
	for _, s := range crawltest.HostileSites(copies, size) {
		for _, k := range kinds {
			if !strings.HasPrefix(s.Host, k+"-") {
				continue
			}
			if k == "bomb" {
				home := *s.Pages["/"]
				home.Bomb = bomb
				s.Pages = map[string]*crawltest.Page{"/": &home, "/next.html": s.Pages["/next.html"]}
			}
			out = append(out, s)
		}
	}
	return out
}
