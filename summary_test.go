package crawl

import (
	"strings"
	"testing"
)

// TestSummaryState checks the first word of the summary for each way a run ends: a run
// whose frontier is empty but left URLs set aside is not called complete, and a run that
// fetched nothing points at the warnings above only when there were some.
func TestSummaryState(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Summary
		want string
	}{
		{"complete", Summary{Started: true, Pages: 3, Complete: true}, "crawl complete: 3 pages"},
		{"set aside", Summary{Started: true, Pages: 3, Complete: true, Parked: 7}, "crawl ended with 7 URLs set aside"},
		{"limit", Summary{Started: true, Pages: 3, LimitReached: true, Queued: 2}, "crawl stopped at max_pages with 2 URLs queued"},
		{"stopped", Summary{Started: true, Pages: 3, Queued: 2}, "crawl stopped before the end"},
		{"failed", Summary{Started: true, Pages: 3, Failed: true}, "crawl stopped by an error"},
		{"nothing", Summary{Started: true, Errors: 1, Complete: true}, "crawl failed: no page fetched (crawl.log says why"},
		{"nothing, warned", Summary{Started: true, Errors: 1, Complete: true, Warnings: 2}, "crawl failed: no page fetched (the warnings above say why)"},
	} {
		if got := tc.s.String(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: summary starts %q, want %q", tc.name, strings.SplitN(got, "\n", 2)[0], tc.want)
		}
	}
}
