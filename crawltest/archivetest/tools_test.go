package archivetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
	"github.com/politecrawl/crawl/crawltest/cdp"
	"github.com/politecrawl/crawl/storage"
)

// need returns the path of a tool, or skips the test when it is missing (fails it when
// POLITECRAWL_REQUIRE_TOOLS=1 or POLITECRAWL_REPLAY=1, as .ci/run and .ci/extra set them).
func need(t *testing.T, what, path string) string {
	t.Helper()
	return crawltest.NeedTool(t, what, path, ".ci/extra installs it", "POLITECRAWL_REPLAY")
}

// nodeModules is the directory of the npm packages of .ci/node.
func nodeModules() string {
	if d := os.Getenv("POLITECRAWL_NODE_MODULES"); d != "" {
		return d
	}
	abs, _ := filepath.Abs(filepath.Join("..", "..", ".ci", "node", "node_modules"))
	return abs
}

func chromiumPath() string {
	if p := os.Getenv("POLITECRAWL_CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// artefacts returns the directory test artefacts are kept in.
func artefacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("POLITECRAWL_ARTEFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	return abs
}

// keySite has a URL whose SURT key differs between pywb and warcio.js (a path
// with a trailing slash), and one whose key they agree on although it has
// upper-case letters in its path and query and unsorted arguments.
var keySite = crawltest.Site{
	Host:   "keys.test",
	Robots: &crawltest.Robots{Body: "User-agent: *\nAllow: /\n"},
	Pages: map[string]*crawltest.Page{
		"/":                           {Links: []string{"/Docs/", "/Docs/Guide.html?Q=Fast&a=1"}},
		"/Docs/":                      {Links: []string{"/"}},
		"/Docs/Guide.html?Q=Fast&a=1": {},
	},
}

// farmCrawl is one crawl of crawltest.DemoSites with text records and a WACZ,
// shared by the tests of this package.
var farmCrawl = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "politecrawl-archivetest-")
	if err != nil {
		return "", err
	}
	farm, err := crawltest.Start(append(append(crawltest.DemoSites(), keySite, typesSite), ccSites...)...)
	if err != nil {
		return "", err
	}
	defer farm.Close()
	return dir, runFarmCrawl(dir, farm, func(cfg *config.Config) {
		cfg.Storage.Text = true
		cfg.Storage.TextRecords = true
		cfg.Storage.WET = true
		cfg.Storage.Parquet = true
		cfg.Storage.CrawlName = ccCrawlName
	})
})

// runFarmCrawl crawls farm into dir with a WACZ, the farm's pacing and the
// changes edit makes to the configuration (nil: none).
func runFarmCrawl(dir string, farm *crawltest.Farm, edit func(*config.Config)) error {
	const delay = 50 * time.Millisecond
	cfg := config.Default()
	cfg.DataDir = dir
	cfg.Seeds = farm.Seeds()
	cfg.Workers = 8
	cfg.Politeness.MinDelay = config.Duration(delay)
	cfg.Politeness.BackoffBase = config.Duration(10 * delay)
	cfg.Politeness.BackoffMax = config.Duration(100 * delay)
	cfg.Robots.UnreachableRetry = config.Duration(10 * delay)
	cfg.Network.AllowPrivate = true
	cfg.Network.Resolve = farm.Resolve()
	cfg.Storage.WACZ = true
	if edit != nil {
		edit(&cfg)
	}
	c, err := crawl.New(cfg)
	if err != nil {
		return err
	}
	var log bytes.Buffer
	c.Stderr = &log
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		return fmt.Errorf("farm crawl: %w\n%s", err, log.String())
	}
	return nil
}

