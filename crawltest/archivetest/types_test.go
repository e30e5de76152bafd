package archivetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/crawltest"
)

// typesSite serves what a crawler's payload sniffing gets wrong: an XHTML
// page beginning with <?xml served as text/html (it sniffs as text/xml), a
// stylesheet (it sniffs as text/plain) and an SVG image beginning with <?xml
// (text/xml). Replay must serve each with the type the server declared. The
// page links to its stylesheet and image as well as using them, so that a
// links-only crawl archives them too.
var typesSite = crawltest.Site{
	Host:   "types.test",
	Robots: &crawltest.Robots{Body: "User-agent: *\nAllow: /\n"},
	Pages: map[string]*crawltest.Page{
		"/": {
			Body: `<!DOCTYPE html>
<html><head><title>Styled page</title><link rel="stylesheet" href="/style.css"></head>
<body><p id="styled">Styled by the stylesheet.</p>
<p><img id="logo" src="/logo.svg" alt="logo"></p>
<p><a href="/manual.html">The manual</a>, <a href="/style.css">the stylesheet</a>, <a href="/logo.svg">the logo</a>.</p>
</body></html>
`,
			Links: []string{"/manual.html", "/style.css", "/logo.svg"},
		},
		"/manual.html": {
			// As the PostgreSQL manual is published: XHTML, served as text/html.
			Body: `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html xmlns="http://www.w3.org/1999/xhtml"><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8" /><title>The manual</title></head><body><div class="chapter" id="intro"><h2 class="title">Chapter&#160;1.&#160;Introduction</h2><p>Back to <a href="/">the styled page</a>.</p></div></body></html>
`,
			Links: []string{"/"},
		},
		"/style.css": {
			ContentType: "text/css",
			Body:        "/* the site's stylesheet */\n#styled { color: rgb(1, 2, 3); font-weight: bold }\n",
		},
		"/logo.svg": {
			ContentType: "image/svg+xml",
			Body: `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32" viewBox="0 0 64 32"><rect width="64" height="32" fill="#369"/></svg>
`,
		},
	},
}

// TestReplayPayloadTypes replays typesSite from the farm crawl's WACZ in
// ReplayWeb.page, which serves each record with its
// WARC-Identified-Payload-Type when it has one: the XHTML page must render as
// HTML, the stylesheet must apply and the SVG image must load.
func TestReplayPayloadTypes(t *testing.T) {
	dir := crawlDir(t)
	base, b := replayer(t, filepath.Join(dir, crawl.WACZName))

	t.Run("stylesheet and SVG", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		f := openReplay(ctx, t, b, base, "http://types.test/", "", filepath.Join(artefacts(t), "replay-types.test.png"))
		var got struct {
			Color, Weight string
			Logo          int
		}
		err := evaluate(ctx, b, f.session, f.id, `(() => {
			const s = getComputedStyle(document.getElementById("styled"));
			return {color: s.color, weight: s.fontWeight, logo: document.getElementById("logo").naturalWidth};
		})()`, &got)
		if err != nil {
			t.Fatal(err)
		}
		if got.Color != "rgb(1, 2, 3)" || got.Weight != "700" {
			t.Errorf("replayed #styled: color %q, font-weight %q; want rgb(1, 2, 3) and 700 from the stylesheet", got.Color, got.Weight)
		}
		if got.Logo != 64 {
			t.Errorf("replayed SVG image: naturalWidth %d, want 64", got.Logo)
		}
	})

	t.Run("XHTML served as text/html", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		f := openReplay(ctx, t, b, base, "http://types.test/manual.html", "", filepath.Join(artefacts(t), "replay-types.test-manual.png"))
		var got struct {
			ContentType, Heading string
		}
		err := evaluate(ctx, b, f.session, f.id, `({contentType: document.contentType, heading: (document.querySelector("h2") || {}).textContent || ""})`, &got)
		if err != nil {
			t.Fatal(err)
		}
		if got.ContentType != "text/html" {
			t.Errorf("replayed XHTML page parsed as %q, want text/html (as served)", got.ContentType)
		}
		if want := "Chapter\u00a01.\u00a0Introduction"; got.Heading != want {
			t.Errorf("replayed XHTML page's heading %q, want %q", got.Heading, want)
		}
	})
}
