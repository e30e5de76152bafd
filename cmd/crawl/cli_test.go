package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl"
	"github.com/politecrawl/crawl/frontier"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		code, out, errOut := run(t, args...)
		if code != 0 || !strings.HasPrefix(out, "politecrawl "+crawl.Version+" (go") || errOut != "" {
			t.Errorf("crawl %q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestMistypedCommand: a bare word is not taken for a seed; one close to a command
// name is answered with that command.
func TestMistypedCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"stauts"}, `did you mean "crawl status"?`},
		{[]string{"robts", "-data", "x"}, `did you mean "crawl robots"?`},
		{[]string{"-data", "x", "statsu"}, `did you mean "crawl status"?`},
		{[]string{"dmeo"}, `did you mean "crawl demo"?`},
		{[]string{"frobnicate"}, `"frobnicate" is neither a URL nor a command`},
	} {
		code, out, errOut := run(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("crawl %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestFlagsAfterURLs: flags may follow the URLs; after "--" everything is a URL.
func TestFlagsAfterURLs(t *testing.T) {
	dir := t.TempDir()
	m := &Main{Stdout: os.Stdout, Stderr: testStderr{t}}
	cfg, progress, err := crawlConfig(m, []string{"http://a.test/", "-delay", "5", "http://b.test/", "-data", dir, "-progress", "none", "-max-pages", "7"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://a.test/", "http://b.test/"}; !slices.Equal(cfg.Seeds, want) {
		t.Errorf("seeds %q, want %q", cfg.Seeds, want)
	}
	if time.Duration(cfg.Politeness.MinDelay) != 5*time.Second || cfg.DataDir != dir || progress != "none" || cfg.Scope.MaxPages != 7 {
		t.Errorf("flags after URLs not applied: delay %v, data %q, progress %q, max pages %d",
			cfg.Politeness.MinDelay, cfg.DataDir, progress, cfg.Scope.MaxPages)
	}
	// After --, a word starting with '-' is an argument (and here not a URL).
	code, _, errOut := run(t, "-data", dir, "--", "-delay")
	if code != 2 || !strings.Contains(errOut, `"-delay"`) {
		t.Errorf("crawl -- -delay: exit %d, stderr %q", code, errOut)
	}
	// A flag after a URL that is not a flag is refused clearly.
	code, _, errOut = run(t, "http://a.test/", "-nope")
	if code != 2 || !strings.Contains(errOut, "flag provided but not defined: -nope") {
		t.Errorf("crawl URL -nope: exit %d, stderr %q", code, errOut)
	}
	// crawl robots takes its flags after the URLs too.
	path := writeFile(t, "robots.txt", exampleRobots)
	code, out, errOut := run(t, "robots", "https://example.com/private/x", "-file", path, "-agent", "ExampleBot")
	if code != 0 || !strings.HasPrefix(out, "disallowed https://example.com/private/x\tdisallow: /private/ (line 5)") {
		t.Errorf("robots URL -file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestDelayFlag: -delay takes what the configuration file takes: a bare number is
// seconds.
func TestDelayFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{{"5", 5 * time.Second}, {"0.25", 250 * time.Millisecond}, {"200ms", 200 * time.Millisecond}, {"1m", time.Minute}} {
		m := &Main{Stdout: os.Stdout, Stderr: testStderr{t}}
		cfg, _, err := crawlConfig(m, []string{"-data", t.TempDir(), "-delay", tc.in, "http://a.test/"})
		if err != nil || time.Duration(cfg.Politeness.MinDelay) != tc.want {
			t.Errorf("-delay %s: got %v, %v; want %v", tc.in, cfg.Politeness.MinDelay, err, tc.want)
		}
	}
	code, _, errOut := run(t, "-delay", "soon", "http://a.test/")
	if code != 2 || !strings.Contains(errOut, "bad duration") {
		t.Errorf("-delay soon: exit %d, stderr %q", code, errOut)
	}
}

// TestSeedsFile: bad lines are skipped with a counted warning naming their line
// numbers; a BOM is accepted; a file without a seed is an error, and leaves no data
// directory; a run after the file is read does not read it again; a file changed
// under a resumed crawl is refused with what to do.
func TestSeedsFile(t *testing.T) {
	srv := onePageServer(t)
	path := writeFile(t, "seeds.txt", "\uFEFF# my seeds\r\n"+srv.URL+"/\r\n\r\nnot a url 5\r\nhttp://b.test/p.html  trailing junk\r\n"+srv.URL+"/c.html\r\n")
	data := t.TempDir()
	args := []string{"-data", data, "-seeds", path, "-allow-private", "-delay", "10ms", "-progress", "none"}
	code, out, errOut := run(t, args...)
	if code != 0 || !strings.Contains(out, "2 pages") {
		t.Fatalf("crawl: exit %d, want 0 and 2 pages\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		path + `: line 4: "not a url 5": `,
		path + `: line 5: "http://b.test/p.html  trailing junk": not a URL`,
		path + ": 2 seeds read, 2 lines skipped",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if code, out, _ := run(t, "status", "-data", data); code != 0 || !strings.Contains(out, "seeds    "+path+": read to its end; this run 2 seeds (2 new), 2 lines skipped") {
		t.Errorf("crawl status: exit %d, stdout:\n%s", code, out)
	}
	if code, _, errOut := run(t, args...); code != 0 || strings.Contains(errOut, "skipped") {
		t.Errorf("second run: exit %d, stderr %q; want 0 and the file not read again", code, errOut)
	}
	if err := os.WriteFile(path, []byte(srv.URL+"/other.html\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(t, args...)
	if code != 1 || !strings.Contains(errOut, "changed since this crawl read") || !strings.Contains(errOut, "Put the file back") {
		t.Errorf("changed seeds file: exit %d, stderr %q; want 1 and what to do", code, errOut)
	}

	junk := writeFile(t, "junk.txt", "# nothing\nnot a url\nftp://x.test/\n")
	fresh := filepath.Join(t.TempDir(), "data")
	code, out, errOut = run(t, "-data", fresh, "-seeds", junk)
	if code != 2 || !strings.Contains(errOut, "no seed URL (2 lines skipped)") || out != "" {
		t.Errorf("all-junk seeds file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("all-junk seeds file left a data directory: %v", err)
	}
	code, _, errOut = run(t, "-data", fresh, "-seeds", filepath.Join(t.TempDir(), "missing.txt"))
	if code != 2 || !strings.Contains(errOut, "missing.txt") {
		t.Errorf("missing seeds file: exit %d, stderr %q", code, errOut)
	}
}

// TestSetupFailure: a crawl that cannot start prints its error once, no summary, and
// does not ask to be run again.
func TestSetupFailure(t *testing.T) {
	data := t.TempDir()
	// warc/ cannot be made: a file is in the way.
	if err := os.WriteFile(filepath.Join(data, "warc"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "-data", data, "-progress", "none", "http://a.test/")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and no summary", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "crawl: ") || strings.Contains(errOut, "crawl: crawl:") ||
		strings.Contains(errOut, "run again") || strings.Contains(errOut, "resume") {
		t.Errorf("stderr %q: want the error once, on one line, without \"run again\"", errOut)
	}
}

// TestDataDirInUse: a second crawl of a data directory in use says so, once, and adds
// nothing to that crawl's log.
func TestDataDirInUse(t *testing.T) {
	data := t.TempDir()
	held, err := frontier.Open(filepath.Join(data, "frontier.db"), frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, out, errOut := run(t, "-data", data, "-progress", "none", "http://a.test/")
	want := "crawl: " + data + " is in use by another crawl (its frontier.db is locked): wait for that crawl to end, or give another -data directory\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, want)
	}
	if _, err := os.Stat(filepath.Join(data, "crawl.log")); !os.IsNotExist(err) {
		t.Errorf("the refused crawl made crawl.log: %v", err)
	}
}

// TestRobotsUnreachable: when robots.txt cannot be fetched at all, crawl robots says
// unreachable and exits 1.
func TestRobotsUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	gone := srv.URL
	srv.Close()
	code, out, errOut := run(t, "robots", "-allow-private", gone+"/x")
	if code != 1 || !strings.HasPrefix(out, "unreachable "+gone+"/x\trobots.txt not fetched: ") ||
		!strings.Contains(errOut, "crawl: robots: 1 of 1 robots.txt unreachable") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// testStderr sends a command's stderr to the test log.
type testStderr struct{ t *testing.T }

func (w testStderr) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestRequisitesFlag checks that -requisites=false turns page requisites off over
// the configuration's default, and that they are on without it.
func TestRequisitesFlag(t *testing.T) {
	m := &Main{Stdout: os.Stdout, Stderr: testStderr{t}}
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"http://a.test/", "-data", t.TempDir()}, true},
		{[]string{"http://a.test/", "-data", t.TempDir(), "-requisites=false"}, false},
	} {
		cfg, _, err := crawlConfig(m, c.args)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Requisites.Enabled != c.want {
			t.Errorf("crawlConfig(%q): requisites.enabled %v, want %v", c.args, cfg.Requisites.Enabled, c.want)
		}
	}
}
