package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// diskFullAfter returns an openFile hook that creates files as asked and
// then, from the n-th call on, hands back /dev/full in their place, so every
// write fails with ENOSPC as on a full disk.
func diskFullAfter(t *testing.T, n int) func(string, int, os.FileMode) (*os.File, error) {
	t.Helper()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full:", err)
	}
	calls := 0
	return func(name string, flag int, perm os.FileMode) (*os.File, error) {
		calls++
		f, err := os.OpenFile(name, flag, perm)
		if err != nil || calls < n {
			return f, err
		}
		f.Close()
		return os.OpenFile("/dev/full", os.O_WRONLY, 0)
	}
}

// checkWARCDir fails unless every WARC file in dir is made of whole records
// only, as gzip -t and a WARC reader need.
func checkWARCDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if !strings.Contains(name, ".warc.gz") || strings.HasSuffix(name, ".cdxj") || strings.HasSuffix(name, ".open") {
			continue
		}
		names = append(names, name)
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		end, records := scanMembers(f)
		f.Close()
		if end != fi.Size() || records == 0 || !strings.HasSuffix(name, ".warc.gz") {
			t.Errorf("%s: %d bytes, %d whole records in the first %d", name, fi.Size(), records, end)
		}
	}
	return names
}

// TestRotateDiskFull is issue 13 defect 6: a full disk when a new WARC file
// starts must leave no empty or partial file, say the disk is full, and let
// the next run start cleanly.
func TestRotateDiskFull(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w := openTest(t, WARCOptions{Dir: dir, MaxFileSize: 4000})
	w.openFile = diskFullAfter(t, 2) // the first file starts; the second meets a full disk
	if _, err := w.WriteExchange(ctx, exchange("http://a.example/1", noise(1, 3000), "")); err != nil {
		t.Fatal(err)
	}
	_, err := w.WriteExchange(ctx, exchange("http://a.example/2", noise(2, 3000), ""))
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("write at rotation on a full disk: got %v, want ENOSPC saying disk full", err)
	}
	if strings.Count(err.Error(), "storage:") != 1 {
		t.Errorf("error %q names its package more than once", err)
	}
	if _, err := w.WriteExchange(ctx, exchange("http://a.example/3", []byte("x"), "")); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("write after the failure: got %v, want the same error", err)
	}
	w.Close()
	if names := checkWARCDir(t, dir); len(names) != 1 {
		t.Errorf("files after the failed rotation: %q, want the first one only", names)
	}

	// The next run starts cleanly and goes on.
	w = openTest(t, WARCOptions{Dir: dir, MaxFileSize: 4000})
	if r := w.Repairs(); len(r) != 0 {
		t.Errorf("Repairs() = %+v after a clean failure, want none", r)
	}
	if _, err := w.WriteExchange(ctx, exchange("http://a.example/2", noise(2, 3000), "")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if names := checkWARCDir(t, dir); len(names) != 2 {
		t.Errorf("files after the next run: %q, want 2", names)
	}
}

// TestStartLeftovers checks that OpenWARC removes what a crash while a file
// started leaves: a temporary file, or (from older versions) an empty WARC
// file, and reports it.
func TestStartLeftovers(t *testing.T) {
	ctx := context.Background()
	for _, leftover := range []string{
		"crawl-20261122010203-00002.warc.gz",
		"crawl-20261122010203-00002.warc.gz" + tempSuffix,
	} {
		t.Run(leftover, func(t *testing.T) {
			dir := t.TempDir()
			w := openTest(t, WARCOptions{Dir: dir})
			if _, err := w.WriteExchange(ctx, exchange("http://a.example/", []byte("body"), "")); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, leftover), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			w = openTest(t, WARCOptions{Dir: dir})
			got := fmt.Sprintf("%+v", w.Repairs())
			want := fmt.Sprintf("%+v", []Recovery{{File: leftover, Removed: true}})
			if got != want {
				t.Errorf("Repairs() = %s, want %s", got, want)
			}
			if _, err := w.WriteExchange(ctx, exchange("http://a.example/2", []byte("body 2"), "")); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if names := checkWARCDir(t, dir); len(names) != 2 {
				t.Errorf("files: %q, want 2", names)
			}
		})
	}
}
