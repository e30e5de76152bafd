package crawltest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNeedTool checks that a present tool is returned, a missing one skips the test, and
// with POLITECRAWL_REQUIRE_TOOLS=1 fails it. The failing case runs in a child process,
// since a failed subtest fails its parent.
func TestNeedTool(t *testing.T) {
	if os.Getenv("CRAWLTEST_NEEDTOOL_CHILD") == "1" {
		NeedTool(t, "nothing", "/nonexistent/nothing", "it cannot be had")
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if got := NeedTool(t, "go test binary", self, ""); got != self {
		t.Errorf("NeedTool(present): got %q, want %q", got, self)
	}
	var skipped bool
	t.Run("missing", func(t *testing.T) {
		t.Setenv(RequireToolsEnv, "")
		defer func() { skipped = t.Skipped() }()
		NeedTool(t, "nothing", "/nonexistent/nothing", "it cannot be had")
		t.Error("NeedTool returned for a missing tool")
	})
	if !skipped {
		t.Error("missing tool: the test was not skipped")
	}

	cmd := exec.Command(self, "-test.run", "^TestNeedTool$")
	cmd.Env = append(os.Environ(), "CRAWLTEST_NEEDTOOL_CHILD=1", RequireToolsEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "nothing not found") || !strings.Contains(string(out), RequireToolsEnv+"=1 makes this a failure") {
		t.Errorf("with %s=1: err %v, output:\n%s", RequireToolsEnv, err, out)
	}
}
