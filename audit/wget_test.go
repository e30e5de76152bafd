package audit

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawl/crawl/crawltest"
)

// wgetEnv names the variable that makes a missing wget a failure (.ci/extra sets it).
const wgetEnv = "POLITECRAWL_WGET"

// TestWgetCrawl has Debian's wget crawl a farm site that asks for a Crawl-delay of 2 s,
// writing a WARC file, and audits that file: every violation the farm's server-side
// auditor sees (wget ignores Crawl-delay) is found or, where wget's second-precision
// dates cannot tell, reported as undecided; nothing is found that the farm did not see;
// and the report says that, without response ends, overlaps and compliance could not be
// checked.
func TestWgetCrawl(t *testing.T) {
	path, err := exec.LookPath("wget")
	if err != nil {
		path = ""
	}
	wget := crawltest.NeedTool(t, "wget", path, "apt-get install wget", wgetEnv)
	farm, err := crawltest.Start(crawltest.Site{
		Host:   "slow.test",
		Robots: &crawltest.Robots{Body: "User-agent: *\nCrawl-delay: 2\nDisallow: /private/\n"},
		Delay:  2 * time.Second,
		Pages: map[string]*crawltest.Page{
			"/":          {Links: []string{"/a", "/b", "/private/x", "/c"}},
			"/a":         {Links: []string{"/d", "/e"}},
			"/b":         {},
			"/c":         {Links: []string{"/f"}},
			"/d":         {},
			"/e":         {},
			"/f":         {},
			"/private/x": {Disallowed: true},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()
	dir := t.TempDir()
	cmd := exec.Command(wget, "--recursive", "--level=3", "--no-verbose", "--delete-after",
		"--directory-prefix="+dir, "--warc-file="+filepath.Join(dir, "wget"),
		"-e", "robots=on", "-e", "use_proxy=yes", "-e", "http_proxy=http://"+farm.Addr()+"/",
		"http://slow.test/")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wget: %v\n%s", err, out)
	}

	server := crawltest.Audit(farm, crawltest.AuditOptions{})
	rep := auditDir(t, filepath.Join(dir, "wget.warc.gz"), Options{})
	if rep.Exchanges != server.Requests {
		t.Errorf("%d exchanges in wget's WARC file, the farm saw %d requests", rep.Exchanges, server.Requests)
	}
	found := map[string]Kind{}
	for _, v := range rep.Violations {
		found[v.URL] = v.Kind
	}
	undecided := map[string]bool{}
	for _, v := range rep.Undecided {
		undecided[v.URL] = true
	}
	seen := map[string]bool{}
	for _, v := range server.Violations {
		u := "http://" + v.Host + v.Path
		var want Kind
		switch v.Kind {
		case crawltest.KindGap:
			want = KindGap
		case crawltest.KindRobotsFirst:
			want = KindRobotsLate
		default:
			t.Errorf("the farm saw %s, which this test does not expect of wget", v)
			continue
		}
		seen[u+" "+string(want)] = true
		switch {
		case found[u] == want:
		case want == KindGap && undecided[u]:
			t.Logf("the farm saw %s; the audit could not decide it from second-precision dates", v)
		default:
			t.Errorf("the farm saw %s; the audit did not find it (found %v)", v, rep.Violations)
		}
	}
	for _, v := range rep.Violations {
		if !seen[v.URL+" "+string(v.Kind)] {
			t.Errorf("the audit found %s, which the farm did not see", v)
		}
	}
	if len(rep.Violations) == 0 {
		t.Error("the audit found nothing in wget's crawl")
	}
	checks := map[string]bool{}
	for _, u := range rep.Unchecked {
		checks[u.Check] = true
	}
	if !checks["overlap"] {
		t.Errorf("unchecked %+v: want overlaps named as not checked (no response end)", rep.Unchecked)
	}
	t.Logf("farm: %d violations in %d requests; audit: %d violations, %d undecided, unchecked %+v",
		len(server.Violations), server.Requests, len(rep.Violations), len(rep.Undecided), rep.Unchecked)
}