func crawlDir(t *testing.T) string {
	t.Helper()
	dir, err := farmCrawl()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	crawltest.ReportToolSkips()
	if dir, err := farmCrawl(); err == nil && dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// TestWarcioAgrees indexes every WARC file of a farm crawl with webrecorder's
// warcio (npm) and compares its CDXJ with ours, record by record: offsets,
// lengths, digests, URLs, timestamps, status and MIME types equal, the keys
// equal or apart only where warcio.js's SURT departs from pywb's (see
// keyDeparture).
func TestWarcioAgrees(t *testing.T) {
	dir := crawlDir(t)
	if departures := warcioAgrees(t, dir); len(departures) != 1 {
		t.Errorf("%d key departures, want 1 (keys.test/Docs/)", len(departures))
	}
}

// warcioAgrees indexes every WARC file of the crawl in dir with warcio and
// compares its CDXJ with ours, record by record (see TestWarcioAgrees). It
// returns the key departures it found, explained by keyDeparture.
func warcioAgrees(t *testing.T, dir string) []string {
	t.Helper()
	node := need(t, "node", lookPath("node"))
	cli := need(t, "warcio", filepath.Join(nodeModules(), "warcio", "dist", "cli.js"))
	files, err := storage.WARCFiles(filepath.Join(dir, "warc"))
	if err != nil || len(files) == 0 {
		t.Fatalf("WARC files %v, %v", files, err)
	}
	args := append([]string{cli, "cdx-index"}, files...)
	for _, f := range []string{"urlkey", "timestamp", "url", "mime", "status", "digest", "length", "offset", "filename", "warc-type"} {
		args = append(args, "-f", f)
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = filepath.Join(dir, "warc")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("warcio cdx-index: %v\n%s", err, stderr.String())
	}

	type key struct{ file, offset string }
	ours := map[key]cdxj{}
	for _, f := range files {
		for _, l := range readLines(t, f+storage.IndexSuffix) {
			c := parseCDXJ(t, l)
			ours[key{c.fields["filename"], c.fields["offset"]}] = c
		}
	}
	theirs := 0
	var departures []string
	for _, l := range strings.SplitAfter(string(out), "\n") {
		if l == "" {
			continue
		}
		w := parseCDXJ(t, l)
		if typ := w.fields["warc-type"]; typ != "response" && typ != "revisit" {
			continue // conversion records: warcio indexes them, we do not (replay tools would serve the text)
		}
		theirs++
		k := key{filepath.Base(w.fields["filename"]), w.fields["offset"]}
		o, ok := ours[k]
		if !ok {
			t.Errorf("warcio indexes a record we do not: %s", l)
			continue
		}
		delete(ours, k)
		for _, f := range []string{"url", "mime", "status", "digest", "length"} {
			if o.fields[f] != w.fields[f] {
				t.Errorf("%s at %s:%s: %s %q, warcio says %q", o.fields["url"], k.file, k.offset, f, o.fields[f], w.fields[f])
			}
		}
		if o.timestamp != w.timestamp {
			t.Errorf("%s: timestamp %s, warcio says %s", o.fields["url"], o.timestamp, w.timestamp)
		}
		if o.key != w.key {
			if why := keyDeparture(w.key, o.key); why != "" {
				departures = append(departures, fmt.Sprintf("%s: ours %s, warcio %s (%s)", o.fields["url"], o.key, w.key, why))
			} else {
				t.Errorf("%s: key %q, warcio says %q", o.fields["url"], o.key, w.key)
			}
		}
	}
	for k, o := range ours {
		t.Errorf("we index a record warcio does not: %s:%s %s", k.file, k.offset, o.fields["url"])
	}
	t.Logf("warcio and politecrawl agree on %d records of %d WARC files", theirs, len(files))
	sort.Strings(departures)
	for _, d := range departures {
		t.Logf("key departure: %s", d)
	}
	return departures
}

// keyDeparture explains a key of ours (pywb's SURT) that differs from
// warcio.js's: warcio.js keeps the path's trailing slash, which pywb's surt
// removes. It returns "" when that does not explain the difference.
func keyDeparture(warcioKey, ourKey string) string {
	host, rest, ok := strings.Cut(warcioKey, ")")
	if !ok {
		return ""
	}
	path, query, hasQuery := strings.Cut(rest, "?")
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	k := host + ")" + strings.ToLower(path)
	if hasQuery && query != "" {
		k += "?" + strings.ToLower(query)
	}
	if k != ourKey {
		return ""
	}
	return "pywb drops the path's trailing slash; warcio.js keeps it"
}

func lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return "/nonexistent/" + name
	}
	return p
}

