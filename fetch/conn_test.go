package fetch

import (
	"bytes"
	"runtime"
	"testing"
)

// TestRecorderKeepsHeaderOnly checks what a recorder keeps of the reads of a response
// and that, when the first read holds the whole header with the start of the body,
// it copies the header alone: copying the whole read cost a page's first 4 KiB or more
// each time.
func TestRecorderKeepsHeaderOnly(t *testing.T) {
	const hdr = "HTTP/1.1 200 OK\r\nContent-Length: 32768\r\n\r\n"
	const early = "HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n"
	body := bytes.Repeat([]byte("b"), 32<<10)
	tests := []struct {
		name  string
		reads []string
		want  string
	}{
		{"one read", []string{hdr + string(body)}, hdr},
		{"header in two reads", []string{hdr[:10], hdr[10:] + "bb"}, hdr},
		{"cut in the blank line", []string{hdr[:len(hdr)-1], "\nbb"}, hdr},
		{"interim first", []string{early + hdr + "bb"}, hdr},
		{"interim alone", []string{early, hdr + "bb"}, hdr},
		{"bare LF", []string{"HTTP/1.0 200 OK\nA: b\n\nbody"}, "HTTP/1.0 200 OK\nA: b\n\n"},
	}
	for _, tt := range tests {
		r := &recorder{}
		for _, p := range tt.reads {
			r.read([]byte(p))
		}
		if got := string(r.header()); got != tt.want {
			t.Errorf("%s: header\n\tgot  %q\n\twant %q", tt.name, got, tt.want)
		}
	}

	read := append([]byte(hdr), body...)
	const n = 100
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		(&recorder{}).read(read)
	}
	runtime.ReadMemStats(&after)
	if got := (after.TotalAlloc - before.TotalAlloc) / n; got > 1<<10 {
		t.Errorf("a read of %d bytes with a header of %d: %d bytes allocated, want at most 1 KiB", len(read), len(hdr), got)
	}
}
