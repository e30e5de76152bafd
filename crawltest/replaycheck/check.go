// Package replaycheck measures how a web archive replays against the live site: it
// loads each sampled page live and replayed from a WACZ in ReplayWeb.page, both under
// headless Chromium, and reports the distinct subresources the browser loaded live,
// how many of them the archive answered in replay, and how far the two screenshots
// differ. crawltest/cmd/replaycheck runs it on real sites; crawltest/archivetest on
// the farm.
package replaycheck

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/politecrawl/crawl/crawltest/cdp"
)

// Options says where the tools are and how to compare.
type Options struct {
	Chromium      string // Chromium's path; "" is /usr/bin/chromium
	ReplayWebPage string // the directory of npm's replaywebpage (its ui.js and sw.js)
	WACZ          string // the archive to replay

	// HostRules is Chromium's --host-resolver-rules for the live loads, such as
	// "MAP *.test 127.0.0.29" ("" resolves as the system does).
	HostRules string

	// Width and Height are the replay tab's size in CSS pixels (0: 1280 and 1000);
	// the live page is loaded at the size of the replayed page's frame in it.
	Width, Height int

	// Tolerance is the largest difference of a colour channel (0-255) for which
	// two pixels count as the same (anti-aliasing); 0 counts every difference.
	Tolerance int

	// Quiet is how long the network must be idle after the load event before the
	// page counts as shown (0: one second).
	Quiet time.Duration

	// PageTimeout bounds each load (0: two minutes).
	PageTimeout time.Duration

	// Shots is a directory to keep each page's two screenshots in ("" keeps none).
	Shots string

	// Log, when not nil, gets a line per page as it is done.
	Log io.Writer
}

// Page is what was measured of one page.
type Page struct {
	URL string `json:"url"`
	// Live are the distinct subresources the browser loaded live (answers below
	// 400); LiveFailed those it asked for and did not get, left out of the count.
	Live       []Resource `json:"live"`
	LiveFailed []Resource `json:"live_failed,omitempty"`
	// Answered counts the Live URLs the archive answered in replay (below 400);
	// Missing lists the others, each with what replay got.
	Answered int      `json:"answered"`
	Missing  []string `json:"missing,omitempty"`
	// Icons are the page's icons the browser loaded live for its tab (a
	// <link rel=icon>, else /favicon.ico), left out of Live: a replayed page is in
	// a frame, which asks for no icon. IconsArchived counts those the WACZ's
	// index holds with a status below 400.
	Icons         []Resource `json:"icons,omitempty"`
	IconsArchived int        `json:"icons_archived"`
	// Replayed are the distinct original URLs the replayed page asked the archive
	// for, with its answers.
	Replayed []Resource `json:"replayed,omitempty"`
	// Diff is the fraction of the screenshot's pixels that differ live and in
	// replay (see Options.Tolerance); NonWhiteLive and NonWhiteReplay the
	// fraction of pixels that are not white in each.
	Diff           float64 `json:"diff"`
	NonWhiteLive   float64 `json:"non_white_live"`
	NonWhiteReplay float64 `json:"non_white_replay"`
	Width          int     `json:"width"`
	Height         int     `json:"height"`
	ReplayType     string  `json:"replay_content_type"` // document.contentType of the replayed page
	// Err says why the page was not measured ("" when it was).
	Err string `json:"error,omitempty"`
}