// TestWACZCheck checks the farm crawl's WACZ with an independent checker
// written against the WACZ 1.1.1 specification in Python (its standard
// zipfile, hashlib and gzip): entries STORED, every file listed with its
// size and SHA-256, the digest of datapackage.json, pages, and every index
// line pointing at a whole record of its URL.
func TestWACZCheck(t *testing.T) {
	python := need(t, "python3", lookPath("python3"))
	script, _ := filepath.Abs(filepath.Join("..", "..", ".ci", "wacz_check.py"))
	dir := crawlDir(t)
	wacz := filepath.Join(dir, crawl.WACZName)
	keep := filepath.Join(artefacts(t), "farm.wacz")
	if b, err := os.ReadFile(wacz); err == nil {
		os.WriteFile(keep, b, 0o644)
		t.Logf("WACZ of the farm crawl: %s", keep)
	}
	out, err := exec.Command(python, script, wacz).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("wacz_check.py: %v", err)
	}
}

// TestReplayInChromium serves ReplayWeb.page's built UI and service worker
// (npm replaywebpage) and the farm crawl's WACZ from loopback, opens it in
// headless Chromium, and checks the replayed front page of news.test: its
// title and a link target in the replayed DOM. The screenshot is kept.
func TestReplayInChromium(t *testing.T) {
	dir := crawlDir(t)
	base, b := replayer(t, filepath.Join(dir, crawl.WACZName))
	// news.test's front page; and keys.test/Docs/, whose key in our index
	// (pywb's SURT) is not the one warcio.js computes.
	for _, c := range []struct{ target, title, link, shot string }{
		{"http://news.test/", "news.test/", "news.test/world.html", "replay-news.test.png"},
		{"http://keys.test/Docs/", "keys.test/Docs/", "http://keys.test/", "replay-keys.test.png"},
	} {
		t.Run(c.target, func(t *testing.T) {
			replay(t, b, base, c.target, "", c.title, c.link, filepath.Join(artefacts(t), c.shot))
		})
	}
}

// replayer serves ReplayWeb.page's built UI and service worker (npm
// replaywebpage) and the WACZ file wacz, as /crawl.wacz, from loopback, and
// starts headless Chromium. It returns the server's base URL and the browser;
// both stop when the test ends.
func replayer(t *testing.T, wacz string) (string, *browser) {
	t.Helper()
	chromium := need(t, "chromium", chromiumPath())
	rwp := need(t, "replaywebpage", filepath.Join(nodeModules(), "replaywebpage"))
	need(t, "replaywebpage's service worker", filepath.Join(rwp, "sw.js"))
	mux := http.NewServeMux()
	mux.HandleFunc("/crawl.wacz", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, wacz) // with Range, as ReplayWeb.page reads the package in place
	})
	mux.Handle("/", http.FileServer(http.Dir(rwp)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	var berr bytes.Buffer
	b, err := startBrowser(chromium, t.TempDir(), &berr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.close()
		if t.Failed() {
			t.Logf("chromium stderr:\n%s", lastLines(berr.String(), 30))
		}
	})
	return "http://" + ln.Addr().String(), b
}

