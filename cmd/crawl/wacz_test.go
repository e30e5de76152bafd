package main

import (
	"archive/zip"
	"path/filepath"
	"strings"
	"testing"
)

func TestWACZCommand(t *testing.T) {
	data := t.TempDir()
	w := writeWARCs(t, data, 5)
	out := filepath.Join(t.TempDir(), "x.wacz")
	if code, _, errOut := run(t, "wacz", "-data", data, "-o", out); code != 1 || !strings.Contains(errOut, "in use by a running crawl") {
		t.Errorf("wacz during a crawl: exit %d, stderr %q; want a refusal", code, errOut)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := run(t, "wacz", "-data", data, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(stdout, "wrote "+out+": ") || !strings.Contains(stdout, "5 index lines, 0 pages") {
		t.Errorf("stdout %q", stdout)
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	got := strings.Join(names, " ")
	if !strings.Contains(stdout, "politeness audit: ") {
		t.Errorf("stdout %q does not give the audit's result", stdout)
	}
	for _, want := range []string{"archive/", "indexes/index.cdxj", "pages/pages.jsonl", "datapackage.json", "datapackage-digest.json",
		"audit/politeness.json", "audit/politeness.txt"} {
		if !strings.Contains(got, want) {
			t.Errorf("WACZ entries %q lack %s", got, want)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*.tmp"))
	if len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}
