package archivetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/config"
	"github.com/politecrawl/crawl/crawltest"
)

// fontPath is a TrueType font of Debian's fonts-dejavu-core (which Chromium's
// package pulls in), served as crawltest.RequisiteSites' web font.
const fontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

// TestReplayRequisites crawls crawltest.RequisiteSites with page requisites on,
// replays its WACZ in ReplayWeb.page under Chromium and checks what a reader sees:
// a style from a stylesheet imported by the page's stylesheet, every image loaded
// (but the one robots.txt disallows), the web font loaded, the element the page's
// script inserts, the iframe's content, and the XHTML page rendered as HTML with its
// stylesheet. The same crawl with requisites off must fail those checks (a negative
// control), or the test would prove nothing.
func TestReplayRequisites(t *testing.T) {
	font, err := os.ReadFile(need(t, "a TrueType font (fonts-dejavu-core)", fontPath))
	if err != nil {
		t.Fatal(err)
	}
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "requisites on", false: "requisites off (negative control)"}[on]
		t.Run(name, func(t *testing.T) {
			farm, err := crawltest.Start(crawltest.RequisiteSites(font)...)
			if err != nil {
				t.Fatal(err)
			}
			defer farm.Close()
			dir := t.TempDir()
			if err := runFarmCrawl(dir, farm, func(cfg *config.Config) { cfg.Requisites.Enabled = on }); err != nil {
				t.Fatal(err)
			}
			suffix := map[bool]string{true: "", false: "-off"}[on]
			wacz := filepath.Join(dir, crawl.WACZName)
			if b, err := os.ReadFile(wacz); err == nil {
				keep := filepath.Join(artefacts(t), "requisites"+suffix+".wacz")
				os.WriteFile(keep, b, 0o644)
				t.Logf("WACZ: %s", keep)
			}
			failures := replayRequisites(t, wacz, suffix)
			switch {
			case on && len(failures) > 0:
				t.Errorf("replay with requisites:\n\t%s", strings.Join(failures, "\n\t"))
			case !on && len(failures) < 5:
				t.Errorf("replay without requisites passed checks it must fail; failures: %q", failures)
			case !on:
				t.Logf("%d checks failed, as they must: %q", len(failures), failures)
			}
		})
	}
}

// replayRequisites replays the front page and the manual of RequisiteSites from
// wacz and returns the checks that failed, one line each.
func replayRequisites(t *testing.T, wacz, suffix string) []string {
	base, b := replayer(t, wacz)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var failures []string
	fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }

	f := openReplay(ctx, t, b, base, "http://assets.test/", "", filepath.Join(artefacts(t), "replay-assets.test"+suffix+".png"))
	var front struct {
		Color    string
		Images   map[string]int // naturalWidth by id
		Font     bool
		Inserted bool
		Frame    string
		FrameImg int
	}
	err := evaluate(ctx, b, f.session, f.id, `document.fonts.ready.then(() => ({
		color: getComputedStyle(document.getElementById("styled")).color,
		images: Object.fromEntries(Array.from(document.images, i => [i.id, i.naturalWidth])),
		font: Array.from(document.fonts).some(ff => ff.family.replace(/"/g, "") === "Body" && ff.status === "loaded"),
		inserted: document.getElementById("inserted") !== null,
		frame: ((document.getElementById("frame").contentDocument || {}).body || {}).textContent || "",
		frameImg: ((document.getElementById("frame").contentDocument || document).getElementById("frameimg") || {}).naturalWidth || 0,
	}))`, &front)
	if err != nil {
		t.Fatal(err)
	}
	if front.Color != "rgb(1, 2, 3)" {
		fail("#styled has color %q, not base.css's rgb(1, 2, 3)", front.Color)
	}
	for id, w := range front.Images {
		if id != "secret" && w == 0 {
			fail("image #%s not loaded (naturalWidth 0)", id)
		}
	}
	if len(front.Images) != 4 {
		fail("%d images, want 4", len(front.Images))
	}
	if front.FrameImg == 0 {
		fail("the iframe's image not loaded")
	}
	if front.Images["secret"] != 0 {
		fail("the image robots.txt disallows was archived")
	}
	if !front.Font {
		fail("the web font Body is not loaded")
	}
	if !front.Inserted {
		fail("app.js's element #inserted is missing")
	}
	if !strings.Contains(front.Frame, "Content of the frame") {
		fail("the iframe shows %q", front.Frame)
	}

	m := openReplay(ctx, t, b, base, "http://assets.test/manual.html", "", filepath.Join(artefacts(t), "replay-assets.test-manual"+suffix+".png"))
	var manual struct{ ContentType, Color string }
	err = evaluate(ctx, b, m.session, m.id, `({contentType: document.contentType, color: getComputedStyle(document.querySelector("h2")).color})`, &manual)
	if err != nil {
		t.Fatal(err)
	}
	if manual.ContentType != "text/html" {
		fail("the XHTML manual parsed as %q", manual.ContentType)
	}
	if manual.Color != "rgb(7, 8, 9)" {
		fail("the manual's h2 has color %q, not manual.css's rgb(7, 8, 9)", manual.Color)
	}
	t.Logf("front page: %+v; manual: %+v", front, manual)
	return failures
}