// replay opens target in ReplayWeb.page at base in a new tab of b, at the
// capture closest to the 14-digit timestamp ts (the latest when ts is empty),
// and checks the replayed page's title and that it links to a URL ending in
// link. It keeps a screenshot at shot, and returns the replayed frame's URL,
// which names the capture's timestamp.
func replay(t *testing.T, b *browser, base, target, ts, title, link, shot string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	f := openReplay(ctx, t, b, base, target, ts, shot)
	got, err := readDOM(ctx, b, f.session, f.id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != title {
		t.Errorf("replayed title %q, want %q", got.Title, title)
	}
	found := false
	for _, h := range got.Links {
		if strings.HasSuffix(h, link) {
			found = true
		}
	}
	if !found {
		t.Errorf("replayed page has no link to …%s; links %q", link, got.Links)
	}
	t.Logf("replayed %s: title %q, %d links, e.g. %q", target, got.Title, len(got.Links), first(got.Links))
	return f.url
}

// replayedFrame is the frame of a page replayed by ReplayWeb.page in a tab.
type replayedFrame struct {
	session string // the tab's DevTools session
	id      string // the frame's ID
	url     string // the frame's URL: …/w/<collection>/<timestamp>mp_/<target>
}

// openReplay opens target in ReplayWeb.page at base in a new tab of b, at the
// capture closest to the 14-digit timestamp ts (the latest when ts is empty),
// and waits until the replayed frame has loaded (its document complete, with
// a title). It keeps a screenshot of the tab at shot.
func openReplay(ctx context.Context, t *testing.T, b *browser, base, target, ts, shot string) replayedFrame {
	t.Helper()
	var created struct{ TargetID string }
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
		t.Fatal(err)
	}
	var attached struct{ SessionID string }
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached); err != nil {
		t.Fatal(err)
	}
	s := attached.SessionID
	if err := b.call(ctx, s, "Page.enable", nil, nil); err != nil {
		t.Fatal(err)
	}
	page := base + "/?source=" + url.QueryEscape(base+"/crawl.wacz") + "#view=replay&url=" + url.QueryEscape(target)
	if ts != "" {
		page += "&ts=" + ts
	}
	t.Logf("opening %s", page)
	if err := b.call(ctx, s, "Page.navigate", map[string]any{"url": page}, nil); err != nil {
		t.Fatal(err)
	}
	screenshot := func() {
		var res struct{ Data string }
		if err := b.call(ctx, s, "Page.captureScreenshot", map[string]any{"format": "png"}, &res); err != nil {
			t.Logf("screenshot: %v", err)
			return
		}
		png, _ := base64.StdEncoding.DecodeString(res.Data)
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			t.Logf("screenshot: %v", err)
			return
		}
		t.Logf("screenshot of the replayed page: %s", shot)
	}

	// The replayed page is a frame whose URL is the collection's replay URL of
	// the target (…/w/<collection>/<timestamp>mp_/http://news.test/), nested in
	// the app's frames. Poll the frame tree until it is there and loaded.
	var got replayedDOM
	var frames []string
	for {
		var tree struct{ FrameTree cdp.FrameTree }
		if err := b.call(ctx, s, "Page.getFrameTree", nil, &tree); err != nil {
			t.Fatal(err)
		}
		frames = frames[:0]
		var frameURL string
		id := tree.FrameTree.Find(func(u string) bool {
			frames = append(frames, u)
			if strings.Contains(u, "mp_/"+target) {
				frameURL = u
				return true
			}
			return false
		})
		if id != "" {
			var err error
			got, err = readDOM(ctx, b, s, id)
			if err == nil && got.Ready == "complete" && got.Title != "" {
				screenshot()
				return replayedFrame{session: s, id: id, url: frameURL}
			}
		}
		select {
		case <-ctx.Done():
			screenshot()
			t.Fatalf("no replayed page of %s within the deadline; frames: %q; last DOM read %+v", target, frames, got)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

type replayedDOM struct {
	Ready string   `json:"ready"`
	Title string   `json:"title"`
	Links []string `json:"links"`
}

// readDOM reads the title and the link targets of a frame (see evaluate).
func readDOM(ctx context.Context, b *browser, session, frameID string) (replayedDOM, error) {
	var d replayedDOM
	err := evaluate(ctx, b, session, frameID, `({ready: document.readyState, title: document.title, links: Array.from(document.querySelectorAll("a[href]"), a => a.href)})`, &d)
	return d, err
}

// evaluate evaluates the JavaScript expression expr in a frame and decodes
// its value (awaited, when it is a promise), passed through JSON.stringify, into v. It runs in an isolated
// world, so the replay system's scripts in the page do not answer for it; the
// world shares the frame's DOM.
func evaluate(ctx context.Context, b *browser, session, frameID, expr string, v any) error {
	var world struct{ ExecutionContextID int }
	if err := b.call(ctx, session, "Page.createIsolatedWorld", map[string]any{"frameId": frameID, "worldName": "politecrawl-check"}, &world); err != nil {
		return err
	}
	var res struct {
		Result struct{ Value string }
	}
	// An expression whose value is a promise is awaited.
	js := "(async () => JSON.stringify(await (" + expr + ")))()"
	if err := b.call(ctx, session, "Runtime.evaluate", map[string]any{"expression": js, "contextId": world.ExecutionContextID, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return err
	}
	return json.Unmarshal([]byte(res.Result.Value), v)
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// cdxj is one parsed CDXJ line.
type cdxj struct {
	key, timestamp string
	fields         map[string]string
}

func parseCDXJ(t *testing.T, line string) cdxj {
	t.Helper()
	k, rest, ok1 := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	ts, js, ok2 := strings.Cut(rest, " ")
	var raw map[string]any
	if !ok1 || !ok2 || json.Unmarshal([]byte(js), &raw) != nil {
		t.Fatalf("bad CDXJ line %q", line)
	}
	f := map[string]string{}
	for k, v := range raw {
		f[k] = fmt.Sprint(v)
	}
	return cdxj{k, ts, f}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}
