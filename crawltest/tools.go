package crawltest

import (
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
)

// RequireToolsEnv names the environment variable that turns a missing outside tool
// (nats-server, Chromium, an npm package, a Debian program) into a test failure rather
// than a skip. .ci/run sets it to 1, so CI never passes by skipping.
const RequireToolsEnv = "POLITECRAWL_REQUIRE_TOOLS"

// toolUse counts, across a test binary, the tests that asked for outside tools: those
// that had them and those skipped for want of one, with the tools missing.
var toolUse struct {
	sync.Mutex
	had, skipped int
	missing      map[string]string // tool → how to get it
}

// ToolsRequired reports whether a missing tool fails the test: RequireToolsEnv is 1, or
// one of the older per-harness variables given (such as POLITECRAWL_REPLAY) is.
func ToolsRequired(envs ...string) bool {
	for _, e := range append([]string{RequireToolsEnv}, envs...) {
		if os.Getenv(e) == "1" {
			return true
		}
	}
	return false
}

// NeedTool returns path when it exists (a program, or a package's directory). When it does not, the test fails if
// ToolsRequired(envs...) and is skipped otherwise, naming the tool and hint (how to get
// it); the skip is counted for ReportToolSkips.
func NeedTool(t testing.TB, tool, path, hint string, envs ...string) string {
	t.Helper()
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			toolUse.Lock()
			toolUse.had++
			toolUse.Unlock()
			return path
		}
	}
	MissingTool(t, tool, fmt.Sprintf("not found at %q", path), hint, envs...)
	return ""
}

// MissingTool fails or skips the test for want of tool, as NeedTool does; why says what
// was looked for.
func MissingTool(t testing.TB, tool, why, hint string, envs ...string) {
	t.Helper()
	if ToolsRequired(envs...) {
		t.Fatalf("%s %s (%s=1 makes this a failure): %s", tool, why, RequireToolsEnv, hint)
	}
	toolUse.Lock()
	toolUse.skipped++
	if toolUse.missing == nil {
		toolUse.missing = make(map[string]string)
	}
	toolUse.missing[tool] = hint
	toolUse.Unlock()
	t.Skipf("%s %s; skipped (set %s=1 to make this a failure): %s", tool, why, RequireToolsEnv, hint)
}

// ReportToolSkips is for a TestMain, after m.Run: when tests were skipped for want of a
// tool it prints which tools and how to get them, and returns the number of such skips.
// A passing package's output is hidden by `go test ./...`, so it also prints the line the
// go command looks for to end the package's summary with "[no tests to run]": the only
// mark a passing package can leave in that listing, here meaning that tests needing a
// missing tool did not run (README says so).
func ReportToolSkips() int {
	toolUse.Lock()
	defer toolUse.Unlock()
	if toolUse.skipped == 0 {
		return 0
	}
	tools := make([]string, 0, len(toolUse.missing))
	for tool := range toolUse.missing {
		tools = append(tools, tool)
	}
	sort.Strings(tools)
	for _, tool := range tools {
		fmt.Fprintf(os.Stdout, "SKIP: %s is missing: %s\n", tool, toolUse.missing[tool])
	}
	fmt.Fprintf(os.Stdout, "SKIP: %d of %d tests needing outside tools skipped (%s=1 makes them fail)\n",
		toolUse.skipped, toolUse.skipped+toolUse.had, RequireToolsEnv)
	// cmd/go/internal/test's noTestsToRun.
	fmt.Fprint(os.Stdout, "\ntesting: warning: no tests to run\n")
	return toolUse.skipped
}
