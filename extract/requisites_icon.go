package extract

import (
	"net/url"
	"strings"
)

// HostIconPath is where a browser looks for a site's icon when a page names none,
// and where a replay tool (ReplayWeb.page) looks for the icon of a replayed page's
// tab whatever the page names.
const HostIconPath = "/favicon.ico"

// HostIcon returns the icon at HostIconPath of the host of page, an absolute http or
// https URL, as a requisite of KindIcon (From "host"), its URL in the form
// (*URLRules)(nil).Canonical gives. ok is false for any other URL. No document names
// it: the crawler and its capture report add it to each page's requisites, so it is
// fetched once per host (the frontier keeps each URL once) and accounted as any
// other.
func HostIcon(page string) (q Requisite, ok bool) {
	u, err := url.Parse(page)
	if err != nil || u.Host == "" {
		return Requisite{}, false
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return Requisite{}, false
	}
	c, err := (*URLRules)(nil).Canonical(u.Scheme + "://" + u.Host + HostIconPath)
	if err != nil {
		return Requisite{}, false
	}
	return Requisite{URL: c, Kind: KindIcon, From: "host"}, true
}
