package crawltest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestConditional checks ETag, LastModified and Changing pages: validators sent
// with a 200, 304 to a matching conditional request, a new body at every visit.
func TestConditional(t *testing.T) {
	mod := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	f := startFarm(t, Site{Host: "c.test", Pages: map[string]*Page{
		"/etag":     {ETag: `"v1"`},
		"/lm":       {LastModified: mod},
		"/changing": {Changing: true},
	}})
	client := f.Client()
	for _, c := range []struct {
		path   string
		header []string
		status int
	}{
		{"/etag", nil, 200},
		{"/etag", []string{"If-None-Match", `"v1"`}, 304},
		{"/etag", []string{"If-None-Match", `"v0", "v1"`}, 304},
		{"/etag", []string{"If-None-Match", `"v0"`}, 200},
		{"/etag", []string{"If-Modified-Since", mod.Format(http.TimeFormat)}, 200},
		{"/lm", nil, 200},
		{"/lm", []string{"If-Modified-Since", mod.Format(http.TimeFormat)}, 304},
		{"/lm", []string{"If-Modified-Since", mod.Add(-time.Second).Format(http.TimeFormat)}, 200},
		{"/lm", []string{"If-None-Match", `"x"`, "If-Modified-Since", mod.Format(http.TimeFormat)}, 200},
		{"/changing", []string{"If-None-Match", "*"}, 200},
	} {
		status, h, body := getC(t, client, c.path, c.header...)
		if status != c.status {
			t.Errorf("GET %s %q: status %d, want %d", c.path, c.header, status, c.status)
		}
		if status == 304 && body != "" {
			t.Errorf("GET %s %q: 304 with body %q", c.path, c.header, body)
		}
		if c.path == "/etag" && h.Get("ETag") != `"v1"` || c.path == "/lm" && h.Get("Last-Modified") != mod.Format(http.TimeFormat) {
			t.Errorf("GET %s %q: validators ETag %q, Last-Modified %q", c.path, c.header, h.Get("ETag"), h.Get("Last-Modified"))
		}
	}
	_, _, first := getC(t, client, "/changing")
	_, _, second := getC(t, client, "/changing")
	if first == second || !strings.Contains(second, "<!-- visit 3 -->") {
		t.Errorf("changing page: visits 2 and 3 read\n%s\nand\n%s", first, second)
	}
}

// TestChangeEvery checks Page.ChangeEvery: the body, the ETag and the Last-Modified
// of a page change when the farm's round reaches a multiple of ChangeEvery, and a
// conditional request from the validators of an earlier version gets the new page.
func TestChangeEvery(t *testing.T) {
	mod := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	f := startFarm(t, Site{Host: "c.test", Pages: map[string]*Page{
		"/etag": {ETag: `"e"`, ChangeEvery: 2},
		"/lm":   {LastModified: mod, ChangeEvery: 2},
		"/none": {ChangeEvery: 3},
	}})
	client := f.Client()
	for _, c := range []struct {
		round   int
		path    string
		header  []string
		status  int
		version string // in the body of a 200
		etag    string
		lastMod time.Time
	}{
		{0, "/etag", nil, 200, "0", `"e"`, time.Time{}},
		{1, "/etag", []string{"If-None-Match", `"e"`}, 304, "", `"e"`, time.Time{}},
		{2, "/etag", []string{"If-None-Match", `"e"`}, 200, "1", `"e-v1"`, time.Time{}},
		{3, "/etag", []string{"If-None-Match", `"e-v1"`}, 304, "", `"e-v1"`, time.Time{}},
		{1, "/lm", []string{"If-Modified-Since", mod.Format(http.TimeFormat)}, 304, "", "", mod},
		{2, "/lm", []string{"If-Modified-Since", mod.Format(http.TimeFormat)}, 200, "1", "", mod.Add(time.Hour)},
		{5, "/lm", []string{"If-Modified-Since", mod.Add(time.Hour).Format(http.TimeFormat)}, 200, "2", "", mod.Add(2 * time.Hour)},
		{2, "/none", nil, 200, "0", "", time.Time{}},
		{3, "/none", nil, 200, "1", "", time.Time{}},
		{6, "/none", nil, 200, "2", "", time.Time{}},
	} {
		f.SetRound(c.round)
		status, h, body := getC(t, client, c.path, c.header...)
		if status != c.status {
			t.Errorf("round %d GET %s %q: status %d, want %d", c.round, c.path, c.header, status, c.status)
		}
		if c.version != "" && !strings.HasSuffix(body, "<!-- version "+c.version+" -->\n") {
			t.Errorf("round %d GET %s: body ends %q, want version %s", c.round, c.path, body[max(0, len(body)-40):], c.version)
		}
		var lm string
		if !c.lastMod.IsZero() {
			lm = c.lastMod.Format(http.TimeFormat)
		}
		if h.Get("ETag") != c.etag || h.Get("Last-Modified") != lm {
			t.Errorf("round %d GET %s: ETag %q, Last-Modified %q; want %q, %q", c.round, c.path, h.Get("ETag"), h.Get("Last-Modified"), c.etag, lm)
		}
	}
}

// getC requests path of c.test with the header names and values given in pairs, and
// returns the status, the header and the body of the answer.
func getC(t *testing.T, client *http.Client, path string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://c.test"+path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}
