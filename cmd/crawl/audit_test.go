package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditCommand audits WARC files written without robots.txt: a violation, so exit
// status 1, the short report on stdout and the full one in -json's file; no path is a
// usage error.
func TestAuditCommand(t *testing.T) {
	data := t.TempDir()
	w := writeWARCs(t, data, 5)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "audit.json")
	code, stdout, errOut := run(t, "audit", "-agent", "ExampleBot", "-min-delay", "1s", "-json", report, data)
	if code != 1 || !strings.Contains(errOut, "the audit found violations") {
		t.Errorf("exit %d, stderr %q; want 1 and the violations named", code, errOut)
	}
	if !strings.Contains(stdout, "robots-late") || !strings.Contains(stdout, `agent "ExampleBot" (option), min delay 1s (option)`) {
		t.Errorf("stdout %q", stdout)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Counts map[string]int `json:"counts"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.Counts["robots-late"] == 0 {
		t.Errorf("JSON report: %v, counts %v", err, rep.Counts)
	}
	if code, _, _ := run(t, "audit"); code != 2 {
		t.Errorf("audit without a path: exit %d, want 2", code)
	}
	if code, _, errOut := run(t, "audit", filepath.Join(data, "missing")); code != 1 || !strings.Contains(errOut, "audit: ") {
		t.Errorf("audit of a missing path: exit %d, stderr %q", code, errOut)
	}
}