// Check starts Chromium and a loopback server of ReplayWeb.page and the WACZ, and
// measures each of pages. A page that does not load live or replayed has its Err
// set; Check fails only when the tools cannot start.
func Check(ctx context.Context, opts Options, pages []string) ([]Page, error) {
	if opts.Chromium == "" {
		opts.Chromium = "/usr/bin/chromium"
	}
	if opts.Width == 0 {
		opts.Width = 1280
	}
	if opts.Height == 0 {
		opts.Height = 1000
	}
	if opts.Quiet == 0 {
		opts.Quiet = time.Second
	}
	if opts.PageTimeout == 0 {
		opts.PageTimeout = 2 * time.Minute
	}
	for _, p := range []string{opts.Chromium, filepath.Join(opts.ReplayWebPage, "sw.js"), opts.WACZ} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("replaycheck: %w", err)
		}
	}
	index, err := readIndex(opts.WACZ)
	if err != nil {
		return nil, err
	}
	base, stop, err := serveReplay(opts.ReplayWebPage, opts.WACZ)
	if err != nil {
		return nil, err
	}
	defer stop()
	profile, err := os.MkdirTemp("", "replaycheck-profile-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	flags := []string{"--hide-scrollbars", fmt.Sprintf("--window-size=%d,%d", opts.Width, opts.Height)}
	if opts.HostRules != "" {
		// The replay server is on 127.0.0.1 and must stay reachable.
		flags = append(flags, "--host-resolver-rules="+opts.HostRules+", EXCLUDE 127.0.0.1")
	}
	var stderr strings.Builder
	b, err := cdp.Start(opts.Chromium, profile, flags, &stderr)
	if err != nil {
		return nil, fmt.Errorf("replaycheck: start chromium: %w", err)
	}
	defer b.Close()
	if opts.Shots != "" {
		if err := os.MkdirAll(opts.Shots, 0o755); err != nil {
			return nil, err
		}
	}
	var out []Page
	for i, u := range pages {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		p := checkPage(ctx, b, opts, base, u, i, index)
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "%s: %d of %d subresources answered, %.4f of pixels differ, replayed as %s%s\n",
				p.URL, p.Answered, len(p.Live), p.Diff, p.ReplayType, errSuffix(p.Err))
		}
		out = append(out, p)
	}
	return out, nil
}

func errSuffix(err string) string {
	if err == "" {
		return ""
	}
	return "; " + err
}

