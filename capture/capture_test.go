package capture_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/politecrawl/crawl/capture"
	"github.com/politecrawl/crawl/extract"
	"github.com/politecrawl/crawl/storage"
)

// fetched is one exchange of a hand-made crawl.
type fetched struct {
	url, status, ctype string
	header             string // more header lines, each ending in \r\n
	body               string
	gzip               bool   // send the body gzip-encoded
	requisite          string // the kind in the pages-line of its metadata record; "" for a page
}

// crawlDir writes a data directory holding a WARC file of exs, written by storage's
// writer with a warcinfo record of info, and a skipped.jsonl of skips.
func crawlDir(t testing.TB, info map[string]string, exs []fetched, skips []storage.Skip) string {
	t.Helper()
	dir := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	w, err := storage.OpenWARC(storage.WARCOptions{Dir: filepath.Join(dir, "warc"), DigestIndex: filepath.Join(dir, "digests.db"),
		NoSync: true, Config: info, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, f := range exs {
		body := []byte(f.body)
		head := fmt.Sprintf("HTTP/1.1 %s\r\n", f.status)
		if f.ctype != "" {
			head += "Content-Type: " + f.ctype + "\r\n"
		}
		if f.gzip {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(body)
			zw.Close()
			body = b.Bytes()
			head += "Content-Encoding: gzip\r\n"
		}
		head += f.header + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))
		kind := "page"
		if f.requisite != "" {
			kind = "requisite"
		}
		ex := &storage.Exchange{TargetURI: f.url, Date: now, Request: []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
			ResponseHeader: []byte(head), Body: body, Kind: kind,
			Metadata: &storage.Metadata{TargetURI: f.url, Date: now},
			Page:     &storage.Page{URL: f.url, Requisite: f.requisite}}
		if _, err := w.Append(ctx, ex); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if skips != nil {
		sw, err := storage.OpenSkipped(filepath.Join(dir, "skipped.jsonl"), storage.PagesOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range skips {
			skips[i].Time = now
			if err := sw.Write(ctx, &skips[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// revisits counts the revisit records in dir's WARC files.
func revisits(t testing.TB, dir string) int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "warc", "*.warc.gz"))
	n := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		err = storage.ReadRecords(f, func(r *storage.Record) error {
			if r.Get("WARC-Type") == "revisit" {
				n++
			}
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// statuses lists a page's requisites that were not archived as "status url (reason)".
func statuses(p capture.Page) []string {
	var s []string
	for _, q := range p.NotArchived {
		line := fmt.Sprintf("%s %s h%d", q.Status, q.URL, q.Hop)
		if q.Reason != "" {
			line += " (" + q.Reason + ")"
		}
		s = append(s, line)
	}
	return s
}

const page1 = `<!DOCTYPE html><html><head><title>one</title>
<link rel="stylesheet" href="/site.css"><script src="app.js"></script></head><body>
<img src="/ok.png" srcset="/ok-2x.png 2x"> <img src="/gone.png"> <img src="/secret/a.png">
<img src="/err.png"> <img src="http://cdn.test/given-up.png"> <img src="/redirected.png">
<video src="/clip.mp4"></video> <iframe src="/frame.html"></iframe> <img src="/same.png">
<a href="/other.html">a link is no requisite</a></body></html>`

func TestReport(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n an image"
	exs := []fetched{
		{url: "http://a.test/", status: "200 OK", ctype: "text/html; charset=utf-8", body: page1, gzip: true},
		{url: "http://a.test/site.css", status: "200 OK", ctype: "text/css", requisite: "stylesheet",
			body: `@import "deep.css"; body { background: url(img/bg.png) }`},
		{url: "http://a.test/deep.css", status: "200 OK", ctype: "text/css", requisite: "stylesheet",
			body: `h1 { background: url(/via-import.png) }`},
		{url: "http://a.test/img/bg.png", status: "200 OK", ctype: "image/png", requisite: "image", body: png + "bg"},
		{url: "http://a.test/app.js", status: "200 OK", ctype: "text/javascript", requisite: "script", body: "1"},
		{url: "http://a.test/ok.png", status: "200 OK", ctype: "image/png", requisite: "image", body: png},
		{url: "http://a.test/ok-2x.png", status: "200 OK", ctype: "image/png", requisite: "image", body: png + "2x"},
		// The same body again: archived as a revisit.
		{url: "http://a.test/same.png", status: "200 OK", ctype: "image/png", requisite: "image", body: png},
		{url: "http://a.test/err.png", status: "404 Not Found", ctype: "text/plain", requisite: "image", body: "no"},
		{url: "http://a.test/redirected.png", status: "301 Moved Permanently", header: "Location: /ok.png\r\n", requisite: "image"},
		// A frame's document: a requisite, reported with its page, not as a page.
		{url: "http://a.test/frame.html", status: "200 OK", ctype: "text/html", requisite: "frame",
			body: `<html><body><img src="/in-frame.png"></body></html>`},
		{url: "http://a.test/in-frame.png", status: "200 OK", ctype: "image/png", requisite: "image", body: png + "frame"},
		// A second page, needing the first's stylesheet and an image never fetched.
		{url: "http://a.test/two.html", status: "200 OK", ctype: "text/html",
			body: `<html><head><link rel=stylesheet href="site.css"></head><body><img src="/never.png"></body></html>`},
		// The host's icon, which no page names: every page's requisite, 404.
		{url: "http://a.test/favicon.ico", status: "404 Not Found", ctype: "text/html", requisite: "icon", body: "<p>not found"},
		// Not HTML: no report.
		{url: "http://a.test/robots.txt", status: "200 OK", ctype: "text/plain", body: "User-agent: *\nDisallow: /secret/\n"},
	}
	skips := []storage.Skip{
		{URL: "http://a.test/secret/a.png", Reason: "robots", Detail: "Disallow: /secret/"},
		{URL: "http://cdn.test/given-up.png", Reason: "failed", Detail: "503 after 3 attempts"},
		{URL: "http://a.test/gone.png", Reason: "redirect-limit"},
	}
	tests := []struct {
		name     string
		info     map[string]string
		opts     capture.Options
		skips    []storage.Skip
		one, two []string
		totals   capture.Counts
		distinct capture.Counts
	}{{
		name:  "defaults",
		skips: skips,
		one: []string{
			"limit http://a.test/gone.png h1 (redirect-limit)",
			"blocked http://a.test/secret/a.png h1 (robots)",
			"failed http://a.test/err.png h1 (404)",
			"failed http://cdn.test/given-up.png h1 (failed)",
			"missing http://a.test/clip.mp4 h1",
			"failed http://a.test/favicon.ico h1 (404)",
			"missing http://a.test/via-import.png h2",
		},
		two: []string{"missing http://a.test/never.png h1", "failed http://a.test/favicon.ico h1 (404)", "missing http://a.test/via-import.png h2"},
		// one: site.css, deep.css (imported by site.css: no hop), app.js, ok, ok-2x,
		// gone, secret, err, given-up, redirected, clip, frame, same, favicon.ico
		// (14) + bg, via-import (deep.css's), in-frame (3); two: site.css, deep.css,
		// never, favicon.ico, bg, via-import.
		totals:   capture.Counts{Found: 23, Archived: 13, Blocked: 1, Failed: 4, Limit: 1, Missing: 4},
		distinct: capture.Counts{Found: 18, Archived: 10, Blocked: 1, Failed: 3, Limit: 1, Missing: 3},
	}, {
		name: "no skipped.jsonl, video not fetched",
		opts: capture.Options{Kinds: []extract.Kind{extract.KindImage, extract.KindStylesheet, extract.KindScript, extract.KindFrame}},
		one: []string{
			"missing http://a.test/gone.png h1",
			"missing http://a.test/secret/a.png h1",
			"failed http://a.test/err.png h1 (404)",
			"missing http://cdn.test/given-up.png h1",
			"excluded http://a.test/clip.mp4 h1",
			"missing http://a.test/via-import.png h2",
		},
		two:      []string{"missing http://a.test/never.png h1", "missing http://a.test/via-import.png h2"},
		totals:   capture.Counts{Found: 21, Archived: 13, Failed: 1, Excluded: 1, Missing: 6},
		distinct: capture.Counts{Found: 17, Archived: 10, Failed: 1, Excluded: 1, Missing: 5},
	}, {
		name:  "warcinfo hop limit 3 over options' 1",
		info:  map[string]string{"requisites-max-hops": "3", "requisites-kinds": "image,stylesheet,script,frame,video"},
		opts:  capture.Options{MaxHops: 1},
		skips: skips,
		one: []string{
			"limit http://a.test/gone.png h1 (redirect-limit)",
			"blocked http://a.test/secret/a.png h1 (robots)",
			"failed http://a.test/err.png h1 (404)",
			"failed http://cdn.test/given-up.png h1 (failed)",
			"missing http://a.test/clip.mp4 h1",
			"missing http://a.test/via-import.png h2",
		},
		two:      []string{"missing http://a.test/never.png h1", "missing http://a.test/via-import.png h2"},
		totals:   capture.Counts{Found: 21, Archived: 13, Blocked: 1, Failed: 2, Limit: 1, Missing: 4},
		distinct: capture.Counts{Found: 17, Archived: 10, Blocked: 1, Failed: 2, Limit: 1, Missing: 3},
	}, {
		name:  "options' hop limit 1",
		opts:  capture.Options{MaxHops: 1, Kinds: extract.Kinds()},
		skips: skips,
		one: []string{
			"limit http://a.test/gone.png h1 (redirect-limit)",
			"blocked http://a.test/secret/a.png h1 (robots)",
			"failed http://a.test/err.png h1 (404)",
			"failed http://cdn.test/given-up.png h1 (failed)",
			"missing http://a.test/clip.mp4 h1",
			"failed http://a.test/favicon.ico h1 (404)",
		},
		two: []string{"missing http://a.test/never.png h1", "failed http://a.test/favicon.ico h1 (404)"},
		// deep.css counts at hop 1: site.css imports it.
		totals:   capture.Counts{Found: 18, Archived: 10, Blocked: 1, Failed: 4, Limit: 1, Missing: 2},
		distinct: capture.Counts{Found: 15, Archived: 8, Blocked: 1, Failed: 3, Limit: 1, Missing: 2},
	}}
	if n := revisits(t, crawlDir(t, nil, exs, nil)); n != 1 {
		t.Fatalf("%d revisit records written, want 1 (same.png)", n)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := crawlDir(t, tt.info, exs, tt.skips)
			rep, err := capture.ReadDir(dir, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Pages != 2 || len(rep.PageReports) != 2 {
				t.Fatalf("%d pages reported, want 2 (the frame's document is a requisite): %+v", rep.Pages, rep.PageReports)
			}
			one, two := rep.PageReports[0], rep.PageReports[1]
			if one.URL != "http://a.test/" || two.URL != "http://a.test/two.html" {
				t.Errorf("pages %s, %s; want http://a.test/, http://a.test/two.html", one.URL, two.URL)
			}
			if got := statuses(one); !slices.Equal(got, tt.one) {
				t.Errorf("first page:\n\tgot  %q\n\twant %q", got, tt.one)
			}
			if got := statuses(two); !slices.Equal(got, tt.two) {
				t.Errorf("second page:\n\tgot  %q\n\twant %q", got, tt.two)
			}
			if rep.Totals != tt.totals {
				t.Errorf("totals:\n\tgot  %+v\n\twant %+v", rep.Totals, tt.totals)
			}
			if rep.Distinct != tt.distinct {
				t.Errorf("distinct:\n\tgot  %+v\n\twant %+v", rep.Distinct, tt.distinct)
			}
			if got, want := rep.OK(), tt.totals.Missing == 0; got != want {
				t.Errorf("OK() = %v, want %v", got, want)
			}
			if sum := one.Counts.Found + two.Counts.Found; sum != rep.Totals.Found {
				t.Errorf("pages' counts sum to %d, totals say %d", sum, rep.Totals.Found)
			}
		})
	}
}

// TestReportSettings checks where the hop limit and the kinds come from.
func TestReportSettings(t *testing.T) {
	// A page that names no requisite: with icons among the kinds, its host's
	// /favicon.ico is its one requisite, archived.
	exs := []fetched{{url: "http://a.test/", status: "200 OK", ctype: "text/html", body: "<p>no requisites"},
		{url: "http://a.test/favicon.ico", status: "200 OK", ctype: "image/x-icon", requisite: "icon", body: "an icon"}}
	for _, tt := range []struct {
		info               map[string]string
		opts               capture.Options
		hops               int
		hopsFrom, kindFrom string
		kinds              int
		icons              int
	}{
		{nil, capture.Options{}, 2, "default", "default", len(extract.Kinds()), 1},
		{nil, capture.Options{MaxHops: 4, Kinds: []extract.Kind{extract.KindImage}}, 4, "options", "options", 1, 0},
		{map[string]string{"requisites-max-hops": "5", "requisites-kinds": "image, font"}, capture.Options{MaxHops: 4}, 5, "warcinfo", "warcinfo", 2, 0},
	} {
		rep, err := capture.ReadDir(crawlDir(t, tt.info, exs, nil), tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if rep.MaxHops != tt.hops || rep.MaxHopsFrom != tt.hopsFrom || rep.KindsFrom != tt.kindFrom || len(rep.Kinds) != tt.kinds {
			t.Errorf("info %v, options %+v: hops %d from %s, %d kinds from %s; want %d from %s, %d from %s", tt.info, tt.opts,
				rep.MaxHops, rep.MaxHopsFrom, len(rep.Kinds), rep.KindsFrom, tt.hops, tt.hopsFrom, tt.kinds, tt.kindFrom)
		}
		if rep.Pages != 1 || rep.Totals != (capture.Counts{Found: tt.icons, Archived: tt.icons}) || !rep.OK() {
			t.Errorf("a page without requisites, %d icons: %+v", tt.icons, rep)
		}
	}
}

// TestRevisitDocuments checks that a page or stylesheet archived as a revisit (the
// same body as a record before it) has its requisites read from that record's body,
// resolved against its own URL as the crawler resolved them.
func TestRevisitDocuments(t *testing.T) {
	html := `<html><head><link rel=stylesheet href="s.css"></head><body><img src="i.png"></body></html>`
	css := `body { background: url(bg.png) }`
	exs := []fetched{
		{url: "http://a.test/x/", status: "200 OK", ctype: "text/html", body: html},
		{url: "http://a.test/x/s.css", status: "200 OK", ctype: "text/css", requisite: "stylesheet", body: css},
		{url: "http://a.test/x/i.png", status: "200 OK", ctype: "image/png", requisite: "image", body: "x image"},
		{url: "http://a.test/x/bg.png", status: "200 OK", ctype: "image/png", requisite: "image", body: "x bg"},
		{url: "http://a.test/y/", status: "200 OK", ctype: "text/html", body: html},
		{url: "http://a.test/y/s.css", status: "200 OK", ctype: "text/css", requisite: "stylesheet", body: css},
		{url: "http://a.test/y/i.png", status: "200 OK", ctype: "image/png", requisite: "image", body: "y image"},
		{url: "http://a.test/favicon.ico", status: "200 OK", ctype: "image/x-icon", requisite: "icon", body: "an icon"},
	}
	dir := crawlDir(t, nil, exs, nil)
	if n := revisits(t, dir); n != 2 {
		t.Fatalf("%d revisit records written, want 2 (/y/ and /y/s.css)", n)
	}
	rep, err := capture.ReadDir(dir, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pages != 2 || rep.Unread != 0 {
		t.Fatalf("%d pages reported, %d unread; want 2 and 0", rep.Pages, rep.Unread)
	}
	if got, want := statuses(rep.PageReports[0]), []string(nil); !slices.Equal(got, want) {
		t.Errorf("%s:\n\tgot  %q\n\twant %q", rep.PageReports[0].URL, got, want)
	}
	if got, want := statuses(rep.PageReports[1]), []string{"missing http://a.test/y/bg.png h2"}; !slices.Equal(got, want) {
		t.Errorf("%s:\n\tgot  %q\n\twant %q", rep.PageReports[1].URL, got, want)
	}
	// Read record by record without the files (ReadWARC), a revisit's body is not
	// found: the page is counted unread.
	r := capture.New(capture.Options{})
	files, _ := filepath.Glob(filepath.Join(dir, "warc", "*.warc.gz"))
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		err = r.ReadWARC(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if rep := r.Report(); rep.Pages != 1 || rep.Unread != 1 {
		t.Errorf("ReadWARC: %d pages, %d unread; want 1 and 1", rep.Pages, rep.Unread)
	}
}

// TestDamagedWARC checks that a WARC file damaged in its middle is read up to the
// damage and counted, not refused, and that a torn end (a killed crawl) is not
// counted as damage.
func TestDamagedWARC(t *testing.T) {
	var exs []fetched
	for i := range 6 {
		exs = append(exs, fetched{url: fmt.Sprintf("http://a.test/p%d", i), status: "200 OK", ctype: "text/html",
			body: fmt.Sprintf(`<html><img src="/i%d.png"></html>`, i)})
	}
	for _, tc := range []struct {
		name    string
		damage  func(b []byte, at int64) []byte
		damaged int
	}{
		{"middle", func(b []byte, at int64) []byte {
			for i := at + 20; i < at+40; i++ {
				b[i] ^= 0xff
			}
			return b
		}, 1},
		{"torn end", func(b []byte, at int64) []byte { return b[:len(b)-7] }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := crawlDir(t, nil, exs, nil)
			files, _ := filepath.Glob(filepath.Join(dir, "warc", "*.warc.gz"))
			if len(files) != 1 {
				t.Fatalf("%d WARC files, want 1", len(files))
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			var offsets []int64
			storage.ReadRecords(bytes.NewReader(b), func(r *storage.Record) error {
				if r.Get("WARC-Type") == "response" {
					offsets = append(offsets, r.Offset)
				}
				return nil
			})
			if err := os.WriteFile(files[0], tc.damage(b, offsets[3]), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := capture.ReadDir(dir, capture.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Damaged != tc.damaged || rep.Pages < 3 {
				t.Errorf("damaged %d, pages %d; want %d and at least the 3 before the damage", rep.Damaged, rep.Pages, tc.damaged)
			}
		})
	}
}
