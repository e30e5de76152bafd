package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/politecrawl/crawl/crawltest"
)

// TestCaptureReportAfterKill crawls crawltest.RequisiteFarm with the command, kills it
// with SIGKILL in the middle, and reads crawl status on what it left (the sums of
// what was settled, a torn line at most); then runs it again to the end, and crawl
// status's settled requisites agree with crawl qa's distinct ones from the WARC files:
// the lines a kill cut off were written again from the WARC files, no requisite was
// lost or counted twice.
func TestCaptureReportAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the crawl command twice")
	}
	sites := crawltest.RequisiteFarm(4, 6)
	farm, err := crawltest.Start(sites...)
	if err != nil {
		t.Fatal(err)
	}
	defer farm.Close()
	// cdn.test's logo is a seed of the farm: left out, it is a requisite alone.
	seeds := slices.DeleteFunc(farm.Seeds(), func(s string) bool { return strings.Contains(s, "cdn.test") })
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	args := farmCrawlArgs(t, farm, data, seeds, 8, 20*time.Millisecond)
	killAfterRequests(t, farm, pagesOf(sites)/3, args...)

	code, stdout, errOut := run(t, "status", "-data", data)
	killed := settled(t, stdout)
	if code != 0 {
		t.Fatalf("status after the kill: exit %d, settled %v\n%s%s", code, killed, stdout, errOut)
	}
	t.Logf("status after the kill:\n%s", stdout)

	if out, err := crawlProcess(t, args...).CombinedOutput(); err != nil || !strings.Contains(string(out), "complete") {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	code, stdout, errOut = run(t, "status", "-data", data)
	done := settled(t, stdout)
	report := filepath.Join(dir, "capture.json")
	if qcode, qout, qerr := run(t, "qa", "-data", data, "-json", report); qcode != 0 {
		t.Fatalf("qa: exit %d\n%s%s", qcode, qout, qerr)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Distinct struct{ Found, Archived, Blocked, Failed, Limit, Excluded, Missing int } `json:"distinct"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	d := rep.Distinct
	want := [5]int{d.Found - d.Excluded - d.Missing, d.Archived, d.Failed, d.Blocked, d.Limit}
	if code != 0 || done != want || d.Missing != 0 {
		t.Errorf("after the resume: status settled %v (distinct, archived, failed, blocked, limit), crawl qa %+v\n%s%s", done, d, stdout, errOut)
	}
	for i := range killed {
		if killed[i] > done[i] {
			t.Errorf("status settled %v at the kill, more than %v at the end", killed, done)
			break
		}
	}
}

// settledLine is crawl status's line of settled requisites.
var settledLine = regexp.MustCompile(`settled  (\d+) distinct: (\d+) archived(?: \(\d+ cut at a size limit\))?, (\d+) failed, (\d+) blocked by robots.txt, (\d+) skipped`)

// settled reads crawl status's line of settled requisites: distinct, archived,
// failed, blocked, limit; zeros when there is none.
func settled(t *testing.T, status string) [5]int {
	t.Helper()
	var n [5]int
	m := settledLine.FindStringSubmatch(status)
	if m == nil {
		return n
	}
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	return n
}
