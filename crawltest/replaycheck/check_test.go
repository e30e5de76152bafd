package replaycheck

import (
	"image"
	"image/color"
	"slices"
	"testing"
)

func TestReplayedURL(t *testing.T) {
	tests := []struct {
		in, orig, mod string
		ok            bool
	}{
		{"http://127.0.0.1:4000/w/id-5894a369b2fe/:37a8eec1/20261128030842mp_/http://www.postgresql.test/", "http://www.postgresql.test/", "mp_", true},
		{"http://127.0.0.1:4000/w/id-1/:ab/20261128030842cs_/http://docs.python.test/_static/a.css?2022.1", "http://docs.python.test/_static/a.css?2022.1", "cs_", true},
		{"http://127.0.0.1:4000/w/id-1/20261128030842/https://cdn.test/logo.png", "https://cdn.test/logo.png", "", true},
		{"http://127.0.0.1:4000/w/id-1/mp_/http://a.test/x/http://b.test/", "http://a.test/x/http://b.test/", "mp_", true},
		{"http://127.0.0.1:4000/ui.js", "", "", false},
		{"http://127.0.0.1:4000/?source=http%3A%2F%2F127.0.0.1%2Fcrawl.wacz", "", "", false},
	}
	for _, tt := range tests {
		orig, mod, ok := replayedURL(tt.in)
		if orig != tt.orig || mod != tt.mod || ok != tt.ok {
			t.Errorf("replayedURL(%q):\n\tgot  %q %q %v\n\twant %q %q %v", tt.in, orig, mod, ok, tt.orig, tt.mod, tt.ok)
		}
	}
}

func TestCompareImages(t *testing.T) {
	img := func(fill func(x, y int) color.Color) image.Image {
		m := image.NewRGBA(image.Rect(0, 0, 10, 10))
		for y := range 10 {
			for x := range 10 {
				m.Set(x, y, fill(x, y))
			}
		}
		return m
	}
	white := img(func(x, y int) color.Color { return color.White })
	halfBlack := img(func(x, y int) color.Color {
		if x < 5 {
			return color.Black
		}
		return color.White
	})
	nearWhite := img(func(x, y int) color.Color { return color.RGBA{245, 250, 255, 255} })
	tests := []struct {
		name               string
		a, b               image.Image
		tolerance          int
		diff, nonWA, nonWB float64
	}{
		{"same", white, white, 0, 0, 0, 0},
		{"half black", white, halfBlack, 16, 0.5, 0, 0.5},
		{"within the tolerance", white, nearWhite, 16, 0, 0, 1},
		{"past a tolerance of 0", white, nearWhite, 0, 1, 0, 1},
	}
	for _, tt := range tests {
		d, err := compareImages(tt.a, tt.b, tt.tolerance)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d.diff != tt.diff || d.nonWhiteA != tt.nonWA || d.nonWhiteB != tt.nonWB {
			t.Errorf("%s:\n\tgot  %+v\n\twant diff %v, non-white %v and %v", tt.name, d, tt.diff, tt.nonWA, tt.nonWB)
		}
	}
	if _, err := compareImages(white, image.NewRGBA(image.Rect(0, 0, 10, 9)), 0); err == nil {
		t.Error("screenshots of two sizes compared without error")
	}
}

func TestSpread(t *testing.T) {
	s := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	for _, tt := range []struct {
		n    int
		want []string
	}{{3, []string{"a", "d", "g"}}, {5, []string{"a", "c", "e", "g", "i"}}, {10, s}, {20, s}} {
		if got := spread(s, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("spread(%d):\n\tgot  %q\n\twant %q", tt.n, got, tt.want)
		}
	}
}

func TestAccount(t *testing.T) {
	l := &live{
		resources: []Resource{
			{URL: "http://a.test/s.css", Type: "Stylesheet", Status: 200},
			{URL: "http://a.test/logo.svg", Type: "Other", Status: 200}, // the tab's icon, and the page's image below
			{URL: "http://a.test/logo.svg", Type: "Image", Status: 200},
			{URL: "http://a.test/favicon.ico", Type: "Other", Status: 200},
			{URL: "http://a.test/gone.js", Type: "Script", Status: 404},
			{URL: "http://a.test/a.png#x", Type: "Image", Status: 304},
			{URL: "http://a.test/b.png", Type: "Image", Status: 200},
			{URL: "http://a.test/c.png", Type: "Image", Status: 200},
			{URL: "http://b.test/f.woff2", Type: "Font", Failed: "net::ERR_NAME_NOT_RESOLVED"},
		},
		icons: map[string]bool{"http://a.test/logo.svg": true, "http://a.test/favicon.ico": true},
	}
	asked := map[string]Resource{
		"http://a.test/s.css":    {URL: "http://a.test/s.css", Status: 200},
		"http://a.test/logo.svg": {URL: "http://a.test/logo.svg", Status: 200},
		"http://a.test/a.png":    {URL: "http://a.test/a.png", Status: 200},
		"http://a.test/b.png":    {URL: "http://a.test/b.png", Status: 404},
	}
	index := map[string]int{"http://a.test/favicon.ico": 200}
	var p Page
	p.account(l, asked, index)
	var liveURLs []string
	for _, r := range p.Live {
		liveURLs = append(liveURLs, r.URL)
	}
	wantLive := []string{"http://a.test/a.png#x", "http://a.test/b.png", "http://a.test/c.png", "http://a.test/logo.svg", "http://a.test/s.css"}
	wantMissing := []string{"http://a.test/b.png (replay: status 404 )", "http://a.test/c.png (not requested in replay)"}
	if !slices.Equal(liveURLs, wantLive) || p.Answered != 3 || !slices.Equal(p.Missing, wantMissing) {
		t.Errorf("live %q, answered %d, missing %q;\n\twant %q, 3, %q", liveURLs, p.Answered, p.Missing, wantLive, wantMissing)
	}
	if len(p.LiveFailed) != 2 || len(p.Icons) != 1 || p.Icons[0].URL != "http://a.test/favicon.ico" || p.IconsArchived != 1 {
		t.Errorf("failed live %+v, icons %+v (%d archived); want 2 failed, favicon.ico archived", p.LiveFailed, p.Icons, p.IconsArchived)
	}
}
