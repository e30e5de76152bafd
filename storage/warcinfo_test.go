package storage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestWARCInfoFieldsOnce: a Config entry named like a field the record writes itself
// (robots, software) does not make that field appear twice; "robots" replaces the
// default.
func TestWARCInfoFieldsOnce(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, Config: map[string]string{
		"robots": "obey (RFC 9309)", "software": "other", "workers": "4",
	}})
	if _, err := w.WriteExchange(context.Background(), exchange("http://example.com/", []byte("hi"), "")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	info := readWARC(t, warcFiles(t, dir)[0])[0]
	for field, want := range map[string]string{"robots: ": "robots: obey (RFC 9309)\r\n", "software: ": "software: politecrawl\r\n", "workers: ": "workers: 4\r\n"} {
		n := 0
		for _, line := range bytes.Split(info.Content, []byte("\r\n")) {
			if bytes.HasPrefix(line, []byte(field)) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("warcinfo has %q %d times, want once:\n%s", field, n, info.Content)
		}
		if !bytes.Contains(info.Content, []byte(want)) {
			t.Errorf("warcinfo lacks %q:\n%s", want, info.Content)
		}
	}
}

// TestDigestIndexOption: the digest index goes where DigestIndex says, and the WARC
// directory holds WARC files only.
func TestDigestIndexOption(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "warc")
	index := filepath.Join(data, DigestIndexName)
	w := openTest(t, WARCOptions{Dir: dir, DigestIndex: index})
	if _, err := w.WriteExchange(context.Background(), exchange("http://example.com/", []byte("hi"), "")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(index); err != nil {
		t.Errorf("no digest index at %s: %v", index, err)
	}
	if _, err := os.Stat(filepath.Join(dir, DigestIndexName)); !os.IsNotExist(err) {
		t.Errorf("digest index in the WARC directory: %v", err)
	}
}
