package crawl

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/politecrawl/crawl/fetch"
	"github.com/politecrawl/crawl/politeness"
	"github.com/politecrawl/crawl/robots"
	"github.com/politecrawl/crawl/storage"
)

// timing is the evidence of a fetch's pacing for its metadata record: when the
// response ended, and the wait the scheduler gave the host after it.
func timing(resp *fetch.Response, w politeness.Wait) *storage.Timing {
	return &storage.Timing{End: resp.End, Delay: w.Delay(), DelaySource: w.Reason.String()}
}

// exchange describes a fetch for the WARC writer.
func exchange(resp *fetch.Response, kind string) *storage.Exchange {
	return &storage.Exchange{
		TargetURI:      resp.FinalURL,
		IP:             resp.RemoteIP,
		Date:           resp.Start,
		Request:        resp.RawRequest,
		ResponseHeader: resp.RawHeader,
		Body:           resp.RawBody,
		Truncated:      resp.Truncated,
		Kind:           kind,
		Protocols:      protocols(resp),
	}
}

// protocols are the WARC-Protocol fields of an HTTP/2 exchange, whose records hold
// its HTTP/1.1 form; none for HTTP/1.1, which the records show as it was.
func protocols(resp *fetch.Response) []string {
	if resp.Protocol != "h2" {
		return nil
	}
	if resp.TLSVersion == "" {
		return []string{"h2"}
	}
	return []string{"h2", resp.TLSVersion}
}

// provenance records which robots.txt and which rule allowed a fetch.
func provenance(e *robots.Entry, d robots.Decision, signal map[string]string) *storage.RobotsDecision {
	return &storage.RobotsDecision{
		URL:           e.URL,
		FetchedAt:     e.FetchedAt,
		Status:        e.Status,
		Digest:        e.Digest,
		Rule:          ruleString(d.Rule),
		Allowed:       d.Allowed,
		ContentSignal: formatSignal(signal),
	}
}

func ruleString(r *robots.Rule) string {
	if r == nil {
		return "no matching rule"
	}
	return r.String()
}

// formatSignal writes a Content-Signal map as the robots.txt line does, keys sorted:
// "ai-input=no, ai-train=no, search=yes". It returns "" for none.
func formatSignal(sig map[string]string) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(sig)) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%s", k, sig[k])
	}
	return b.String()
}
