package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	// The scenarios run their crawls in child processes: this test binary, told so by
	// the environment.
	if job := os.Getenv(childEnv); job != "" {
		os.Exit(runChild(job, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestShort runs every scenario at its short size and checks that each completes and
// passes the politeness audit. It judges no figure: timings on a shared CI machine
// mean nothing.
func TestShort(t *testing.T) {
	var stdout, stderr bytes.Buffer
	m := &Main{Stdout: &stdout, Stderr: &stderr}
	err := m.Run(context.Background(), []string{"-short", "-out", t.TempDir()})
	t.Logf("stdout:\n%s\nstderr:\n%s", &stdout, &stderr)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	for _, name := range scenarioOrder {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, name+" ") {
				found = true
				if !strings.HasSuffix(l, "— ok") {
					t.Errorf("scenario %s: %s", name, l)
				}
			}
		}
		if !found {
			t.Errorf("no line for scenario %s", name)
		}
	}
}

func TestArgs(t *testing.T) {
	for _, args := range [][]string{
		{"-scenario", "nope"},
		{"-scenario", ","},
		{"-profile"},
		{"-workers", "0"},
		{"-queued", "-1"},
		{"-link-batch", "x"},
		{"extra"},
	} {
		var out bytes.Buffer
		m := &Main{Stdout: &out, Stderr: &out}
		if got := m.Exit(m.Run(context.Background(), args)); got != 2 {
			t.Errorf("Run(%q): exit status %d, want 2\n%s", args, got, &out)
		}
	}
}
