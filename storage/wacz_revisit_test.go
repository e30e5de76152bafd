package storage

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestWACZNotModifiedLine checks the index line of a server-not-modified
// revisit in a WACZ: without its 304 status, which would make ReplayWeb.page
// answer the capture with an empty 304 instead of resolving the revisit, but
// otherwise the line of the WARC file's own index (which keeps the status, as
// warcio writes it). Other lines are copied as they are.
func TestWACZNotModifiedLine(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: filepath.Join(dir, "warc")})
	ex := exchange("http://a.example/", []byte("<title>a</title>"), "")
	ex.ResponseHeader = []byte(strings.Replace(string(ex.ResponseHeader), "\r\n\r\n", "\r\nETag: \"v1\"\r\n\r\n", 1))
	if _, err := w.WriteExchange(ctx, ex); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteExchange(ctx, exchange("http://a.example/same", []byte("<title>a</title>"), "")); err != nil {
		t.Fatal(err)
	}
	loc, err := w.WriteExchange(ctx, notModified("http://a.example/", `"v1"`))
	if err != nil {
		t.Fatal(err)
	}
	if !loc.NotModified {
		t.Fatalf("304 not archived as a server-not-modified revisit: %+v", loc)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var own []string
	for _, p := range warcFiles(t, filepath.Join(dir, "warc")) {
		own = append(own, readLines(t, p+IndexSuffix)...)
	}
	out, _ := packTest(t, dir)
	got := strings.SplitAfter(string(checkWACZ(t, out)["indexes/index.cdxj"]), "\n")
	got = got[:len(got)-1]
	if len(got) != len(own) || len(own) != 3 {
		t.Fatalf("WACZ index:\n%s\nWARC indexes:\n%s", strings.Join(got, ""), strings.Join(own, ""))
	}
	for i, line := range own {
		want := line
		if strings.Contains(line, `"status":"304"`) {
			want = strings.Replace(line, `,"status":"304"`, "", 1)
		}
		if got[i] != want {
			t.Errorf("WACZ index line %d:\n\tgot  %s\twant %s", i, got[i], want)
		}
	}
	if n := strings.Count(strings.Join(own, ""), `"mime":"warc/revisit","status":"304"`); n != 1 {
		t.Errorf("%d 304 revisit lines in the WARC indexes, want 1", n)
	}
}

func TestReplayLine(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{`com,a)/ 20261122020203 {"url":"http://a.example/","mime":"warc/revisit","status":"304","length":"300","offset":"9","filename":"f"}` + "\n",
			`com,a)/ 20261122020203 {"url":"http://a.example/","mime":"warc/revisit","length":"300","offset":"9","filename":"f"}` + "\n"},
		{`com,a)/ 20261122020203 {"url":"http://a.example/","mime":"warc/revisit","status":"200","digest":"X","length":"3"}` + "\n",
			`com,a)/ 20261122020203 {"url":"http://a.example/","mime":"warc/revisit","status":"200","digest":"X","length":"3"}` + "\n"},
		{`com,a)/ 20261122020203 {"url":"http://a.example/","mime":"text/html","status":"304","length":"3"}` + "\n",
			`com,a)/ 20261122020203 {"url":"http://a.example/","mime":"text/html","status":"304","length":"3"}` + "\n"},
		{`com,a)/x 20261122020203 {"url":"http://a.example/x?\"mime\":\"warc/revisit\",\"status\":\"304\",","mime":"text/html","status":"200","length":"3"}` + "\n",
			`com,a)/x 20261122020203 {"url":"http://a.example/x?\"mime\":\"warc/revisit\",\"status\":\"304\",","mime":"text/html","status":"200","length":"3"}` + "\n"},
	} {
		if got := string(replayLine([]byte(c.in))); got != c.out {
			t.Errorf("replayLine(%q):\n\tgot  %q\n\twant %q", c.in, got, c.out)
		}
	}
}
