package crawltest

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestHostileSites checks what the hostile sites send: a bomb compressed about a
// hundred to one that decodes to its size, a page without Content-Length, and
// bodies of the size asked.
func TestHostileSites(t *testing.T) {
	const size = 1 << 20
	f, err := Start(HostileSites(1, size)...)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	client := &http.Client{Transport: &http.Transport{
		DisableCompression: true,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, f.Addr())
		},
	}}
	for _, kind := range HostileKinds {
		resp, err := client.Get("http://" + kind + "-0.test/")
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		body := raw
		switch kind {
		case "bomb":
			if resp.Header.Get("Content-Encoding") != "gzip" || len(raw) > size/50 || len(raw) < size/200 {
				t.Errorf("bomb: %d bytes with Content-Encoding %q; want gzip, 50 to 200 times smaller than %d", len(raw), resp.Header.Get("Content-Encoding"), size)
			}
			zr, err := gzip.NewReader(strings.NewReader(string(raw)))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		case "nolength":
			if resp.ContentLength != -1 {
				t.Errorf("nolength: Content-Length %d sent", resp.ContentLength)
			}
		}
		if len(body) < size*3/4 || len(body) > size+1024 || !strings.Contains(string(body[:1024]), `href="/next.html"`) {
			t.Errorf("%s: %d bytes; want about %d, linking to /next.html first", kind, len(body), size)
		}
	}
}
