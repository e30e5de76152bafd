package storage

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

func TestMaskSecrets(t *testing.T) {
	const m = SecretMark
	for _, tc := range []struct{ in, want string }{
		{"GET / HTTP/1.1\r\nHost: a.test\r\n\r\n", "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n"},
		{"GET / HTTP/1.1\r\nAuthorization: Basic YW5uOnB3\r\nAccept: */*\r\n\r\n",
			"GET / HTTP/1.1\r\nAuthorization: Basic " + m + "\r\nAccept: */*\r\n\r\n"},
		{"GET / HTTP/1.1\r\nauthorization:Bearer tok\r\n\r\n", "GET / HTTP/1.1\r\nauthorization: Bearer " + m + "\r\n\r\n"},
		{"GET / HTTP/1.1\r\nAuthorization: opaque\r\n\r\n", "GET / HTTP/1.1\r\nAuthorization: " + m + "\r\n\r\n"},
		{"GET / HTTP/1.1\nCookie: a=1; b=2;c\n\n", "GET / HTTP/1.1\nCookie: a=" + m + "; b=" + m + "; " + m + "\n\n"},
		{"GET / HTTP/1.1\r\nCookie: a=1\r\n continued=2\r\nX: y\r\n\r\n", "GET / HTTP/1.1\r\nCookie: a=" + m + "\r\nX: y\r\n\r\n"},
		{"HTTP/1.1 200 OK\r\nSet-Cookie: sid=abc; Path=/; HttpOnly\r\nSet-Cookie: t=1\r\n\r\n",
			"HTTP/1.1 200 OK\r\nSet-Cookie: sid=" + m + "; Path=/; HttpOnly\r\nSet-Cookie: t=" + m + "\r\n\r\n"},
		{"HTTP/1.1 200 OK\r\nX-Cookie-Policy: none\r\nX-Authorization-Hint: x\r\n\r\n",
			"HTTP/1.1 200 OK\r\nX-Cookie-Policy: none\r\nX-Authorization-Hint: x\r\n\r\n"},
		{"GET /cookie:x HTTP/1.1\r\n\r\n", "GET /cookie:x HTTP/1.1\r\n\r\n"},
	} {
		if got := string(maskSecrets([]byte(tc.in))); got != tc.want {
			t.Errorf("maskSecrets(%q):\n\tgot  %q\n\twant %q", tc.in, got, tc.want)
		}
	}
}

// TestKeepSecrets: by default the request and response records hold the
// mark, not the secrets; with KeepSecrets they hold the bytes as sent.
func TestKeepSecrets(t *testing.T) {
	for _, keep := range []bool{false, true} {
		dir := t.TempDir()
		w := openTest(t, WARCOptions{Dir: dir, KeepSecrets: keep})
		ex := exchange("http://a.example/", []byte("hello"), "")
		ex.Request = []byte("GET / HTTP/1.1\r\nHost: a.example\r\nAuthorization: Bearer tok-SECRET\r\nCookie: sid=SECRET1\r\n\r\n")
		ex.ResponseHeader = []byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nSet-Cookie: sid=SECRET2; Path=/\r\n\r\n")
		if _, err := w.WriteExchange(context.Background(), ex); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var all []byte
		for _, r := range readDir(t, dir) {
			all = append(all, r.Content...)
			if r.get("WARC-Type") == "response" && !bytes.HasSuffix(r.Content, []byte("\r\n\r\nhello")) {
				t.Errorf("keep=%v: response block %q lost its payload", keep, r.Content)
			}
		}
		secrets := strings.Count(string(all), "SECRET")
		marks := strings.Count(string(all), SecretMark)
		if keep && (secrets != 3 || marks != 0) || !keep && (secrets != 0 || marks != 3) {
			t.Errorf("keep=%v: %d secrets and %d marks in the records:\n%s", keep, secrets, marks, all)
		}
	}
}

// TestProtocols: an exchange's protocols are WARC-Protocol fields of its
// request and response records, in order, and gowarc reads them.
func TestProtocols(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir})
	ex := exchange("https://a.example/", []byte("hello"), "")
	ex.Request = []byte("GET / HTTP/1.1\r\nhost: a.example\r\nuser-agent: ExampleBot/1.0\r\n\r\n")
	ex.ResponseHeader = []byte("HTTP/1.1 200 \r\ncontent-type: text/plain\r\n\r\n")
	ex.Protocols = []string{"h2", "tls/1.3"}
	if _, err := w.WriteExchange(context.Background(), ex); err != nil {
		t.Fatal(err)
	}
	ex2 := exchange("https://a.example/other", []byte("x"), "")
	ex2.Protocols = []string{"h2 bad"}
	if _, err := w.WriteExchange(context.Background(), ex2); !errors.Is(err, ErrInvalid) {
		t.Errorf("a protocol with a space: got %v, want ErrInvalid", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// gowarc keeps one value per field name: the fields are read from the bytes.
	var all bytes.Buffer
	for _, name := range warcFiles(t, dir) {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(&all, zr); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if n := strings.Count(all.String(), "\r\nWARC-Protocol: h2\r\nWARC-Protocol: tls/1.3\r\n"); n != 2 {
		t.Errorf("%d records with WARC-Protocol h2 then tls/1.3, want the request and the response:\n%s", n, all.String())
	}
}