// serveReplay serves ReplayWeb.page's files from dir and the WACZ as /crawl.wacz on
// loopback (with Range, as ReplayWeb.page reads a package in place).
func serveReplay(dir, wacz string) (base string, stop func(), err error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/crawl.wacz", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, wacz) })
	mux.Handle("/", http.FileServer(http.Dir(dir)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// checkPage measures one page: replayed first, to learn the size of the replayed
// frame, then live at that size.
func checkPage(ctx context.Context, b *cdp.Browser, opts Options, base, target string, n int, index map[string]int) Page {
	p := Page{URL: target}
	ctx, cancel := context.WithTimeout(ctx, opts.PageTimeout)
	defer cancel()
	r, err := loadReplay(ctx, b, opts, base, target)
	if err != nil {
		p.Err = "replay: " + err.Error()
		return p
	}
	p.ReplayType, p.Width, p.Height = r.state.Type, r.state.Width, r.state.Height
	for _, res := range r.asked {
		p.Replayed = append(p.Replayed, res)
	}
	sort.Slice(p.Replayed, func(i, j int) bool { return p.Replayed[i].URL < p.Replayed[j].URL })
	l, err := loadLive(ctx, b, opts, target, r.state.Width, r.state.Height)
	if err != nil {
		p.Err = "live: " + err.Error()
		return p
	}
	p.account(l, r.asked, index)
	d, err := compare(l.shot, r.shot, opts.Tolerance)
	if err != nil {
		p.Err = err.Error()
		return p
	}
	p.Diff, p.NonWhiteLive, p.NonWhiteReplay = d.diff, d.nonWhiteA, d.nonWhiteB
	if opts.Shots != "" {
		name := fmt.Sprintf("%03d-%s", n, shotName(target))
		os.WriteFile(filepath.Join(opts.Shots, name+"-live.png"), l.shot, 0o644)
		os.WriteFile(filepath.Join(opts.Shots, name+"-replay.png"), r.shot, 0o644)
	}
	return p
}

// replayed is what loadReplay saw of a page.
type replayed struct {
	shot  []byte              // the replayed page's frame, as PNG
	state frameState          // the frame's
	asked map[string]Resource // what it asked the archive for, by key of the original URL: the best answer
}

// loadReplay replays target in ReplayWeb.page at base in a new tab of opts' size.
func loadReplay(ctx context.Context, b *cdp.Browser, opts Options, base, target string) (*replayed, error) {
	t, err := openTab(ctx, b, opts.Width, opts.Height)
	if err != nil {
		return nil, err
	}
	defer t.close()
	t.net.mu.Lock()
	t.net.counts = func(u string) bool { _, _, ok := replayedURL(u); return ok }
	t.net.mu.Unlock()
	page := base + "/?source=" + url.QueryEscape(base+"/crawl.wacz") + "#view=replay&url=" + url.QueryEscape(target)
	if err := t.navigate(ctx, page); err != nil {
		return nil, err
	}
	_, st, err := t.waitLoaded(ctx, func(u string) bool {
		orig, mod, ok := replayedURL(u)
		return ok && mod == "mp_" && sameURL(orig, target)
	}, opts.Quiet)
	if err != nil {
		return nil, err
	}
	shot, err := t.screenshot(ctx, st.X, st.Y, st.Width, st.Height)
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	r := &replayed{shot: shot, state: st, asked: map[string]Resource{}}
	for _, res := range t.net.resources() {
		orig, mod, ok := replayedURL(res.URL)
		if !ok || (mod == "mp_" && sameURL(orig, target)) {
			continue
		}
		k := key(orig)
		if old, seen := r.asked[k]; !seen || (!old.ok() && res.ok()) {
			res.URL = orig
			r.asked[k] = res
		}
	}
	return r, nil
}

// live is what loadLive saw of a page.
type live struct {
	shot      []byte
	resources []Resource      // what it loaded
	icons     map[string]bool // by key, the URLs of the icons the browser may ask for
}

// loadLive loads target in a new tab of width×height.
func loadLive(ctx context.Context, b *cdp.Browser, opts Options, target string, width, height int) (*live, error) {
	t, err := openTab(ctx, b, width, height)
	if err != nil {
		return nil, err
	}
	defer t.close()
	if err := t.navigate(ctx, target); err != nil {
		return nil, err
	}
	_, st, err := t.waitLoaded(ctx, func(u string) bool { return sameURL(u, target) }, opts.Quiet)
	if err != nil {
		return nil, err
	}
	var icons []string
	if err := t.evaluate(ctx, "", iconsJS, &icons); err != nil {
		return nil, err
	}
	shot, err := t.screenshot(ctx, 0, 0, st.Width, st.Height)
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	l := &live{shot: shot, resources: t.net.resources(), icons: map[string]bool{}}
	for _, u := range icons {
		l.icons[key(u)] = true
	}
	return l, nil
}

// account sorts what the page loaded live into Live, LiveFailed and Icons, and
// counts what of it the replay got from the archive (asked) and what the archive's
// index holds of the icons.
func (p *Page) account(l *live, asked map[string]Resource, index map[string]int) {
	// An icon that is also the page's image (the Python manual's logo) counts as
	// the image: the page's own requests first.
	sort.SliceStable(l.resources, func(i, j int) bool {
		return l.resources[i].Type != "Other" && l.resources[j].Type == "Other"
	})
	seen := map[string]bool{}
	for _, r := range l.resources {
		k := key(r.URL)
		if seen[k] {
			continue
		}
		seen[k] = true
		if !r.ok() {
			p.LiveFailed = append(p.LiveFailed, r)
			continue
		}
		if r.Type == "Other" && l.icons[k] {
			if r.Archived = index[k]; r.Archived > 0 && r.Archived < 400 {
				p.IconsArchived++
			}
			p.Icons = append(p.Icons, r)
			continue
		}
		p.Live = append(p.Live, r)
		switch got, ok := asked[k]; {
		case ok && got.ok():
			p.Answered++
		case ok:
			p.Missing = append(p.Missing, fmt.Sprintf("%s (replay: status %d %s)", r.URL, got.Status, got.Failed))
		default:
			p.Missing = append(p.Missing, r.URL+" (not requested in replay)")
		}
	}
	sort.Slice(p.Live, func(i, j int) bool { return p.Live[i].URL < p.Live[j].URL })
	sort.Strings(p.Missing)
}

// iconsJS lists the icons a browser asks for to show a page in its tab: those of
// its <link rel=icon> elements, and /favicon.ico.
const iconsJS = `[...Array.from(document.querySelectorAll("link[rel~=icon i]"), l => l.href),
	new URL("/favicon.ico", location.href).href]`

// replayPath matches ReplayWeb.page's replay URLs: /w/<collection>/[:<hash>/]<timestamp><modifier>/<original URL>.
var replayPath = regexp.MustCompile(`/w/.*?/[0-9]*([a-z]{2}_)?/(https?://.*)$`)

// replayedURL returns the original URL of a ReplayWeb.page replay URL and its
// modifier (mp_ for the page, cs_, js_, im_ … for what it loads).
func replayedURL(u string) (orig, mod string, ok bool) {
	m := replayPath.FindStringSubmatch(u)
	if m == nil {
		return "", "", false
	}
	return m[2], m[1], true
}

// key is the form URLs are compared in: without fragment, percent-encoding decoded.
func key(u string) string {
	u, _, _ = strings.Cut(u, "#")
	if d, err := url.PathUnescape(u); err == nil {
		return d
	}
	return u
}

func sameURL(a, b string) bool { return key(a) == key(b) }

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

func shotName(u string) string {
	s := unsafeName.ReplaceAllString(strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://"), "_")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}
