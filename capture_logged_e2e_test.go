package crawl_test

import (
	"testing"

	"github.com/politecrawl/crawl/capture"
	"github.com/politecrawl/crawl/crawltest"
)

// TestCaptureLoggedAgrees crawls crawltest.RequisiteSites, one of whose images
// answers 404 and whose front page names more requisites than
// requisites.max_per_page lets in, first stopped after a few requisites and then
// resumed to the end, and checks that the capture report the
// crawl logged (pages.jsonl and skipped.jsonl, summed as crawl status sums them)
// agrees with the one crawl qa derives from the WARC files: each requisite URL
// archived, blocked by robots.txt, failed or skipped for a limit counted alike, on
// the interrupted crawl and on the finished one.
func TestCaptureLoggedAgrees(t *testing.T) {
	sites := crawltest.RequisiteSites([]byte("a font"))
	sites[0].Pages["/img/narrow.png"].Status = 404
	farm := startFarm(t, sites)
	dir := t.TempDir()
	cfg := testConfig(farm, dir)
	cfg.Workers = 1
	cfg.Requisites.MaxPerPage = 10 // the front page names 12 of the kinds fetched
	check := func(stage string) (*capture.Logged, *capture.Report) {
		t.Helper()
		lg, err := capture.ReadLogged(dir)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := capture.ReadDir(dir, capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, want := lg.Distinct, rep.Distinct
		want.Found -= want.Excluded + want.Missing
		want.Excluded, want.Missing = 0, 0
		if got != want {
			t.Errorf("%s: logged %+v, from the WARC files %+v", stage, got, want)
		}
		if lg.Unreadable != 0 {
			t.Errorf("%s: %d lines unreadable", stage, lg.Unreadable)
		}
		return lg, rep
	}
	runUntilArchived(t, cfg, []string{"http://assets.test/css/site.css"}, 1)
	lg, rep := check("stopped")
	if lg.Documents == 0 || lg.Named.Queued == 0 || lg.Distinct.Archived == 0 {
		t.Errorf("stopped: logged %+v, want the front page's requisites queued, some archived", lg)
	}
	t.Logf("stopped: logged %+v; from the WARC files %+v", lg, rep.Distinct)

	runCrawl(t, cfg)
	auditOK(t, farm, 1) // the lease in flight at the stop is fetched again
	lg, rep = check("finished")
	// The video is of a kind not fetched, named by the front page alone.
	if lg.Named.Excluded != rep.Distinct.Excluded || rep.Distinct.Missing != 0 || lg.Pages != 4 ||
		lg.Distinct.Failed != 1 || lg.Distinct.Limit != 2 || lg.Distinct.Blocked != 1 {
		t.Errorf("finished: logged %+v; from the WARC files %+v", lg, rep.Distinct)
	}
	// page2 names site.css, archived when the front page's requisites were.
	if lg.Named.Archived == 0 || lg.Named.Archived > lg.Named.Queued {
		t.Errorf("finished: %d of %d queued requisites archived already when named, want some, at most all", lg.Named.Archived, lg.Named.Queued)
	}
	t.Logf("finished: logged %+v; from the WARC files %+v", lg, rep.Distinct)
}
